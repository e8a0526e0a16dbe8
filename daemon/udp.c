// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const uint8_t v4_mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int udp_init(struct udp_sock *s, unsigned index, uint32_t slot)
{
	memset(s, 0, sizeof(*s));
	s->lfd.fd = -1;
	s->index = index;
	s->slot = slot;
	s->tx_bufs = malloc((size_t)UDP_BATCH * slot);
	s->rx_bufs = malloc((size_t)UDP_BATCH * slot);
	if (!s->tx_bufs || !s->rx_bufs) {
		udp_free(s);
		return -ENOMEM;
	}
	return 0;
}

void udp_free(struct udp_sock *s)
{
	udp_close(s);
	free(s->tx_bufs);
	free(s->rx_bufs);
	s->tx_bufs = s->rx_bufs = NULL;
}

void udp_close(struct udp_sock *s)
{
	if (s->lfd.fd >= 0)
		close(s->lfd.fd);
	s->lfd.fd = -1;
	s->tx_n = 0;
}

void udp_endpoint_from_sockaddr(struct wb_endpoint *e, const struct sockaddr_storage *ss)
{
	memset(e, 0, sizeof(*e));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		e->family = 4;
		e->port = ntohs(in->sin_port);
		memcpy(e->addr, &in->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		e->port = ntohs(in6->sin6_port);
		/* An IPv4 client on the dual-stack server socket is an IPv4 endpoint. */
		if (!memcmp(&in6->sin6_addr, v4_mapped_prefix, sizeof(v4_mapped_prefix))) {
			e->family = 4;
			memcpy(e->addr, (const uint8_t *)&in6->sin6_addr + 12, 4);
		} else {
			e->family = 6;
			memcpy(e->addr, &in6->sin6_addr, 16);
		}
	}
}

socklen_t udp_sockaddr_from_endpoint(struct sockaddr_storage *ss, const struct wb_endpoint *e, int family)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(e->port);
		memcpy(&in->sin_addr, e->addr, 4);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(e->port);
	if (e->family == 4) {
		memcpy(&in6->sin6_addr, v4_mapped_prefix, sizeof(v4_mapped_prefix));
		memcpy((uint8_t *)&in6->sin6_addr + 12, e->addr, 4);
	} else {
		memcpy(&in6->sin6_addr, e->addr, 16);
	}
	return sizeof(*in6);
}

/* Large buffers (FORCE passes the sysctl limits as root), and the kernel's drop count with each read. */
static void tune(int fd)
{
	int size = UDP_SOCKET_BUFFER, one = 1, probe4 = IP_PMTUDISC_PROBE, probe6 = IPV6_PMTUDISC_PROBE;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	/*
	 * Don't fragment, and never refuse a size from what ICMP said of the
	 * path: the tunnel finds each path's size itself with padded probes
	 * (docs/protocol.md, "Path MTU"), which must leave as they are.
	 */
	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &probe4, sizeof(probe4));
	setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &probe6, sizeof(probe6));
}

/* Whether the kernel cuts runs of datagrams for this socket (Linux 4.18 and later). */
static bool supports_gso(int fd)
{
	int zero = 0;

	return !setsockopt(fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero));
}

/* "doing: the error", and the socket closed. */
static int fail(int fd, char *what, size_t whatlen, const char *doing, const char *arg)
{
	int err = -errno;

	snprintf(what, whatlen, "%s%s: %s", doing, arg, strerror(errno));
	if (fd >= 0)
		close(fd);
	return err;
}

int udp_open_uplink(struct udp_sock *s, const struct wb_conf_uplink *u, int family, char *what, size_t whatlen)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	char addr[INET6_ADDRSTRLEN] = "";

	if (fd < 0)
		return fail(fd, what, whatlen, "cannot create a socket", "");
	if (u->interface[0] && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, u->interface, (socklen_t)strlen(u->interface))) {
		if (errno == ENODEV) {
			snprintf(what, whatlen, "interface %s does not exist", u->interface);
			close(fd);
			return -ENODEV;
		}
		return fail(fd, what, whatlen, "cannot bind to interface ", u->interface);
	}
	if (u->has_fwmark && setsockopt(fd, SOL_SOCKET, SO_MARK, &u->fwmark, sizeof(u->fwmark)))
		return fail(fd, what, whatlen, "cannot set the firewall mark", "");
	if (u->source.ss_family != AF_UNSPEC) {
		struct sockaddr_storage src;
		struct wb_endpoint e;
		socklen_t len;

		udp_endpoint_from_sockaddr(&e, &u->source);
		len = udp_sockaddr_from_endpoint(&src, &e, family);
		inet_ntop(e.family == 4 ? AF_INET : AF_INET6, e.addr, addr, sizeof(addr));
		if (bind(fd, (struct sockaddr *)&src, len))
			return fail(fd, what, whatlen, "cannot bind to ", addr);
	}
	tune(fd);
	s->family = family;
	s->gso = supports_gso(fd);
	s->lfd.fd = fd;
	return 0;
}

