// SPDX-License-Identifier: MIT
/*
 * linkem: a userspace link emulator. It runs in a network namespace between
 * two interfaces, forwards every frame from one to the other, and applies in
 * each direction a bottleneck rate (or a cellular trace), a drop-tail queue,
 * loss, propagation delay and jitter. See docs/linkem.md.
 *
 * Exit codes: 0 after SIGINT/SIGTERM, 1 on a system error, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "linkdir.h"
#include "pktio.h"
#include "pool.h"
#include "trace.h"
#include "units.h"

#define EXIT_USAGE 2
/* Reads per wake-up before due frames are sent, so delivery stays on time under load. */
#define RX_BURSTS_PER_WAKEUP 4

static const char *const dir_name[DIR_COUNT] = { "a2b", "b2a" };

/* How late frames leave against their schedule: the emulator's own fidelity. */
struct lateness {
	uint64_t sum_ns, max_ns, count;
};

struct emu {
	struct linkem_args args;
	struct lateness late[DIR_COUNT];
	struct trace trace[DIR_COUNT];
	struct linkdir dir[DIR_COUNT];
	struct pktio port[DIR_COUNT]; /* dir[k] reads port[k] and writes port[!k] */
	struct pool pool;
	int epfd, sigfd;
	bool stop;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static int load_trace(struct trace *t, const char *path)
{
	char err[160];
	struct stat st;
	char *text;
	ssize_t got;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "linkem: trace %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	text = malloc((size_t)st.st_size + 1);
	got = text ? read(fd, text, (size_t)st.st_size) : -1;
	close(fd);
	if (got != st.st_size) {
		fprintf(stderr, "linkem: trace %s: cannot read it\n", path);
		free(text);
		return -1;
	}
	rc = trace_parse(t, text, (size_t)got, err, sizeof(err));
	free(text);
	if (rc)
		fprintf(stderr, "linkem: %s:%s\n", path, err);
	return rc;
}

static void describe_direction(const struct emu *e, int k)
{
	const struct linkem_dir_args *d = &e->args.dir[k];
	const struct linkdir_params *p = &d->link;
	static const char *const limit_unit[] = { "p", " bytes", " ns" };

	printf("linkem: %s %s -> %s:", dir_name[k], e->args.if_name[k], e->args.if_name[!k]);
	if (d->trace_path)
		printf(" trace %s (mean %.3f mbit)", d->trace_path, trace_mean_rate(&e->trace[k]) / 1e6);
	else if (p->rate_bps)
		printf(" rate %.3f mbit", p->rate_bps / 1e6);
	else
		printf(" rate unlimited");
	printf(" delay %.3f ms jitter %.3f ms%s", p->delay_ns / 1e6, p->jitter_ns / 1e6,
	       p->reorder ? " reorder" : "");
	printf(" loss %.4f%%", 100 * loss_expected_ratio(&p->loss));
	if (p->loss.kind == LOSS_GILBERT_ELLIOTT)
		printf(" (gemodel p %g r %g 1-h %g 1-k %g)", p->loss.p, p->loss.r, p->loss.loss_bad,
		       p->loss.loss_good);
	printf(" limit %llu%s overhead %u", (unsigned long long)p->limit.value, limit_unit[p->limit.kind],
	       p->overhead);
	if (p->mtu)
		printf(" mtu %u", p->mtu);
	if (p->outage_every_ns)
		printf(" outage %.3f s every %.3f s", p->outage_len_ns / 1e9, p->outage_every_ns / 1e9);
	printf("\n");
}

static void print_stats(const struct emu *e)
{
	for (int k = 0; k < DIR_COUNT; k++) {
		const struct linkdir_stats *s = &e->dir[k].stats;

		printf("%s in_pkts=%llu in_bytes=%llu out_pkts=%llu out_bytes=%llu loss_drops=%llu "
		       "queue_drops=%llu overflow_drops=%llu rx_truncated=%llu tx_errors=%llu "
		       "max_queue_pkts=%llu max_queue_bytes=%llu max_queue_ms=%.3f "
		       "late_avg_us=%.1f late_max_us=%.1f mtu_drops=%llu outage_drops=%llu\n",
		       dir_name[k], (unsigned long long)s->in_pkts, (unsigned long long)s->in_bytes,
		       (unsigned long long)s->out_pkts, (unsigned long long)s->out_bytes,
		       (unsigned long long)s->loss_drops, (unsigned long long)s->queue_drops,
		       (unsigned long long)s->overflow_drops,
		       (unsigned long long)e->port[k].rx_truncated,
		       (unsigned long long)e->port[!k].tx_errors,
		       (unsigned long long)s->max_queue_pkts, (unsigned long long)s->max_queue_bytes,
		       s->max_queue_delay_ns / 1e6,
		       e->late[k].count ? (double)e->late[k].sum_ns / (double)e->late[k].count / 1e3 : 0.0,
		       e->late[k].max_ns / 1e3, (unsigned long long)s->mtu_drops,
		       (unsigned long long)s->outage_drops);
	}
	fflush(stdout);
}

static void note_lateness(struct lateness *l, uint64_t due, uint64_t now)
{
	uint64_t late = now - due;

	l->sum_ns += late;
	l->count++;
	if (late > l->max_ns)
		l->max_ns = late;
}

/* Sends every frame whose delivery time has come, in batches. */
static void deliver_due(struct emu *e, uint64_t now)
{
	struct frame *batch[PKTIO_BATCH];

	for (int k = 0; k < DIR_COUNT; k++) {
		int n;

		do {
			for (n = 0; n < PKTIO_BATCH; n++) {
				uint64_t due = linkdir_next_due(&e->dir[k]);

				batch[n] = linkdir_pop_due(&e->dir[k], now);
				if (!batch[n])
					break;
				note_lateness(&e->late[k], due, now);
			}
			pktio_send(&e->port[!k], batch, n);
			for (int i = 0; i < n; i++)
				pool_put(&e->pool, batch[i]);
		} while (n == PKTIO_BATCH);
	}
}

/* Reads a burst from port k into direction k. Returns frames read, or -1 when none. */
static int receive_burst(struct emu *e, int k)
{
	struct frame *batch[PKTIO_BATCH];
	uint64_t now;
	int n = 0, got;

	while (n < PKTIO_BATCH && (batch[n] = pool_get(&e->pool)))
		n++;
	if (!n) {
		/* Every buffer is in the delay line: let the socket buffer hold the rest. */
		return -1;
	}
	got = pktio_recv(&e->port[k], batch, n, e->pool.frame_size);
	now = now_ns();
	for (int i = 0; i < got; i++) {
		struct frame *f = batch[i];

		if (linkdir_enqueue(&e->dir[k], now, f->len - PKTIO_L2_HEADER, f) != LINKDIR_QUEUED)
			pool_put(&e->pool, f);
	}
	for (int i = got > 0 ? got : 0; i < n; i++)
		pool_put(&e->pool, batch[i]);
	return got > 0 ? got : -1;
}

/*
 * How long to sleep: until the next frame is due. epoll_pwait2 takes the
 * timeout in nanoseconds, which spares a timerfd and its two syscalls per
 * wake-up, the main cost of the emulator at high packet rates.
 */
static struct timespec *time_to_next(const struct emu *e, struct timespec *ts)
{
	uint64_t due = linkdir_next_due(&e->dir[0]), now, wait;

