// SPDX-License-Identifier: MIT
#include "loop.h"

#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "nsec.h"

#define EVENTS_PER_WAIT 32

uint64_t loop_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * WB_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void drain_timer(struct loop_fd *f, uint32_t events)
{
	struct loop *l = container_of(f, struct loop, timer);
	uint64_t ticks;

	(void)events;
	if (read(f->fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	l->armed = UINT64_MAX; /* expired: the next prepare arms it again */
}

int loop_init(struct loop *l, const int *signals)
{
	sigset_t mask;

	*l = (struct loop){ .epfd = -1, .timer = { .fd = -1, .cb = drain_timer }, .signals = { .fd = -1 },
			    .armed = UINT64_MAX };
	sigemptyset(&mask);
	for (const int *s = signals; *s; s++)
		sigaddset(&mask, *s);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -errno;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->timer.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	l->signals.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (l->epfd < 0 || l->timer.fd < 0 || l->signals.fd < 0)
		return -errno;
	return loop_add(l, &l->timer, EPOLLIN);
}

void loop_close(struct loop *l)
{
	if (l->signals.fd >= 0)
		close(l->signals.fd);
	if (l->timer.fd >= 0)
		close(l->timer.fd);
	if (l->epfd >= 0)
		close(l->epfd);
	l->epfd = l->timer.fd = l->signals.fd = -1;
}

int loop_add(struct loop *l, struct loop_fd *f, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = f };

	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, f->fd, &ev) ? -errno : 0;
}

void loop_del(struct loop *l, struct loop_fd *f)
{
	if (f->fd >= 0)
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, f->fd, NULL);
}

void loop_set_deadline(struct loop *l, uint64_t at)
{
	struct itimerspec its = { 0 };

	if (at == l->armed)
		return;
	l->armed = at;
	if (at != UINT64_MAX) {
		/* An it_value of zero would disarm: a deadline already due is armed 1 ns after 0. */
		its.it_value.tv_sec = (time_t)(at / WB_NSEC_PER_SEC);
		its.it_value.tv_nsec = (long)(at % WB_NSEC_PER_SEC);
		if (!at)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(l->timer.fd, TFD_TIMER_ABSTIME, &its, NULL);
	l->timer_sets++;
}

/* Sleeps hold_ns, or until the deadline if that is sooner: what comes meanwhile is taken in one go. */
static void hold(struct loop *l, uint64_t deadline)
{
	uint64_t until = loop_now() + l->hold_ns;
	struct timespec ts;

	if (deadline < until)
		until = deadline;
	ts.tv_sec = (time_t)(until / WB_NSEC_PER_SEC);
	ts.tv_nsec = (long)(until % WB_NSEC_PER_SEC);
	l->holds++;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int loop_run(struct loop *l, uint64_t (*prepare)(struct loop *l))
{
	struct epoll_event ev[EVENTS_PER_WAIT];

	while (!l->stop) {
		uint64_t deadline = prepare(l);
		int n;

		loop_set_deadline(l, deadline);
		if (l->stop)
			break;
		if (l->hold_ns)
			hold(l, deadline);
		n = epoll_wait(l->epfd, ev, EVENTS_PER_WAIT, -1);
		l->waits++;
		if (n < 0 && errno != EINTR)
			return -errno;
		for (int i = 0; i < n && !l->stop; i++) {
			struct loop_fd *f = ev[i].data.ptr;

			f->cb(f, ev[i].events);
		}
	}
	return 0;
}
