// SPDX-License-Identifier: MIT
/*
 * rtnetlink through libmnl: see rtnl.h. One NETLINK_ROUTE socket; every
 * request asks for an ack and the reply is read until that ack, so each call
 * is one synchronous exchange whose outcome is the kernel's own error code,
 * with its extended-ack message kept for wb_rtnl_error().
 */
#include "rtnl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

/*
 * Room for the largest request built here: a header (16), a route message
 * (12) and four attributes of at most 20 bytes each, or a link message with
 * an interface name of IFNAMSIZ. The attribute helpers do not check bounds,
 * so the callers keep their requests under this.
 */
#define RTNL_REQ_SIZE 256

/* The largest errno the kernel has (its MAX_ERRNO). */
#define RTNL_MAX_ERRNO 4095

struct wb_rtnl {
	struct mnl_socket *nl;
	uint32_t portid;
	uint32_t seq;
	char error[WB_RTNL_ERROR_MAX]; /* extack message of the last failed request */
	size_t buflen;
	char buf[]; /* receive buffer, MNL_SOCKET_BUFFER_SIZE bytes */
};

int wb_rtnl_open(struct wb_rtnl **out)
{
	size_t buflen = MNL_SOCKET_BUFFER_SIZE;
	struct wb_rtnl *r;
	int one = 1;
	int err;

	r = calloc(1, sizeof(*r) + buflen);
	if (!r)
		return -ENOMEM;
	r->buflen = buflen;
	r->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!r->nl) {
		err = -errno;
		goto free_r;
	}
	/*
	 * Extended acks carry the reason for a refusal ("mtu less than device
	 * minimum"). Kernels before 4.12 lack them: a bare errno still works.
	 */
	(void)mnl_socket_setsockopt(r->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	if (mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto close_nl;
	}
	r->portid = mnl_socket_get_portid(r->nl);
	*out = r;
	return 0;

close_nl:
	mnl_socket_close(r->nl);
free_r:
	free(r);
	return err;
}

void wb_rtnl_close(struct wb_rtnl *r)
{
	if (!r)
		return;
	mnl_socket_close(r->nl);
	free(r);
}

const char *wb_rtnl_error(const struct wb_rtnl *r)
{
	return r->error;
}

/* ---- one exchange: request, replies, ack ------------------------------- */

/*
 * The attributes after a message's fixed header of hdr bytes, only those
 * wholly inside its own length: mnl_attr_parse walks to that length aligned
 * up, into up to 3 bytes that are not the message's (past the read, for the
 * last message of it).
 */
static void attrs_parse(const struct nlmsghdr *nlh, size_t hdr, mnl_attr_cb_t cb, void *data)
{
	size_t off = MNL_ALIGN(hdr), len = mnl_nlmsg_get_payload_len(nlh);

	if (off <= len)
		mnl_attr_parse_payload((const char *)mnl_nlmsg_get_payload(nlh) + off, len - off, cb, data);
}

/* A link request's answer: its index and MTU. */
static int link_attr_cb(const struct nlattr *attr, void *data)
{
	struct wb_rtnl_link_info *lr = data;

	if (mnl_attr_get_type(attr) == IFLA_MTU && mnl_attr_validate(attr, MNL_TYPE_U32) == 0) {
		lr->mtu = mnl_attr_get_u32(attr);
		lr->has_mtu = true;
	}
	return MNL_CB_OK;
}

static void link_take(const struct nlmsghdr *nlh, struct wb_rtnl_link_info *lr)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type != RTM_NEWLINK || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi))
		return;
	lr->ifindex = ifi->ifi_index;
	attrs_parse(nlh, sizeof(*ifi), link_attr_cb, lr);
}

static int rtnl_extack_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **msg = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		*msg = attr;
	return MNL_CB_OK;
}

/*
 * The attributes of an extended ack follow the nlmsgerr and, unless the
 * kernel capped it, the echo of our whole request (nlmsgerr.msg is its
 * header, the rest of it comes after).
 */