int udp_open_server(struct udp_sock *s, const struct sockaddr_storage *listen, char *what, size_t whatlen)
{
	int family = listen->ss_family == AF_INET ? AF_INET : AF_INET6;
	int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), zero = 0;
	struct sockaddr_storage addr = *listen;
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);

	if (fd < 0)
		return fail(fd, what, whatlen, "cannot create a socket", "");
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	addr.ss_family = (sa_family_t)family;
	if (bind(fd, (struct sockaddr *)&addr, len))
		return fail(fd, what, whatlen, "cannot bind the listening socket", "");
	tune(fd);
	s->family = family;
	s->gso = supports_gso(fd);
	s->lfd.fd = fd;
	return 0;
}

static uint8_t *next_slot(const struct udp_sock *s)
{
	return s->tx_bufs + (size_t)s->tx_n * s->slot;
}

static bool fits(const struct udp_sock *s, size_t len)
{
	return s->lfd.fd >= 0 && len <= s->slot && len <= WB_MAX_DATAGRAM;
}

uint8_t *udp_tx_slot(struct udp_sock *s, size_t len)
{
	return fits(s, len) ? next_slot(s) : NULL;
}

void udp_queue(struct udp_sock *s, const struct wb_endpoint *to, const uint8_t *data, size_t len, uint8_t dscp)
{
	uint8_t *slot = next_slot(s);

	if (!fits(s, len)) {
		s->tx_dropped++;
		return;
	}
	if (data != slot)
		memcpy(slot, data, len);
	s->tx_len[s->tx_n] = (uint32_t)len;
	s->tx_dscp[s->tx_n] = dscp;
	udp_sockaddr_from_endpoint(&s->tx_to[s->tx_n], to, s->family);
	if (++s->tx_n == UDP_BATCH)
		udp_flush(s);
}

/*
 * A batch as messages: each run of datagrams to one address, all of one
 * size but the last (which may be shorter), is one message the kernel cuts
 * (UDP_SEGMENT): one pass through its UDP and IP layers for up to
 * UDP_GSO_SEGMENTS datagrams instead of one each.
 */
struct tx_batch {
	struct mmsghdr msgs[UDP_BATCH];
	struct iovec iov[UDP_BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t)) + CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control[UDP_BATCH];
	int first[UDP_BATCH], count[UDP_BATCH]; /* the datagrams of each message */
	int n;
};

static bool joins_run(const struct udp_sock *s, int first, int i, socklen_t alen)
{
	uint32_t bytes = s->tx_len[first] * (uint32_t)(i - first) + s->tx_len[i];

	return i - first < UDP_GSO_SEGMENTS && bytes <= UDP_GSO_BYTES && s->tx_len[i] <= s->tx_len[first] &&
	       s->tx_len[i - 1] == s->tx_len[first] && s->tx_dscp[i] == s->tx_dscp[first] &&
	       !memcmp(&s->tx_to[i], &s->tx_to[first], alen);
}

/*
 * The outer header's DSCP for one message: IP_TOS for IPv4 and for an IPv4
 * peer of an IPv6 socket (a mapped address goes through IPv4, which reads
 * only IP_TOS), IPV6_TCLASS for IPv6. ECN's two bits stay the kernel's.
 * Returns the bytes it took.
 */
static size_t put_dscp(struct cmsghdr *c, const struct sockaddr_storage *to, uint8_t dscp)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)to;
	bool v4 = to->ss_family == AF_INET || IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr);
	int tos = dscp << 2;

	c->cmsg_level = v4 ? IPPROTO_IP : IPPROTO_IPV6;
	c->cmsg_type = v4 ? IP_TOS : IPV6_TCLASS;
	c->cmsg_len = CMSG_LEN(sizeof(tos));
	memcpy(CMSG_DATA(c), &tos, sizeof(tos));
	return CMSG_SPACE(sizeof(tos));
}

/* The size of each datagram of a run, for the kernel to cut it (UDP_SEGMENT). */
static size_t put_segment_size(struct cmsghdr *c, uint16_t size)
{
	c->cmsg_level = SOL_UDP;
	c->cmsg_type = UDP_SEGMENT;
	c->cmsg_len = CMSG_LEN(sizeof(size));
	memcpy(CMSG_DATA(c), &size, sizeof(size));
	return CMSG_SPACE(sizeof(size));
}

