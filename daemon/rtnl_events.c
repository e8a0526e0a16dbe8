// SPDX-License-Identifier: MIT
#include "rtnl_events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "log.h"
#include "rtnl.h"

int rtnl_events_open(struct rtnl_events *e, const struct rtnl_events_ops *ops, void *ctx)
{
	unsigned groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
	int rc;

	memset(e, 0, sizeof(*e));
	e->lfd = (struct loop_fd){ .fd = -1, .cb = rtnl_events_read };
	e->ops = ops;
	e->ctx = ctx;
	e->buf = malloc(MNL_SOCKET_BUFFER_SIZE);
	if (!e->buf)
		return -ENOMEM;
	e->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!e->nl || mnl_socket_bind(e->nl, groups, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		rtnl_events_close(e);
		return rc;
	}
	e->lfd.fd = mnl_socket_get_fd(e->nl);
	return 0;
}

void rtnl_events_close(struct rtnl_events *e)
{
	if (e->nl)
		mnl_socket_close(e->nl);
	e->nl = NULL;
	e->lfd.fd = -1;
	free(e->buf);
	e->buf = NULL;
}

int rtnl_events_dump_links(struct rtnl_events *e)
{
	char buf[64];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = e->dump_seq = (uint32_t)time(NULL);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	return mnl_socket_sendto(e->nl, nlh, nlh->nlmsg_len) < 0 ? -errno : 0;
}

static int link_attr_cb(const struct nlattr *a, void *data)
{
	struct rtnl_link_event *ev = data;

	if (mnl_attr_get_type(a) == IFLA_IFNAME && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		snprintf(ev->ifname, sizeof(ev->ifname), "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static void take_link(struct rtnl_events *e, const struct nlmsghdr *nlh)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct rtnl_link_event ev = { 0 };

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi))
		return;
	ev.ifindex = ifi->ifi_index;
	ev.removed = nlh->nlmsg_type == RTM_DELLINK;
	ev.up = !ev.removed && (ifi->ifi_flags & IFF_UP) && (ifi->ifi_flags & IFF_RUNNING);
	/*
	 * Only the attributes wholly inside the message's own length:
	 * mnl_attr_parse walks to it aligned up, into up to 3 bytes that are not
	 * the message's (past the read, for the last message of it).
	 */
	mnl_attr_parse_payload((const char *)ifi + MNL_ALIGN(sizeof(*ifi)),
			       mnl_nlmsg_get_payload_len(nlh) - MNL_ALIGN(sizeof(*ifi)), link_attr_cb, &ev);
	if (ev.ifname[0])
		e->ops->link(e->ctx, &ev);
}

static void take_addr(struct rtnl_events *e, const struct nlmsghdr *nlh)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct rtnl_addr_event ev;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifa))
		return;
	ev.ifindex = (int)ifa->ifa_index;
	ev.removed = nlh->nlmsg_type == RTM_DELADDR;
	e->ops->addr(e->ctx, &ev);
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rtnl_events *e = data;

	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		take_link(e, nlh);
		break;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		take_addr(e, nlh);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

void rtnl_events_take(struct rtnl_events *e, const void *buf, size_t len)
{
	/* Events have sequence 0, the dump its own: both are welcome here. */
	mnl_cb_run(buf, wb_rtnl_whole_messages(buf, len), 0, 0, event_cb, e);
}

void rtnl_events_read(struct loop_fd *f, uint32_t events)
{
	struct rtnl_events *e = container_of(f, struct rtnl_events, lfd);

	(void)events;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(e->nl, e->buf, MNL_SOCKET_BUFFER_SIZE);

		if (n < 0 && errno == ENOBUFS) {
			/* Events were lost: what the links are now comes from a dump. */
			e->overflows++;
			log_line(LOG_LVL_WARNING, NULL, NULL, "rtnetlink events lost: reading every link again");
			if (rtnl_events_dump_links(e))
				log_line(LOG_LVL_ERR, NULL, NULL, "rtnetlink: cannot dump the links: %s", strerror(errno));
			continue;
		}
		if (n <= 0)
			return; /* EAGAIN: all read */
		rtnl_events_take(e, e->buf, (size_t)n);
	}
}