	if (linkdir_next_due(&e->dir[1]) < due)
		due = linkdir_next_due(&e->dir[1]);
	if (due == UINT64_MAX)
		return NULL;
	now = now_ns();
	wait = due > now ? due - now : 0;
	ts->tv_sec = (time_t)(wait / NSEC_PER_SEC);
	ts->tv_nsec = (long)(wait % NSEC_PER_SEC);
	return ts;
}

static void handle_signals(struct emu *e)
{
	struct signalfd_siginfo si;

	while (read(e->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1)
			print_stats(e);
		else
			e->stop = true;
	}
}

static void handle_event(struct emu *e, int fd)
{
	if (fd == e->sigfd) {
		handle_signals(e);
		return;
	}
	for (int k = 0; k < DIR_COUNT; k++) {
		if (fd != e->port[k].fd)
			continue;
		for (int burst = 0; burst < RX_BURSTS_PER_WAKEUP; burst++)
			if (receive_burst(e, k) < PKTIO_BATCH)
				break;
	}
}

static int run(struct emu *e)
{
	struct epoll_event ev[4];

	while (!e->stop) {
		struct timespec ts;
		int n;

		deliver_due(e, now_ns());
		n = epoll_pwait2(e->epfd, ev, 4, time_to_next(e, &ts), NULL);
		if (n < 0 && errno != EINTR) {
			perror("linkem: epoll_pwait2");
			return 1;
		}
		for (int i = 0; i < n; i++)
			handle_event(e, ev[i].data.fd);
	}
	return 0;
}

static int watch(struct emu *e, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static int open_events(struct emu *e)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -1;
	e->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->sigfd < 0 || e->epfd < 0)
		return -1;
	if (watch(e, e->sigfd) || watch(e, e->port[0].fd) || watch(e, e->port[1].fd))
		return -1;
	/* The default 50 us timer slack would be a visible share of a 1 ms delay. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	return 0;
}

static void close_events(struct emu *e)
{
	if (e->epfd >= 0)
		close(e->epfd);
	if (e->sigfd >= 0)
		close(e->sigfd);
}

static int open_ports(struct emu *e)
{
	for (int k = 0; k < DIR_COUNT; k++) {
		int rc = pktio_open(&e->port[k], e->args.if_name[k]);

		if (rc == -ENODEV) {
			fprintf(stderr, "linkem: no interface '%s' in this network namespace\n", e->args.if_name[k]);
			return EXIT_USAGE;
		}
		if (rc) {
			fprintf(stderr, "linkem: %s: %s\n", e->args.if_name[k], strerror(-rc));
			return 1;
		}
	}
	return 0;
}

static int open_links(struct emu *e, uint64_t t0)
{
	for (int k = 0; k < DIR_COUNT; k++) {
		struct linkdir_params p = e->args.dir[k].link;

		if (e->args.dir[k].trace_path)
			p.trace = &e->trace[k];
		/* Two directions, two independent random streams from one seed. */
		if (linkdir_init(&e->dir[k], &p, e->args.seed + (uint64_t)k * 0x9e3779b97f4a7c15ULL, t0))
			return -1;
	}
	return 0;
}

