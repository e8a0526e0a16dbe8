// SPDX-License-Identifier: MIT
/*
 * ctl_peer: control connections held the way a test needs them, to see
 * what the daemon does with a peer that holds its slots, keeps quiet, or
 * hands its socket on (daemon/control.c, daemon/peer_cred.c).
 *
 *   ctl_peer hold SOCKET N [monitor] [every MS]
 *       opens N connections to SOCKET, one after the other, and on each
 *       asks get-bond (with monitor: subscribes) and reads the answer: a
 *       reply or an ack keeps it, an error (the daemon's refusal) or the
 *       connection's end refuses it, and it is closed. Prints "kept K
 *       refused R" and the first refusal's text ("refusal: ..."). Then holds
 *       the kept ones in silence (with every: asking get-bond again every
 *       MS ms), reading what comes (events, a notice before a close), and
 *       prints "closed after MS ms" for each the daemon closes, counted from
 *       its last answer, then "all closed" when none is left and exits 0.
 *       It exits 1 after HOLD_MAX_SECS anyway.
 *   ctl_peer orphan SOCKET FIFO [queued]
 *       connects and, unless queued, asks get-bond and waits for the
 *       reply (the daemon has accepted the connection, and judged it); then
 *       forks. The parent, the process that connected, prints "connector
 *       PID" and exits at once. The child keeps the connection, waits until
 *       FIFO has been opened for writing, then asks reset-counters (a change)
 *       and prints "change: ok" or "change: refused: ERRNO-TEXT: MESSAGE".
 *       With queued nothing is asked first: for a daemon that has not
 *       accepted yet (stopped, say).
 *
 * Exit 1 on a system error, 2 with a usage line for bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "ctl.h"

#define MAX_CONNS 64
#define ANSWER_TIMEOUT_MS 5000
#define HOLD_MAX_SECS 120

static void usage(void) __attribute__((noreturn));
static void die(const char *what) __attribute__((noreturn));

static void usage(void)
{
	fputs("usage: ctl_peer hold SOCKET N [monitor] [every MS] | ctl_peer orphan SOCKET FIFO [queued]\n",
	      stderr);
	exit(2);
}

static void die(const char *what)
{
	fprintf(stderr, "ctl_peer: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("socket");
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die(path);
	return fd;
}

static void ask(int fd, uint8_t cmd)
{
	char buf[WB_CTL_MSG_MAX];
	struct nlmsghdr *nlh = wb_ctl_msg_start(buf, cmd, NLM_F_REQUEST | NLM_F_ACK, 1);

	/* A daemon that has closed the connection already gets EPIPE: the answer will say so. */
	send(fd, nlh, nlh->nlmsg_len, MSG_NOSIGNAL);
}

enum answer { ANSWER_OK, ANSWER_ERROR, ANSWER_CLOSED, ANSWER_NONE };

/*
 * Reads one message within timeout_ms: a reply or an ack is ANSWER_OK, an
 * error ANSWER_ERROR (with its text in text, errno in *error), the
 * connection's end ANSWER_CLOSED.
 */
static enum answer read_answer(int fd, int timeout_ms, char *text, size_t textlen, int *error)
{
	char buf[WB_CTL_MSG_MAX] __attribute__((aligned(4)));
	struct pollfd p = { .fd = fd, .events = POLLIN };
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	const char *msg = "";
	ssize_t n;

	*error = 0;
	if (textlen)
		text[0] = '\0';
	if (poll(&p, 1, timeout_ms) <= 0)
		return ANSWER_NONE;
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	/*
	 * A daemon that closes a connection with our request still unread in it
	 * makes the kernel report ECONNRESET first, once: the refusal it sent
	 * before is still queued behind that error.
	 */
	if (n < 0 && errno == ECONNRESET)
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n <= 0)
		return ANSWER_CLOSED;
	if ((size_t)n < sizeof(*nlh) || nlh->nlmsg_type != NLMSG_ERROR)
		return ANSWER_OK;
	if (wb_ctl_read_error(nlh, (size_t)n, error, &msg))
		return ANSWER_ERROR;
	snprintf(text, textlen, "%s", msg);
	return *error ? ANSWER_ERROR : ANSWER_OK;
}

/* ---- hold --------------------------------------------------------------------------- */

struct held {
	int fd;
	long long answered_ms; /* its last answer */
};

