/* SPDX-License-Identifier: MIT */
/*
 * rtnetlink through libmnl: the link, address and route changes the daemon
 * makes (its TUN device and the routes through it), and the questions it asks
 * about interfaces. Every call is synchronous and checks the kernel's ack.
 */
#ifndef WB_RTNL_H
#define WB_RTNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct wb_rtnl;

/* 0 or -errno. */
int wb_rtnl_open(struct wb_rtnl **out);
void wb_rtnl_close(struct wb_rtnl *r);

/*
 * The kernel's extended-ack message for the last failed request ("" if it
 * gave none), for error messages.
 */
const char *wb_rtnl_error(const struct wb_rtnl *r);

/* Interface index and MTU of a named interface: -ENODEV if it does not exist. */
int wb_rtnl_link_get(struct wb_rtnl *r, const char *ifname, int *ifindex, uint32_t *mtu);

/* Sets the MTU (0: leave it) and brings the link up or down. */
int wb_rtnl_link_set(struct wb_rtnl *r, int ifindex, uint32_t mtu, bool up);
/* The link's transmit queue length, in packets (what `ip link set DEV txqueuelen N` sets). */
int wb_rtnl_link_set_txqlen(struct wb_rtnl *r, int ifindex, uint32_t txqlen);

/* Adds an address with its prefix length (an address already there is fine). */
int wb_rtnl_addr_add(struct wb_rtnl *r, int ifindex, const struct wb_prefix *p);

/*
 * Adds or removes a route to dst through the interface (no gateway: the TUN
 * device is point to point), in a routing table (0: main) with a metric.
 * Adding a route that exists is fine; removing one that is gone is fine.
 */
int wb_rtnl_route_add(struct wb_rtnl *r, int ifindex, const struct wb_prefix *dst, uint32_t table, uint32_t metric);
int wb_rtnl_route_del(struct wb_rtnl *r, int ifindex, const struct wb_prefix *dst, uint32_t table, uint32_t metric);

/*
 * Adds or removes the policy rule "fwmark MARK lookup TABLE priority PRIO"
 * in family (AF_INET, AF_INET6). Adding one that exists is fine; removing
 * one that is gone is fine.
 */
int wb_rtnl_rule_add(struct wb_rtnl *r, int family, uint32_t fwmark, uint32_t table, uint32_t priority);
int wb_rtnl_rule_del(struct wb_rtnl *r, int family, uint32_t fwmark, uint32_t table, uint32_t priority);

/*
 * The reply side of one request, on buffers instead of the socket: what each
 * call above runs on every buffer it reads until the request's ack, on its
 * own so that it can be fed without a socket (tests/fuzz/fuzz_rtnl.c). Any
 * process with CAP_NET_ADMIN in the namespace may send to our port, so not
 * everything that arrives is the kernel's.
 */
#define WB_RTNL_ERROR_MAX 256

/* What a link request's RTM_NEWLINK answer says. */
struct wb_rtnl_link_info {
	int ifindex;
	uint32_t mtu;
	bool has_mtu;
};

struct wb_rtnl_reply {
	uint32_t seq, portid;            /* the request's; a message from another port fails the exchange */
	struct wb_rtnl_link_info *link;  /* a link request's answer goes here; NULL: no answer but the ack */
	bool acked;                      /* the ack arrived: nothing after it is read */
	int error;                       /* then the ack's: 0 or -errno */
	char message[WB_RTNL_ERROR_MAX]; /* and its extended-ack message on failure, "" if none */
};

/* One buffer read for the request: 0, or -errno when it fails the exchange. */
int wb_rtnl_reply_take(struct wb_rtnl_reply *rep, const void *buf, size_t len);

/*
 * The bytes at the start of a read that are whole netlink messages, each
 * within what is left: the only part of it to hand to libmnl. libmnl
 * compares a message's length with what is left as an int, so it takes a
 * length of 2^31 or more for one that fits and steps by it: ahead into
 * unmapped memory, or (within 3 of 2^32, aligned to 0) not at all, for ever.
 */
size_t wb_rtnl_whole_messages(const void *buf, size_t len);

#endif
