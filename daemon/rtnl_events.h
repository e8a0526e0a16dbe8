/* SPDX-License-Identifier: MIT */
/*
 * The kernel's link and address events (rtnetlink multicast groups), so the
 * daemon follows its uplinks' interfaces as they go down, come back, appear
 * or change address, without waiting for a probe to time out. When the
 * socket overflows (ENOBUFS: events were lost) the links are dumped again,
 * and their messages are taken as events.
 */
#ifndef WB_RTNL_EVENTS_H
#define WB_RTNL_EVENTS_H

#include <net/if.h>
#include <stdbool.h>

#include "loop.h"

struct rtnl_link_event {
	int ifindex;
	char ifname[IFNAMSIZ];
	bool removed; /* the interface is gone */
	bool up;      /* administratively up and with a carrier (IFF_UP and IFF_RUNNING) */
};

struct rtnl_addr_event {
	int ifindex;
	bool removed; /* the address went away, else it was added */
};

struct rtnl_events_ops {
	void (*link)(void *ctx, const struct rtnl_link_event *ev);
	void (*addr)(void *ctx, const struct rtnl_addr_event *ev);
};

struct rtnl_events {
	struct loop_fd lfd;
	struct mnl_socket *nl;
	const struct rtnl_events_ops *ops;
	void *ctx;
	uint32_t dump_seq;
	unsigned long overflows; /* times events were lost and the links dumped again */
	char *buf;
};

/* Subscribes to link and IPv4/IPv6 address events; 0 or -errno. Add e->lfd to the loop with EPOLLIN. */
int rtnl_events_open(struct rtnl_events *e, const struct rtnl_events_ops *ops, void *ctx);
void rtnl_events_close(struct rtnl_events *e);
/* Reads what is pending and calls the ops (the loop callback of e->lfd). */
void rtnl_events_read(struct loop_fd *f, uint32_t events);
/*
 * One buffer as read from the socket: every link and address message in it
 * goes to the ops. What rtnl_events_read runs on each read, on its own so
 * that it can be fed without a socket (tests/fuzz/fuzz_rtnl.c): any process
 * with CAP_NET_ADMIN in the namespace may send to our port, so not
 * everything that arrives is the kernel's.
 */
void rtnl_events_take(struct rtnl_events *e, const void *buf, size_t len);
/* Asks for every link again (the replies arrive as link events). 0 or -errno. */
int rtnl_events_dump_links(struct rtnl_events *e);

#endif
