// SPDX-License-Identifier: MIT
/*
 * wb-latprobe: a voice or game stream and its one-way delay. `send` sends UDP
 * packets at a fixed rate, each with its sequence number and send time;
 * `recv` receives them and prints loss, duplicates, reordering, the one-way
 * delay's percentiles and the RFC 3550 jitter. Sender and receiver must share
 * CLOCK_MONOTONIC: one host, network namespaces included. See docs/testing.md.
 *
 * Exit codes: 0 when done (or ended by SIGINT/SIGTERM, figures printed),
 * 1 on a system error, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lp_args.h"
#include "lp_stats.h"
#include "lp_wire.h"

#define EXIT_USAGE 2
#define NSEC_PER_SEC 1000000000ULL

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: a signal ends the wait */

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int open_socket(int family)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		perror("wb-latprobe: socket");
	return fd;
}

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

/* ---- send ---- */

static int run_send(const struct lp_args *a)
{
	uint64_t count = lp_packet_count(a->rate, a->duration_ns), sent = 0, errors = 0, late_max = 0, late_periods = 0;
	uint64_t period = NSEC_PER_SEC / a->rate, t0, t_end;
	uint8_t *buf = malloc(a->size);
	int fd, family = a->to.ss.ss_family;

	if (!buf)
		return 1;
	fd = open_socket(family);
	if (fd < 0) {
		free(buf);
		return 1;
	}
	if (a->dscp >= 0) {
		int tos = a->dscp << 2;
		int rc = family == AF_INET6 ? setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos))
					    : setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));

		if (rc) {
			perror("wb-latprobe: setting the DSCP");
			goto fail;
		}
	}
	if (a->bind.len && bind(fd, (const struct sockaddr *)&a->bind.ss, a->bind.len)) {
		perror("wb-latprobe: bind");
		goto fail;
	}
	/* Wake-ups on time: the default 50 us of timer slack would be the stream's own jitter. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	t0 = now_ns();
	for (uint64_t i = 0; i < count && !stop; i++) {
		uint64_t due = t0 + lp_send_offset_ns(i, a->rate), t;
		struct timespec ts = { .tv_sec = (time_t)(due / NSEC_PER_SEC), .tv_nsec = (long)(due % NSEC_PER_SEC) };
		struct lp_packet p = { .stream = a->stream, .length = a->size, .seq = i };

		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		if (stop)
			break;
		t = now_ns();
		if (t - due > late_max)
			late_max = t - due;
		if (t - due > period)
			late_periods++;
		p.sent_ns = t;
		lp_packet_write(buf, a->size, &p);
		if (sendto(fd, buf, a->size, 0, (const struct sockaddr *)&a->to.ss, a->to.len) < 0)
			errors++; /* counted, as sent: the receiver sees it lost */
		sent++;
	}
	t_end = now_ns();
	if (a->json) {
		printf("{\"sent\":%llu,\"send_errors\":%llu,\"stream\":%u,\"rate\":%u,\"size\":%u,\"dscp\":%d,"
		       "\"seconds\":%.3f,\"late_max_us\":%.1f,\"late_over_period\":%llu}\n",
		       (unsigned long long)sent, (unsigned long long)errors, a->stream, a->rate, a->size, a->dscp,
		       (double)(t_end - t0) / 1e9, (double)late_max / 1e3, (unsigned long long)late_periods);
	} else {
		printf("sent %llu packets (stream %u, %u a second, %u bytes, dscp %d) in %.3f s; send errors %llu; "
		       "late by up to %.1f us, %llu by more than a period\n",
		       (unsigned long long)sent, a->stream, a->rate, a->size, a->dscp, (double)(t_end - t0) / 1e9,
		       (unsigned long long)errors, (double)late_max / 1e3, (unsigned long long)late_periods);
	}
	close(fd);
	free(buf);
	return 0;
fail:
	close(fd);
	free(buf);
	return 1;
}

/* ---- recv ---- */

struct receiver {
	const struct lp_args *a;
	struct lp_receiver rx;
	int dscp; /* of the first packet counted, -1 unknown */
};

/* The traffic class of a received datagram, from its control message. */
static int tos_of(struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		int v = -1;

		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS && c->cmsg_len >= CMSG_LEN(1))
			v = *(const uint8_t *)CMSG_DATA(c);
		else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS && c->cmsg_len >= CMSG_LEN(sizeof(int)))
			memcpy(&v, CMSG_DATA(c), sizeof(v));
		if (v >= 0)
			return v;
	}
	return -1;
}

static void take(struct receiver *r, const uint8_t *buf, size_t len, uint64_t t, int tos)
{
	enum lp_verdict v;

	if (lp_receive(&r->rx, buf, len, t, &v) == LP_TAKEN && r->dscp < 0 && tos >= 0)
		r->dscp = tos >> 2;
}

static int drain(struct receiver *r, int fd, uint8_t *buf, size_t cap)
{
	for (;;) {
		union {
			struct cmsghdr align;
			char b[CMSG_SPACE(sizeof(int)) * 2];
		} ctl;
		struct iovec iov = { .iov_base = buf, .iov_len = cap };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b) };
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
		uint64_t t = now_ns();

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			perror("wb-latprobe: recvmsg");
			return -1;
		}
		/* A datagram larger than the buffer is cut: its length field then refuses it. */
		take(r, buf, (size_t)n > cap ? cap : (size_t)n, t, tos_of(&mh));
	}
}

