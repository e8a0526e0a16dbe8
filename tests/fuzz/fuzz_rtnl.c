// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the daemon's rtnetlink parsers. The input is a stream
 * of netlink messages as they could come off the daemon's two rtnetlink
 * sockets, in reads: link and address events (and link dumps) for
 * rtnl_events_take (daemon/rtnl_events.c), and the replies to one request,
 * up to its ack, for wb_rtnl_reply_take (daemon/rtnl.c). Any process with
 * CAP_NET_ADMIN in the namespace can send to either socket, so the parsers
 * must hold against anything.
 *
 * The input: one byte of mode (bit 0: the request is a link request, whose
 * RTM_NEWLINK answer is parsed; else its only reply is its ack), then the
 * reads, each a 16-bit little-endian length and that many bytes (the last
 * takes what is left). Each read is a heap copy of exactly its length, so
 * that a string read past it is an ASan report; every read goes to the
 * event parser, and to the reply parser until the exchange ends (acked, or
 * refused) as the daemon's loop does.
 *
 * libmnl is not built with the sanitizers, so the harness checks what the
 * parsers hand back against its own walk of the read (the messages as
 * netlink frames them; the walk does not know libmnl's rules of when to
 * stop, so events must be an ordered subsequence of what it finds):
 *
 *   - an event comes from a link or address message in the read, in order:
 *     its index, its removed and up flags are that message's, a link's name
 *     is 1 to IFNAMSIZ-1 bytes, NUL-terminated, and lies inside that
 *     message's own length (not in the padding after it, nor past the read);
 *   - the reply parser returns 0 or a -errno; once acked, its error is 0 or
 *     a -errno (what the callers hand to strerror), its message is empty on
 *     success, and otherwise lies inside an NLMSG_ERROR of the request's
 *     sequence number; a link answer's index and MTU come from an
 *     RTM_NEWLINK of that sequence number, from inside its length.
 *
 * The seeds (gen_corpus.c): a link answer and its ack, an error with an
 * extended ack (echoed request or capped), events of every kind, a dump
 * ending in NLMSG_DONE, an interrupted dump, a reply from another port,
 * truncated attributes and messages.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net/if.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "rtnl.h"
#include "rtnl_events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The request's sequence number and our port, as the seeds have them. */
#define FR_SEQ 1
#define FR_PORTID 4242
/* The largest errno the kernel has (MAX_ERRNO): anything beyond is no error code. */
#define FR_MAX_ERRNO 4095