static void rtnl_keep_extack(struct wb_rtnl_reply *rep, const struct nlmsghdr *nlh, const struct nlmsgerr *err)
{
	const struct nlattr *msg = NULL;
	size_t off = sizeof(*err);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (err->msg.nlmsg_len < sizeof(err->msg))
			return;
		off += err->msg.nlmsg_len - sizeof(err->msg);
	}
	attrs_parse(nlh, off, rtnl_extack_attr_cb, &msg);
	if (msg)
		snprintf(rep->message, sizeof(rep->message), "%s", mnl_attr_get_str(msg));
}

/*
 * Messages of another sequence number are the late replies of a request
 * that was abandoned (its reader failed): skipped, not fatal.
 */
static int rtnl_data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct wb_rtnl_reply *rep = data;

	if (nlh->nlmsg_seq == rep->seq && rep->link)
		link_take(nlh, rep->link);
	return MNL_CB_OK;
}

static int rtnl_ack_cb(const struct nlmsghdr *nlh, void *data)
{
	struct wb_rtnl_reply *rep = data;
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_seq != rep->seq)
		return MNL_CB_OK;
	rep->acked = true;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err)) {
		rep->error = -EBADMSG;
		return MNL_CB_STOP;
	}
	/* Kernel subsystems are not agreed on the sign (libmnl copes the same way). */
	rep->error = err->error > 0 ? -err->error : err->error;
	/* No errno at all: the callers' strerror(-error) would overflow at INT_MIN. */
	if (rep->error < -RTNL_MAX_ERRNO)
		rep->error = -EBADMSG;
	if (rep->error)
		rtnl_keep_extack(rep, nlh, err);
	return MNL_CB_STOP;
}

size_t wb_rtnl_whole_messages(const void *buf, size_t len)
{
	size_t off = 0;

	while (len - off >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)((const char *)buf + off);

		if (nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len - off)
			break;
		off += MNL_ALIGN(nlh->nlmsg_len);
		if (off >= len)
			return len;
	}
	return off;
}

int wb_rtnl_reply_take(struct wb_rtnl_reply *rep, const void *buf, size_t len)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = rtnl_ack_cb };

	/* seq 0: rtnl_data_cb and rtnl_ack_cb match it themselves. */
	if (mnl_cb_run2(buf, wb_rtnl_whole_messages(buf, len), 0, rep->portid, rtnl_data_cb, rep, ctl,
			NLMSG_MIN_TYPE) < 0)
		return errno ? -errno : -EPROTO;
	return 0;
}

