/* SPDX-License-Identifier: MIT */
/*
 * The event loop: epoll over file descriptors whose callback structs are
 * embedded in their owners (the owner is recovered with container_of), one
 * timerfd for the earliest protocol deadline, and signals through a
 * signalfd. The loop allocates nothing.
 */
#ifndef WB_LOOP_H
#define WB_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

struct loop_fd {
	int fd;
	void (*cb)(struct loop_fd *f, uint32_t events);
};

struct loop {
	int epfd;
	struct loop_fd timer;  /* fires at the deadline set by loop_set_deadline */
	struct loop_fd signals;
	uint64_t armed;        /* the deadline the timer is armed for, UINT64_MAX if none */
	uint64_t waits, timer_sets; /* epoll_wait and timerfd_settime calls: how often the loop wakes */
	/*
	 * Before it waits, the loop first sleeps this long (never past the
	 * deadline), so that a busy tunnel's packets are read, sealed and sent
	 * in batches rather than one wakeup each (batching.h). 0: it waits at once.
	 */
	uint64_t hold_ns;
	uint64_t holds;
	bool stop;
};

/* signals: a list ending in 0; they are blocked and delivered to on_signal. */
int loop_init(struct loop *l, const int *signals);
void loop_close(struct loop *l);

int loop_add(struct loop *l, struct loop_fd *f, uint32_t events);
void loop_del(struct loop *l, struct loop_fd *f);

/* Arms the timer for an absolute CLOCK_MONOTONIC time in ns (UINT64_MAX: disarm). */
void loop_set_deadline(struct loop *l, uint64_t at);

/* Runs until loop->stop; before each wait, prepare() returns the deadline to arm. */
int loop_run(struct loop *l, uint64_t (*prepare)(struct loop *l));

uint64_t loop_now(void);

#endif
