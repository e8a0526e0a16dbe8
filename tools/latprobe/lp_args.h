/* SPDX-License-Identifier: MIT */
/*
 * wb-latprobe's command line, parsed. Pure: it opens nothing and prints
 * nothing, so it can be unit tested and fuzzed.
 *
 *   wb-latprobe send --to ADDR:PORT --rate PPS --size BYTES --duration SECONDS
 *                    [--dscp NAME|NUM] [--bind ADDR[:PORT]] [--stream ID] [-J]
 *   wb-latprobe recv --bind ADDR:PORT --duration SECONDS [--expect N]
 *                    [--stream ID] [--delays FILE] [-J]
 *
 * An IPv6 address with a port is written [ADDR]:PORT. Options take their
 * value as the next word or after '=' (--rate=50).
 */
#ifndef LATPROBE_ARGS_H
#define LATPROBE_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define LP_MAX_RATE 100000u            /* packets a second */
#define LP_MAX_DURATION_S 86400u       /* a day */

enum lp_mode { LP_MODE_NONE, LP_MODE_SEND, LP_MODE_RECV };

struct lp_addr {
	struct sockaddr_storage ss;
	socklen_t len; /* 0: not given */
};

struct lp_args {
	enum lp_mode mode;
	struct lp_addr to;   /* send: the receiver */
	struct lp_addr bind; /* send: optional source; recv: where to listen (port required) */
	uint32_t rate;       /* packets a second */
	uint32_t size;       /* UDP payload bytes, LP_HDR_LEN..LP_MAX_LEN */
	int dscp;            /* 0..63, or -1: the system's default */
	uint64_t duration_ns;
	uint32_t stream;     /* send: the id it writes (default 1); recv: the only one it counts */
	bool stream_set;
	uint64_t expect;     /* recv: packets expected, 0 for none */
	const char *delays_path;
	bool json;
	bool help;
};

/* Returns 0, or -EINVAL with a one-line message in err naming the word at fault. argv[0] is the program. */
int lp_args_parse(struct lp_args *a, int argc, char *const argv[], char *err, size_t errlen);

/* A DSCP by name (EF, CS0..CS7, AF11..AF43, VA, LE, DF; any case) or number (0..63); -1 if neither. */
int lp_dscp_parse(const char *s);

/* "127.0.0.1:9000", "[::1]:9000"; with port_optional also "10.0.0.1", "::1", "[::1]" (port 0). */
int lp_addr_parse(const char *s, bool port_optional, struct lp_addr *out);

/* The packets of a send: rate x duration, rounded to the nearest. */
uint64_t lp_packet_count(uint32_t rate, uint64_t duration_ns);

/* When packet i leaves, from the start: i / rate seconds, in ns, with no drift. */
uint64_t lp_send_offset_ns(uint64_t i, uint32_t rate);

extern const char lp_usage[];

#endif