static int write_delays(const struct lp_stats *st, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		return -1;
	}
	for (size_t i = 0; i < st->n_delays; i++)
		fprintf(f, "%.3f\n", ms(st->delays[i]));
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static void print_summary(const struct receiver *r, const struct lp_summary *s, double secs)
{
	const struct lp_args *a = r->a;
	char fig[5][32];
	const int64_t v[5] = { s->min_ns, s->p50_ns, s->p99_ns, s->p999_ns, s->max_ns };

	for (int i = 0; i < 5; i++) {
		if (s->n_delays)
			snprintf(fig[i], sizeof(fig[i]), "%.3f", ms(v[i]));
		else
			snprintf(fig[i], sizeof(fig[i]), "%s", a->json ? "null" : "-");
	}
	if (a->json) {
		printf("{\"stream\":%u,\"sent\":%llu,\"received\":%llu,\"lost\":%llu,\"loss_pct\":%.4f,"
		       "\"duplicates\":%llu,\"reordered\":%llu,\"too_old\":%llu,\"foreign\":%llu,\"other_stream\":%llu,"
		       "\"delays\":%zu,\"delays_not_kept\":%llu,"
		       "\"min_ms\":%s,\"p50_ms\":%s,\"p99_ms\":%s,\"p999_ms\":%s,\"max_ms\":%s,\"jitter_ms\":%.4f,"
		       "\"dscp\":%d,\"seconds\":%.3f}\n",
		       r->rx.stream, (unsigned long long)s->sent, (unsigned long long)s->received, (unsigned long long)s->lost,
		       s->loss_pct, (unsigned long long)s->duplicates, (unsigned long long)s->reordered,
		       (unsigned long long)s->too_old, (unsigned long long)r->rx.foreign, (unsigned long long)r->rx.other_stream,
		       s->n_delays, (unsigned long long)r->rx.st.delays_not_kept, fig[0], fig[1], fig[2], fig[3], fig[4],
		       ms((int64_t)s->jitter_ns), r->dscp, secs);
		return;
	}
	printf("stream %u: sent %llu, received %llu, lost %llu (%.3f%%), duplicates %llu, reordered %llu, too old %llu;"
	       " not ours %llu, other streams %llu; dscp %d\n",
	       r->rx.stream, (unsigned long long)s->sent, (unsigned long long)s->received, (unsigned long long)s->lost,
	       s->loss_pct, (unsigned long long)s->duplicates, (unsigned long long)s->reordered,
	       (unsigned long long)s->too_old, (unsigned long long)r->rx.foreign, (unsigned long long)r->rx.other_stream, r->dscp);
	printf("one-way delay ms: min %s p50 %s p99 %s p99.9 %s max %s; jitter %.3f ms (RFC 3550); %.3f s\n", fig[0],
	       fig[1], fig[2], fig[3], fig[4], ms((int64_t)s->jitter_ns), secs);
}

static int run_recv(const struct lp_args *a)
{
	struct receiver r = { .a = a, .dscp = -1 };
	int fd, on = 1, rcvbuf = 1 << 20, family = a->bind.ss.ss_family, rc = 1;
	uint64_t t0, deadline;
	size_t cap = LP_MAX_LEN + 1;
	uint8_t *buf = malloc(cap);
	struct lp_summary s;

	if (!buf)
		return 1;
	lp_receiver_init(&r.rx, a->stream_set, a->stream);
	fd = open_socket(family);
	if (fd < 0)
		goto out;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &on, sizeof(on));
	else
		setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &on, sizeof(on));
	if (bind(fd, (const struct sockaddr *)&a->bind.ss, a->bind.len)) {
		perror("wb-latprobe: bind");
		goto out;
	}
	t0 = now_ns();
	deadline = t0 + a->duration_ns;
	while (!stop) {
		uint64_t t = now_ns();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct timespec left;

		if (t >= deadline)
			break;
		left = (struct timespec){ .tv_sec = (time_t)((deadline - t) / NSEC_PER_SEC),
					  .tv_nsec = (long)((deadline - t) % NSEC_PER_SEC) };
		if (ppoll(&pfd, 1, &left, NULL) < 0) {
			if (errno == EINTR)
				continue;
			perror("wb-latprobe: ppoll");
			goto out;
		}
		if (pfd.revents && drain(&r, fd, buf, cap))
			goto out;
	}
	if (a->delays_path && write_delays(&r.rx.st, a->delays_path))
		goto out;
	if (lp_stats_summary(&r.rx.st, a->expect, &s)) {
		fprintf(stderr, "wb-latprobe: out of memory\n");
		goto out;
	}
	print_summary(&r, &s, (double)(now_ns() - t0) / 1e9);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	lp_stats_free(&r.rx.st);
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	struct lp_args a;
	char err[256];

	if (lp_args_parse(&a, argc, argv, err, sizeof(err))) {
		fprintf(stderr, "wb-latprobe: %s (see wb-latprobe -h)\n", err);
		return EXIT_USAGE;
	}
	if (a.help) {
		fputs(lp_usage, stdout);
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	catch_signals();
	return a.mode == LP_MODE_SEND ? run_send(&a) : run_recv(&a);
}