#define CHECK(c)                                                                             \
	do {                                                                                 \
		if (!(c)) {                                                                  \
			fprintf(stderr, "fuzz_rtnl: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                             \
		}                                                                            \
	} while (0)

/* One netlink message of a read, as the harness's own walk finds it. */
struct fr_msg {
	const uint8_t *p; /* its header */
	uint32_t len;     /* nlmsg_len: the bytes that are the message's own */
	uint16_t type;
	uint32_t seq;
};

struct fr_read {
	const uint8_t *buf;
	size_t len;
	struct fr_msg *msgs;
	size_t n, next; /* next: the first message an event may still come from */
};

/* Frames a read as netlink does: whole headers, lengths within what is left, steps aligned. */
static void walk(struct fr_read *r)
{
	size_t off = 0;

	r->n = r->next = 0;
	r->msgs = malloc((r->len / NLMSG_HDRLEN + 1) * sizeof(*r->msgs));
	CHECK(r->msgs);
	while (r->len - off >= NLMSG_HDRLEN) {
		struct nlmsghdr h;

		memcpy(&h, r->buf + off, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > r->len - off)
			break;
		r->msgs[r->n++] = (struct fr_msg){ r->buf + off, h.nlmsg_len, h.nlmsg_type, h.nlmsg_seq };
		off += NLMSG_ALIGN(h.nlmsg_len);
		if (off > r->len)
			break;
	}
}

/* Whether len bytes at s lie inside a message's own bytes past its first `from`. */
static bool inside(const struct fr_msg *m, size_t from, const void *s, size_t len)
{
	if (m->len < from || m->len - from < len)
		return false;
	for (size_t i = from; i + len <= m->len; i++)
		if (!memcmp(m->p + i, s, len))
			return true;
	return false;
}

/* ---- events ----------------------------------------------------------------------------- */

static bool link_matches(const struct fr_msg *m, const struct rtnl_link_event *ev)
{
	struct ifinfomsg ifi;
	bool removed = m->type == RTM_DELLINK;

	if ((m->type != RTM_NEWLINK && !removed) || m->len < NLMSG_HDRLEN + sizeof(ifi))
		return false;
	memcpy(&ifi, m->p + NLMSG_HDRLEN, sizeof(ifi));
	return ev->ifindex == ifi.ifi_index && ev->removed == removed &&
	       ev->up == (!removed && (ifi.ifi_flags & IFF_UP) && (ifi.ifi_flags & IFF_RUNNING)) &&
	       inside(m, NLMSG_HDRLEN + sizeof(ifi), ev->ifname, strlen(ev->ifname));
}

static bool addr_matches(const struct fr_msg *m, const struct rtnl_addr_event *ev)
{
	struct ifaddrmsg ifa;
	bool removed = m->type == RTM_DELADDR;

	if ((m->type != RTM_NEWADDR && !removed) || m->len < NLMSG_HDRLEN + sizeof(ifa))
		return false;
	memcpy(&ifa, m->p + NLMSG_HDRLEN, sizeof(ifa));
	return ev->ifindex == (int)ifa.ifa_index && ev->removed == removed;
}

static void on_link(void *ctx, const struct rtnl_link_event *ev)
{
	struct fr_read *r = ctx;
	size_t n = strnlen(ev->ifname, IFNAMSIZ);

	CHECK(n > 0 && n < IFNAMSIZ);
	CHECK(!(ev->removed && ev->up));
	while (r->next < r->n && !link_matches(&r->msgs[r->next], ev))
		r->next++;
	CHECK(r->next < r->n); /* no message of the read, after the last event's, says this */
	r->next++;
}

static void on_addr(void *ctx, const struct rtnl_addr_event *ev)
{
	struct fr_read *r = ctx;

	while (r->next < r->n && !addr_matches(&r->msgs[r->next], ev))
		r->next++;
	CHECK(r->next < r->n);
	r->next++;
}

static const struct rtnl_events_ops event_ops = { .link = on_link, .addr = on_addr };

static void take_events(struct fr_read *r)
{
	struct rtnl_events e;

	memset(&e, 0, sizeof(e));
	e.lfd.fd = -1;
	e.ops = &event_ops;
	e.ctx = r;
	rtnl_events_take(&e, r->buf, r->len);
}

/* ---- the reply to one request ----------------------------------------------------------- */

static bool is_errno(int e)
{
	return e < 0 && e >= -FR_MAX_ERRNO;
}

/* Whether some message of the read, of that type and our sequence number, holds len bytes at s past from. */
static bool in_ours(const struct fr_read *r, uint16_t type, size_t from, const void *s, size_t len)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->msgs[i].type == type && r->msgs[i].seq == FR_SEQ && inside(&r->msgs[i], from, s, len))
			return true;
	return false;
}

static bool link_index_in_ours(const struct fr_read *r, int ifindex)
{
	for (size_t i = 0; i < r->n; i++) {
		struct ifinfomsg ifi;

		if (r->msgs[i].type != RTM_NEWLINK || r->msgs[i].seq != FR_SEQ ||
		    r->msgs[i].len < NLMSG_HDRLEN + sizeof(ifi))
			continue;
		memcpy(&ifi, r->msgs[i].p + NLMSG_HDRLEN, sizeof(ifi));
		if (ifi.ifi_index == ifindex)
			return true;
	}
	return false;
}

static void check_link(const struct fr_read *r, const struct wb_rtnl_link_info *was,
		       const struct wb_rtnl_link_info *is)
{
	if (is->ifindex != was->ifindex)
		CHECK(link_index_in_ours(r, is->ifindex));
	CHECK(was->has_mtu <= is->has_mtu);
	if (is->has_mtu && (!was->has_mtu || is->mtu != was->mtu))
		CHECK(in_ours(r, RTM_NEWLINK, NLMSG_HDRLEN + sizeof(struct ifinfomsg), &is->mtu, sizeof(is->mtu)));
}

/* Feeds one read to the exchange; returns whether it is over (acked or refused). */
static bool take_reply(struct fr_read *r, struct wb_rtnl_reply *rep)
{
	struct wb_rtnl_link_info was = rep->link ? *rep->link : (struct wb_rtnl_link_info){ 0 };
	int rc = wb_rtnl_reply_take(rep, r->buf, r->len);
	size_t mlen = strnlen(rep->message, sizeof(rep->message));

	CHECK(rc == 0 || is_errno(rc));
	CHECK(mlen < sizeof(rep->message));
	if (rep->link)
		check_link(r, &was, rep->link);
	if (!rep->acked) {
		CHECK(mlen == 0);
		return rc != 0;
	}
	CHECK(rep->error == 0 || is_errno(rep->error));
	if (rep->error == 0)
		CHECK(mlen == 0);
	else if (mlen)
		CHECK(in_ours(r, NLMSG_ERROR, NLMSG_HDRLEN + sizeof(struct nlmsgerr), rep->message, mlen));
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wb_rtnl_link_info link = { 0 };
	struct wb_rtnl_reply rep = { .seq = FR_SEQ, .portid = FR_PORTID };
	bool over = false;
	size_t pos = 1;

	if (!size)
		return 0;
	if (data[0] & 1)
		rep.link = &link;
	while (pos < size) {
		size_t len = size - pos >= 2 ? (size_t)data[pos] | (size_t)data[pos + 1] << 8 : 0;
		struct fr_read r;
		uint8_t *copy;

		pos += size - pos >= 2 ? 2 : size - pos;
		if (len > size - pos)
			len = size - pos;
		copy = malloc(len ? len : 1);
		CHECK(copy);
		memcpy(copy, data + pos, len);
		pos += len;
		r = (struct fr_read){ .buf = copy, .len = len };
		walk(&r);
		take_events(&r);
		if (!over)
			over = take_reply(&r, &rep);
		free(r.msgs);
		free(copy);
	}
	return 0;
}
