/* SPDX-License-Identifier: MIT */
/*
 * The values of the settings that three places take: the configuration file
 * (daemon/config*.c), `uplink add` over the control socket (daemon/control.c
 * and the control codec) and the CLI's arguments (cli/). Each is checked
 * here once, so the three cannot disagree on what is valid.
 *
 * A check returns 0, or -EINVAL with what is wrong in why (if not NULL) as a
 * phrase, "0 is out of range 1..1000", that the caller puts after its own
 * context: the file and line and the setting, the uplink's name, the
 * command. A value quoted in a phrase is escaped (escape.h): it may come
 * from a socket.
 */
#ifndef WB_VALIDATE_H
#define WB_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Room for any phrase, with the value it quotes cut to fit. */
#define WB_WHY_MAX 160

/* An uplink's share of new traffic relative to the others; the wire carries it in 16 bits. */
#define WB_WEIGHT_MIN 1
#define WB_WEIGHT_MAX 1000
#define WB_WEIGHT_DEFAULT 1

/* Bond, peer and uplink names: 1..WB_UPLINK_NAME_MAX of WB_NAME_CHARS (wire.h). */
int wb_validate_name(const char *name, char *why, size_t len);

/* A name the kernel takes for an interface (dev_valid_name()): 1..15 bytes, not . or .., no /, : or space. */
int wb_validate_ifname(const char *ifname, char *why, size_t len);

/* WB_WEIGHT_MIN..WB_WEIGHT_MAX. */
int wb_validate_weight(long long weight, char *why, size_t len);

/* A firewall mark (SO_MARK): 1..0xffffffff, 0 being no mark. */
int wb_validate_fwmark(long long fwmark, char *why, size_t len);

/* An uplink's socket is tied to it by interface, by source address or by mark: at least one. */
int wb_validate_binding(bool interface, bool source, bool fwmark, char *why, size_t len);

/* A port in decimal, 1..65535: digits only (no sign, no space, no hex), into *port; 0 or -EINVAL. */
int wb_parse_port(const char *s, uint16_t *port);

/*
 * A source address: "192.0.2.10", "192.0.2.10:4000", "2001:db8::1" or
 * "[2001:db8::1]:4000", into *ss (if not NULL) with port 0 when none is given.
 */
int wb_validate_source(struct sockaddr_storage *ss, const char *source, char *why, size_t len);

/*
 * An IPv4 or IPv6 literal (no DNS) of the family given (AF_UNSPEC: either),
 * with a port (host order), into *ss.
 */
int wb_validate_address(struct sockaddr_storage *ss, const char *addr, int family, uint16_t port, char *why,
			size_t len);

#endif