static uint32_t frame_room(const struct emu *e)
{
	uint32_t mtu = e->port[0].mtu > e->port[1].mtu ? e->port[0].mtu : e->port[1].mtu;

	return mtu + PKTIO_L2_HEADER + 4; /* room for one VLAN tag left in the frame */
}

static void teardown(struct emu *e)
{
	for (int k = 0; k < DIR_COUNT; k++) {
		while (linkdir_drain(&e->dir[k]))
			;
		linkdir_free(&e->dir[k]);
		pktio_close(&e->port[k]);
		trace_free(&e->trace[k]);
	}
	pool_destroy(&e->pool);
	close_events(e);
}

static int parse_command_line(struct emu *e, int argc, char **argv)
{
	char err[200];

	if (linkem_args_parse(&e->args, argc, argv, err, sizeof(err))) {
		fprintf(stderr, "linkem: %s\n", err);
		return EXIT_USAGE;
	}
	if (e->args.help) {
		fputs(linkem_usage, stdout);
		exit(0);
	}
	for (int k = 0; k < DIR_COUNT; k++)
		if (e->args.dir[k].trace_path && load_trace(&e->trace[k], e->args.dir[k].trace_path))
			return EXIT_USAGE;
	if (!e->args.seed_set && getrandom(&e->args.seed, sizeof(e->args.seed), 0) != sizeof(e->args.seed))
		e->args.seed = now_ns() ^ (uint64_t)getpid();
	return 0;
}

int main(int argc, char **argv)
{
	struct emu e = { .epfd = -1, .sigfd = -1, .port = { { .fd = -1 }, { .fd = -1 } } };
	int rc;

	rc = parse_command_line(&e, argc, argv);
	if (!rc)
		rc = open_ports(&e);
	if (!rc && (open_links(&e, now_ns()) || open_events(&e))) {
		perror("linkem: setting up");
		rc = 1;
	}
	if (!rc) {
		/* Enough frames for a second of a 10 Gbit/s link; only what is used gets allocated. */
		pool_init(&e.pool, frame_room(&e), LINKDIR_MAX_PACKETS);
		for (int k = 0; k < DIR_COUNT; k++)
			describe_direction(&e, k);
		printf("linkem: ready, forwarding %s <-> %s, seed %llu\n", e.args.if_name[0], e.args.if_name[1],
		       (unsigned long long)e.args.seed);
		fflush(stdout);
		rc = run(&e);
		print_stats(&e);
	}
	teardown(&e);
	return rc;
}