static void build_batch(const struct udp_sock *s, struct tx_batch *b, socklen_t alen)
{
	b->n = 0;
	for (int i = 0; i < s->tx_n; i++) {
		b->iov[i] = (struct iovec){ s->tx_bufs + (size_t)i * s->slot, s->tx_len[i] };
		if (b->n && s->gso && joins_run(s, b->first[b->n - 1], i, alen)) {
			b->count[b->n - 1]++;
			b->msgs[b->n - 1].msg_hdr.msg_iovlen++;
			continue;
		}
		b->first[b->n] = i;
		b->count[b->n] = 1;
		b->msgs[b->n++] = (struct mmsghdr){ .msg_hdr = { .msg_name = (void *)&s->tx_to[i], .msg_namelen = alen,
								 .msg_iov = &b->iov[i], .msg_iovlen = 1 } };
	}
	for (int m = 0; m < b->n; m++) {
		struct msghdr *h = &b->msgs[m].msg_hdr;
		uint8_t dscp = s->tx_dscp[b->first[m]];
		size_t used = 0;

		if (b->count[m] == 1 && !dscp)
			continue;
		memset(b->control[m].buf, 0, sizeof(b->control[m].buf));
		/* The DSCP first: a run the kernel refuses to cut keeps it alone (send_run_singly). */
		if (dscp)
			used += put_dscp((struct cmsghdr *)(b->control[m].buf + used), &s->tx_to[b->first[m]], dscp);
		if (b->count[m] > 1)
			used += put_segment_size((struct cmsghdr *)(b->control[m].buf + used),
						 (uint16_t)s->tx_len[b->first[m]]);
		h->msg_control = b->control[m].buf;
		h->msg_controllen = used;
	}
}

/* A datagram (or a message of count) lost, as on a full or failed link: the batch goes on. */
static void count_failure(struct udp_sock *s, int count)
{
	s->last_tx_errno = errno;
	if (errno == EAGAIN || errno == ENOBUFS)
		s->tx_dropped += (uint64_t)count;
	else
		s->tx_errors += (uint64_t)count;
}

/*
 * A run the kernel refused to cut goes again datagram by datagram: a path
 * that cannot take it (IPsec gives EIO) gets no more runs from this socket.
 */
static void send_run_singly(struct udp_sock *s, struct tx_batch *b, int m)
{
	struct msghdr h = b->msgs[m].msg_hdr;

	if (errno == EIO)
		s->gso = false;
	/* The DSCP stays (it comes first), the segment size goes. */
	h.msg_controllen = s->tx_dscp[b->first[m]] ? CMSG_SPACE(sizeof(int)) : 0;
	if (!h.msg_controllen)
		h.msg_control = NULL;
	h.msg_iovlen = 1;
	for (int k = 0; k < b->count[m]; k++) {
		h.msg_iov = &b->iov[b->first[m] + k];
		s->tx_io.calls++;
		if (sendmsg(s->lfd.fd, &h, MSG_DONTWAIT) >= 0)
			s->tx_io.packets++;
		else
			count_failure(s, 1);
	}
}

void udp_flush(struct udp_sock *s)
{
	socklen_t alen = s->family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	struct tx_batch b;
	int done = 0;

	build_batch(s, &b, alen);
	while (done < b.n) {
		int rc = sendmmsg(s->lfd.fd, b.msgs + done, (unsigned)(b.n - done), MSG_DONTWAIT);

		s->tx_io.calls++;
		if (rc > 0) {
			for (int m = done; m < done + rc; m++)
				s->tx_io.packets += (uint64_t)b.count[m];
			done += rc;
			continue;
		}
		if (b.count[done] > 1 && errno != EAGAIN && errno != ENOBUFS)
			send_run_singly(s, &b, done);
		else
			count_failure(s, b.count[done]);
		done++;
	}
	s->tx_n = 0;
}

/* The kernel's cumulative drop count, when a read reports it. */
static void note_overflows(struct udp_sock *s, struct msghdr *h)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL && c->cmsg_len >= CMSG_LEN(sizeof(uint32_t)))
			memcpy(&s->rx_overflows, CMSG_DATA(c), sizeof(uint32_t));
}

int udp_recv(struct udp_sock *s, struct udp_rx *rx)
{
	struct mmsghdr msgs[UDP_BATCH];
	struct iovec iov[UDP_BATCH];
	struct sockaddr_storage from[UDP_BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} control[UDP_BATCH];
	int got;

	rx->n = 0;
	for (int i = 0; i < UDP_BATCH; i++) {
		iov[i] = (struct iovec){ s->rx_bufs + (size_t)i * s->slot, s->slot };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_name = &from[i], .msg_namelen = sizeof(from[i]),
							  .msg_iov = &iov[i], .msg_iovlen = 1,
							  .msg_control = control[i].buf,
							  .msg_controllen = sizeof(control[i].buf) } };
	}
	got = recvmmsg(s->lfd.fd, msgs, UDP_BATCH, MSG_DONTWAIT, NULL);
	s->rx_io.calls++;
	if (got > 0)
		s->rx_io.packets += (uint64_t)got;
	if (got < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	for (int i = 0; i < got; i++) {
		note_overflows(s, &msgs[i].msg_hdr);
		if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
			s->rx_truncated++;
			continue;
		}
		rx->buf[rx->n] = iov[i].iov_base;
		rx->len[rx->n] = msgs[i].msg_len;
		udp_endpoint_from_sockaddr(&rx->from[rx->n], &from[i]);
		rx->n++;
	}
	return 0;
}