static ssize_t rtnl_recv(struct wb_rtnl *r)
{
	ssize_t n;

	do
		n = mnl_socket_recvfrom(r->nl, r->buf, r->buflen);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* Reads replies until the ack of rep->seq; rep->error is then the outcome. */
static int rtnl_wait_ack(struct wb_rtnl *r, struct wb_rtnl_reply *rep)
{
	ssize_t n;
	int rc;

	while (!rep->acked) {
		n = rtnl_recv(r);
		if (n < 0)
			return (int)n;
		rc = wb_rtnl_reply_take(rep, r->buf, (size_t)n);
		if (rc)
			return rc;
	}
	return rep->error;
}

/*
 * Sends one request with NLM_F_ACK and waits for its ack; a link request's
 * answer goes to link (NULL for a request whose only reply is its ack).
 */
static int rtnl_talk(struct wb_rtnl *r, struct nlmsghdr *nlh, struct wb_rtnl_link_info *link)
{
	struct wb_rtnl_reply rep = { .portid = r->portid, .link = link };
	int rc;

	r->error[0] = '\0';
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++r->seq;
	if (nlh->nlmsg_seq == 0) /* 0 would match what the kernel sends unasked */
		nlh->nlmsg_seq = ++r->seq;
	rep.seq = nlh->nlmsg_seq;
	if (mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	rc = rtnl_wait_ack(r, &rep);
	if (rc)
		memcpy(r->error, rep.message, sizeof(r->error));
	return rc;
}

static struct nlmsghdr *rtnl_msg(char *buf, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(buf, 0, RTNL_REQ_SIZE);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	return nlh;
}

/* ---- links ------------------------------------------------------------- */

int wb_rtnl_link_get(struct wb_rtnl *r, const char *ifname, int *ifindex, uint32_t *mtu)
{
	char buf[RTNL_REQ_SIZE];
	struct wb_rtnl_link_info lr = { 0 };
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	size_t len = strnlen(ifname, IFNAMSIZ);
	int err;

	/* No interface can have such a name, and it must fit the request. */
	if (len == 0 || len >= IFNAMSIZ) {
		r->error[0] = '\0';
		return -EINVAL;
	}
	nlh = rtnl_msg(buf, RTM_GETLINK, 0);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, ifname);
	/* Only the MTU is wanted: spare the kernel (and our buffer) the counters. */
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	err = rtnl_talk(r, nlh, &lr);
	if (err)
		return err;
	if (lr.ifindex <= 0 || !lr.has_mtu)
		return -EBADMSG;
	*ifindex = lr.ifindex;
	*mtu = lr.mtu;
	return 0;
}

/* An RTM_NEWLINK request for ifindex, changing nothing yet. */
static struct nlmsghdr *link_request(char *buf, int ifindex)
{
	struct nlmsghdr *nlh = rtnl_msg(buf, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return nlh;
}

int wb_rtnl_link_set(struct wb_rtnl *r, int ifindex, uint32_t mtu, bool up)
{
	char buf[RTNL_REQ_SIZE];
	struct nlmsghdr *nlh = link_request(buf, ifindex);
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	ifi->ifi_flags = up ? IFF_UP : 0;
	ifi->ifi_change = IFF_UP; /* the only flag we mean to touch */
	if (mtu)
		mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	return rtnl_talk(r, nlh, NULL);
}

int wb_rtnl_link_set_txqlen(struct wb_rtnl *r, int ifindex, uint32_t txqlen)
{
	char buf[RTNL_REQ_SIZE];
	struct nlmsghdr *nlh = link_request(buf, ifindex);

	mnl_attr_put_u32(nlh, IFLA_TXQLEN, txqlen);
	return rtnl_talk(r, nlh, NULL);
}

/* ---- addresses and routes ---------------------------------------------- */

/* Length of the prefix's address in bytes, or -errno if the prefix is not one. */
static int prefix_addr_len(const struct wb_prefix *p)
{
	int alen;

	switch (p->family) {
	case AF_INET:
		alen = 4;
		break;
	case AF_INET6:
		alen = 16;
		break;
	default:
		return -EAFNOSUPPORT;
	}
	return p->len <= alen * 8 ? alen : -EINVAL;
}

/* The network address of a prefix: its host bits cleared. */
static void prefix_network(const struct wb_prefix *p, int alen, uint8_t *out)
{
	unsigned int i, bits;

	for (i = 0; i < (unsigned int)alen; i++) {
		bits = p->len > 8 * i ? p->len - 8 * i : 0;
		out[i] = p->addr[i] & (bits >= 8 ? 0xff : (uint8_t)~(0xffu >> bits));
	}
}

int wb_rtnl_addr_add(struct wb_rtnl *r, int ifindex, const struct wb_prefix *p)
{
	char buf[RTNL_REQ_SIZE];
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	int alen = prefix_addr_len(p);

	r->error[0] = '\0';
	if (alen < 0)
		return alen;
	/* REPLACE: an address that is already there is refreshed, not refused. */
	nlh = rtnl_msg(buf, RTM_NEWADDR, NLM_F_CREATE | NLM_F_REPLACE);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = (uint8_t)p->family;
	ifa->ifa_prefixlen = p->len;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (uint32_t)ifindex;
	if (p->family == AF_INET) {
		mnl_attr_put(nlh, IFA_LOCAL, (size_t)alen, p->addr);
		mnl_attr_put(nlh, IFA_ADDRESS, (size_t)alen, p->addr);
	} else {
		mnl_attr_put(nlh, IFA_ADDRESS, (size_t)alen, p->addr);
		/*
		 * The only other end of a TUN device is the tunnel: no one to
		 * detect a duplicate, and a tentative address would hold traffic.
		 */
		ifa->ifa_flags = IFA_F_NODAD;
		mnl_attr_put_u32(nlh, IFA_FLAGS, IFA_F_NODAD);
	}
	return rtnl_talk(r, nlh, NULL);
}

/* A route request; the add and the delete must match field for field. */
static int route_request(struct wb_rtnl *r, uint16_t type, uint16_t flags, int ifindex,
			 const struct wb_prefix *dst, uint32_t table, uint32_t metric)
{
	char buf[RTNL_REQ_SIZE];
	uint8_t net[16];
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int alen = prefix_addr_len(dst);

	r->error[0] = '\0';
	if (alen < 0)
		return alen;
	if (table == 0)
		table = RT_TABLE_MAIN;
	prefix_network(dst, alen, net);
	nlh = rtnl_msg(buf, type, flags);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (uint8_t)dst->family;
	rtm->rtm_dst_len = dst->len;
	/* rtm_table is 8 bits; larger tables go in RTA_TABLE (and override it). */
	rtm->rtm_table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_LINK; /* no gateway: the peer is on the link */
	rtm->rtm_type = RTN_UNICAST;
	if (table >= 256)
		mnl_attr_put_u32(nlh, RTA_TABLE, table);
	mnl_attr_put(nlh, RTA_DST, (size_t)alen, net);
	mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)ifindex);
	mnl_attr_put_u32(nlh, RTA_PRIORITY, metric);
	return rtnl_talk(r, nlh, NULL);
}