/* Opens n connections; keeps those the daemon answers. Returns how many are kept. */
static int open_all(const char *path, int n, uint8_t cmd, struct held *kept)
{
	char text[256], first[384] = "";
	int k = 0, refused = 0, error;

	for (int i = 0; i < n; i++) {
		int fd = connect_to(path);
		enum answer a;

		ask(fd, cmd);
		a = read_answer(fd, ANSWER_TIMEOUT_MS, text, sizeof(text), &error);
		if (a == ANSWER_OK) {
			kept[k++] = (struct held){ .fd = fd, .answered_ms = now_ms() };
			continue;
		}
		if (!refused++)
			snprintf(first, sizeof(first), "%s%s%s", a == ANSWER_ERROR ? strerror(-error) : "closed",
				 text[0] ? ": " : "", a == ANSWER_NONE ? "no answer" : text);
		close(fd);
	}
	printf("kept %d refused %d\n", k, refused);
	if (refused)
		printf("refusal: %s\n", first);
	return k;
}

/* Reads what came on h: a message (an event, a reply, a notice) or the end, which it reports. false at the end. */
static bool take(struct held *h)
{
	char text[256];
	int error;
	enum answer a = read_answer(h->fd, 0, text, sizeof(text), &error);

	if (a == ANSWER_CLOSED) {
		printf("closed after %lld ms\n", now_ms() - h->answered_ms);
		close(h->fd);
		return false;
	}
	if (a == ANSWER_ERROR)
		printf("notice: %s: %s\n", strerror(-error), text);
	else if (a == ANSWER_OK)
		h->answered_ms = now_ms();
	return true;
}

static int hold(const char *path, int n, bool monitor, int every_ms)
{
	struct held kept[MAX_CONNS];
	struct pollfd p[MAX_CONNS];
	long long deadline = now_ms() + HOLD_MAX_SECS * 1000LL, next_ask = now_ms() + every_ms;
	int k = open_all(path, n, monitor ? WB_CTL_CMD_MONITOR : WB_CTL_CMD_GET_BOND, kept);

	while (k > 0 && now_ms() < deadline) {
		int live = 0, wait_ms = every_ms ? (int)(next_ask - now_ms()) : 1000;

		for (int i = 0; i < k; i++)
			p[i] = (struct pollfd){ .fd = kept[i].fd, .events = POLLIN };
		if (poll(p, (nfds_t)k, wait_ms < 0 ? 0 : wait_ms) < 0 && errno != EINTR)
			die("poll");
		for (int i = 0; i < k; i++)
			if (!p[i].revents || take(&kept[i]))
				kept[live++] = kept[i];
		k = live;
		if (every_ms && now_ms() >= next_ask) {
			for (int i = 0; i < k; i++)
				ask(kept[i].fd, WB_CTL_CMD_GET_BOND);
			next_ask = now_ms() + every_ms;
		}
	}
	if (k > 0)
		return 1;
	printf("all closed\n");
	return 0;
}

/* ---- orphan -------------------------------------------------------------------------- */

static int orphan(const char *path, const char *fifo, bool queued)
{
	char text[256], byte;
	int fd = connect_to(path), error, go;
	pid_t child;

	if (!queued) {
		ask(fd, WB_CTL_CMD_GET_BOND);
		if (read_answer(fd, ANSWER_TIMEOUT_MS, text, sizeof(text), &error) != ANSWER_OK) {
			fprintf(stderr, "ctl_peer: get-bond was not answered\n");
			return 1;
		}
	}
	child = fork();
	if (child < 0)
		die("fork");
	if (child) {
		printf("connector %d\n", (int)getpid());
		return 0;
	}
	go = open(fifo, O_RDONLY | O_CLOEXEC); /* until the test opens it for writing */
	if (go < 0)
		die(fifo);
	if (read(go, &byte, 1) < 0)
		die(fifo);
	close(go);
	ask(fd, WB_CTL_CMD_RESET_COUNTERS);
	switch (read_answer(fd, ANSWER_TIMEOUT_MS, text, sizeof(text), &error)) {
	case ANSWER_OK:
		printf("change: ok\n");
		break;
	case ANSWER_ERROR:
		printf("change: refused: %s: %s\n", strerror(-error), text);
		break;
	default:
		printf("change: no answer\n");
	}
	return 0;
}

static int number(const char *s, int min, int max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < min || v > max)
		usage();
	return (int)v;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "orphan")) {
		if (argc == 5 && strcmp(argv[4], "queued"))
			usage();
		return orphan(argv[2], argv[3], argc == 5);
	}
	if (argc >= 4 && !strcmp(argv[1], "hold")) {
		bool monitor = false;
		int every_ms = 0;

		for (int i = 4; i < argc; i++) {
			if (!strcmp(argv[i], "monitor"))
				monitor = true;
			else if (!strcmp(argv[i], "every") && i + 1 < argc)
				every_ms = number(argv[++i], 1, 60000);
			else
				usage();
		}
		return hold(argv[2], number(argv[3], 1, MAX_CONNS), monitor, every_ms);
	}
	usage();
	return 2;
}
