// SPDX-License-Identifier: MIT
/*
 * notify_probe: the service-manager notifications (daemon/notify.c) on the
 * command line, and a stand-in for systemd's end of them, so a test can check
 * what the module sends without a running systemd.
 *
 *   notify_probe send
 *       notify_init, then ready("x"), status("up %d", 2), watchdog,
 *       reloading(123456789), status with a newline in it, stopping; prints
 *       "impl=libsystemd|builtin" and "watchdog_ns=N" (notify_init's answer)
 *   notify_probe collect ADDR CMD [ARG...]
 *       binds a datagram socket at ADDR (a path, or @name in the abstract
 *       namespace), runs CMD with NOTIFY_SOCKET=ADDR, and once CMD has
 *       exited prints each datagram received as "datagram TEXT" (newlines as
 *       \n, backslashes as \\, other control bytes as \xHH), then "exit N"
 *   notify_probe listen ADDR
 *       binds a datagram socket at ADDR, prints "listening", then each
 *       datagram as it arrives, in the same form, one flushed line each, for
 *       a test to follow a daemon that runs on (started with NOTIFY_SOCKET=ADDR
 *       by the test); SIGTERM or SIGINT ends it with 0 (a path is removed)
 *
 * The collector reads while CMD runs (the kernel queues only a few datagrams
 * per socket) and drains the queue after CMD has exited: a datagram sent is
 * queued by the time sendto returns, so none can be missed and no timeout is
 * involved. Exit 1 on a system error, 2 with a usage line for bad arguments.
 */
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "notify.h"

#ifndef WB_HAVE_SYSTEMD
#define WB_HAVE_SYSTEMD 0
#endif

#define MAX_DATAGRAMS 64
#define MAX_DATAGRAM 4096

static void usage(void)
{
	fputs("usage: notify_probe send | notify_probe collect ADDR CMD [ARG...] | notify_probe listen ADDR\n", stderr);
	exit(2);
}

static int send_all(void)
{
	uint64_t watchdog_ns = notify_init();

	printf("impl=%s\n", WB_HAVE_SYSTEMD ? "libsystemd" : "builtin");
	printf("watchdog_ns=%llu\n", (unsigned long long)watchdog_ns);
	fflush(stdout);
	notify_ready("x");
	notify_status("up %d", 2);
	notify_watchdog();
	notify_reloading(123456789);
	notify_status("%s", "a\nMAINPID=1");
	notify_stopping();
	return 0;
}

/* The received datagrams, kept until the command has exited so its output comes first. */
struct inbox {
	int n;
	size_t len[MAX_DATAGRAMS];
	char data[MAX_DATAGRAMS][MAX_DATAGRAM];
};

static int bind_addr(const char *addr)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(addr);
	socklen_t len;
	int fd;

	if (n < 2 || n >= sizeof(sa.sun_path) || (addr[0] != '@' && addr[0] != '/')) {
		fprintf(stderr, "notify_probe: %s: not a path or an @name\n", addr);
		return -1;
	}
	memcpy(sa.sun_path, addr, n);
	if (addr[0] == '@') {
		sa.sun_path[0] = 0;
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else {
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len)) {
		fprintf(stderr, "notify_probe: bind %s: %s\n", addr, strerror(errno));
		return -1;
	}
	return fd;
}

/* Reads what is queued now; -1 on an error or too many datagrams. */
static int drain(int fd, struct inbox *in)
{
	for (;;) {
		ssize_t r;

		if (in->n == MAX_DATAGRAMS) {
			fputs("notify_probe: too many datagrams\n", stderr);
			return -1;
		}
		r = recv(fd, in->data[in->n], MAX_DATAGRAM, 0);
		if (r < 0)
			return errno == EAGAIN ? 0 : -1;
		in->len[in->n++] = (size_t)r;
	}
}

static void print_datagram(const char *d, size_t len)
{
	fputs("datagram ", stdout);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)d[i];

		if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\\')
			fputs("\\\\", stdout);
		else if (c < 0x20 || c == 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('\n');
}

static pid_t spawn(const char *addr, char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		setenv("NOTIFY_SOCKET", addr, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "notify_probe: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int collect(const char *addr, char **argv)
{
	static struct inbox in;
	struct pollfd pfd[2];
	int status, fd = bind_addr(addr);
	pid_t pid;

	if (fd < 0)
		return 1;
	fflush(stdout);
	pid = spawn(addr, argv);
	if (pid < 0)
		return 1;
	/* A pidfd turns readable when the child exits: one poll waits for either. */
	pfd[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = (int)syscall(SYS_pidfd_open, pid, 0), .events = POLLIN };
	if (pfd[1].fd < 0) {
		fprintf(stderr, "notify_probe: pidfd_open: %s\n", strerror(errno));
		return 1;
	}
	while (!(pfd[1].revents & POLLIN)) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return 1;
		if (drain(fd, &in))
			return 1;
	}
	if (waitpid(pid, &status, 0) != pid || drain(fd, &in))
		return 1;
	for (int i = 0; i < in.n; i++)
		print_datagram(in.data[i], in.len[i]);
	printf("exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	if (addr[0] == '/')
		unlink(addr);
	return 0;
}

static volatile sig_atomic_t stop_listening;

static void on_stop(int sig)
{
	(void)sig;
	stop_listening = 1;
}

/*
 * The signals are blocked except inside ppoll, which unblocks them
 * atomically: one that comes between the check and the wait is not lost.
 */
static int listen_on(const char *addr)
{
	static char buf[MAX_DATAGRAM];
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t block, during;
	struct pollfd pfd;
	int fd, rc = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	if (sigprocmask(SIG_BLOCK, &block, &during) || sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		return 1;
	sigdelset(&during, SIGTERM);
	sigdelset(&during, SIGINT);
	fd = bind_addr(addr);
	if (fd < 0)
		return 1;
	puts("listening");
	fflush(stdout);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (!stop_listening) {
		ssize_t r;

		if (ppoll(&pfd, 1, NULL, &during) < 0) {
			if (errno == EINTR)
				continue;
			rc = 1;
			break;
		}
		while ((r = recv(fd, buf, sizeof(buf), 0)) >= 0) {
			print_datagram(buf, (size_t)r);
			fflush(stdout);
		}
		if (errno != EAGAIN) {
			rc = 1;
			break;
		}
	}
	close(fd);
	if (addr[0] == '/')
		unlink(addr);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "send"))
		return send_all();
	if (argc >= 4 && !strcmp(argv[1], "collect"))
		return collect(argv[2], argv + 3);
	if (argc == 3 && !strcmp(argv[1], "listen"))
		return listen_on(argv[2]);
	usage();
	return 2;
}