int wb_rtnl_route_add(struct wb_rtnl *r, int ifindex, const struct wb_prefix *dst, uint32_t table, uint32_t metric)
{
	/* REPLACE: a route that is already there is not an error. */
	return route_request(r, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE, ifindex, dst, table, metric);
}

int wb_rtnl_route_del(struct wb_rtnl *r, int ifindex, const struct wb_prefix *dst, uint32_t table, uint32_t metric)
{
	int err = route_request(r, RTM_DELROUTE, 0, ifindex, dst, table, metric);

	/* Gone already (or its table is): what we wanted. */
	if (err == -ESRCH || err == -ENOENT) {
		r->error[0] = '\0';
		return 0;
	}
	return err;
}

/* A policy rule request: "fwmark MARK lookup TABLE priority PRIO" in family. */
static int rule_request(struct wb_rtnl *r, uint16_t type, uint16_t flags, int family, uint32_t fwmark, uint32_t table,
			uint32_t priority)
{
	char buf[RTNL_REQ_SIZE];
	struct nlmsghdr *nlh;
	struct fib_rule_hdr *frh;

	r->error[0] = '\0';
	nlh = rtnl_msg(buf, type, flags);
	frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));
	frh->family = (uint8_t)family;
	frh->action = FR_ACT_TO_TBL;
	frh->table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
	mnl_attr_put_u32(nlh, FRA_TABLE, table);
	mnl_attr_put_u32(nlh, FRA_FWMARK, fwmark);
	mnl_attr_put_u32(nlh, FRA_FWMASK, 0xffffffffU);
	mnl_attr_put_u32(nlh, FRA_PRIORITY, priority);
	return rtnl_talk(r, nlh, NULL);
}

int wb_rtnl_rule_add(struct wb_rtnl *r, int family, uint32_t fwmark, uint32_t table, uint32_t priority)
{
	int err = rule_request(r, RTM_NEWRULE, NLM_F_CREATE | NLM_F_EXCL, family, fwmark, table, priority);

	/* Left by a daemon that died, or the operator's own: the same rule, which is what we want. */
	if (err == -EEXIST) {
		r->error[0] = '\0';
		return 0;
	}
	return err;
}

int wb_rtnl_rule_del(struct wb_rtnl *r, int family, uint32_t fwmark, uint32_t table, uint32_t priority)
{
	int err = rule_request(r, RTM_DELRULE, 0, family, fwmark, table, priority);

	if (err == -ENOENT || err == -ESRCH) {
		r->error[0] = '\0';
		return 0;
	}
	return err;
}
