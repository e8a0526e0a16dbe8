// SPDX-License-Identifier: MIT
/*
 * syscall_filter: runs a command under an allow list of system calls, as
 * systemd runs a service with SystemCallFilter= and SystemCallErrorNumber=EPERM,
 * for a test on a machine where no systemd runs (tests/netns/test_systemd.sh).
 *
 *   syscall_filter LOG NR[,NR...] -- CMD [ARG...]
 *
 * The child runs CMD with no_new_privs and a seccomp filter: a call whose
 * number is in the list goes through; any other (or one of another
 * architecture) fails with EPERM, as under systemd, and its number is
 * appended to LOG as "refused NR arch 0xARCH": the filter hands it to this
 * process (SECCOMP_RET_USER_NOTIF), which answers EPERM and writes the line.
 * This process stays CMD's parent: it passes on SIGTERM, SIGINT, SIGHUP,
 * SIGUSR1 and SIGUSR2 to CMD, and exits as CMD did (128 + N for a signal).
 *
 * The child itself calls sendmsg, close and execve (and exit_group when
 * execve fails) once its filter is in place: the list must have them.
 * Exit 125 on a usage or system error, 127 if CMD could not be run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define NATIVE_ARCH AUDIT_ARCH_I386
#endif

#define MAX_CALLS 1024

static pid_t child = -1;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static void die(const char *what)
{
	fprintf(stderr, "syscall_filter: %s: %s\n", what, strerror(errno));
	exit(125);
}

static bool listed(const long *nrs, size_t n, long nr)
{
	for (size_t i = 0; i < n; i++)
		if (nrs[i] == nr)
			return true;
	return false;
}

/* The filter: each listed number allowed, everything else to the listener. */
static int install_filter(const long *nrs, size_t n)
{
	static struct sock_filter prog[2 * MAX_CALLS + 8];
	struct sock_fprog fprog = { 0 };
	size_t k = 0;

#ifdef NATIVE_ARCH
	prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
	prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
#endif
	prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < n; i++) {
		/* Equal: the next instruction, allow; else skip it. */
		prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[i], 0, 1);
		prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	fprog.len = (unsigned short)k;
	fprog.filter = prog;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
}

static void send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 'L';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		_exit(125);
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t got;
	int fd = -1;

	while ((got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (got != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * Answers every refused call with EPERM, logging it, until the child has
 * exited. Its pidfd says so: the listener's POLLHUP would come only once it
 * is reaped, which is this process's to do after.
 */
static void supervise(int listener, int pidfd, int log)
{
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes))
		die("SECCOMP_GET_NOTIF_SIZES");
	req = malloc(sizes.seccomp_notif > sizeof(*req) ? sizes.seccomp_notif : sizeof(*req));
	resp = malloc(sizes.seccomp_notif_resp > sizeof(*resp) ? sizes.seccomp_notif_resp : sizeof(*resp));
	if (!req || !resp)
		die("malloc");
	for (;;) {
		struct pollfd p[2] = { { .fd = listener, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (p[0].revents & POLLIN) {
			memset(req, 0, sizes.seccomp_notif);
			if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req)) {
				if (errno == EINTR || errno == ENOENT)
					continue;
				die("SECCOMP_IOCTL_NOTIF_RECV");
			}
			dprintf(log, "refused %d arch %#x\n", req->data.nr, req->data.arch);
			memset(resp, 0, sizes.seccomp_notif_resp);
			resp->id = req->id;
			resp->error = -EPERM;
			/* ENOENT: the caller was killed meanwhile. */
			if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) && errno != ENOENT)
				die("SECCOMP_IOCTL_NOTIF_SEND");
		} else if (p[0].revents & (POLLHUP | POLLERR) || p[1].revents) {
			break;
		}
	}
	free(req);
	free(resp);
}

int main(int argc, char **argv)
{
	static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2 };
	static long nrs[MAX_CALLS];
	size_t n = 0;
	int sv[2], listener, pidfd, log, status;
	char *list, *tok, *save = NULL;

	if (argc < 5 || strcmp(argv[3], "--")) {
		fputs("usage: syscall_filter LOG NR[,NR...] -- CMD [ARG...]\n", stderr);
		return 125;
	}
	list = argv[2];
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long nr = strtol(tok, &end, 10);

		if (*end || nr < 0 || n == MAX_CALLS) {
			fprintf(stderr, "syscall_filter: not a system call number: %s\n", tok);
			return 125;
		}
		nrs[n++] = nr;
	}
	if (!listed(nrs, n, SYS_sendmsg) || !listed(nrs, n, SYS_close) || !listed(nrs, n, SYS_execve) ||
	    !listed(nrs, n, SYS_exit_group)) {
		fputs("syscall_filter: the list must allow sendmsg, close, execve and exit_group\n", stderr);
		return 125;
	}
	log = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log < 0)
		die(argv[1]);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		die("socketpair");

	/* Passed on from the fork on (one that comes before it is dropped); the child takes the defaults back. */
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		struct sigaction sa = { .sa_handler = forward };
		sigaction(forwarded[i], &sa, NULL);
	}
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
			signal(forwarded[i], SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		listener = install_filter(nrs, n);
		if (listener < 0) {
			fprintf(stderr, "syscall_filter: seccomp: %s\n", strerror(errno));
			_exit(125);
		}
		send_fd(sv[1], listener);
		close(listener);
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	close(sv[1]);
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	if (pidfd < 0)
		die("pidfd_open");
	listener = recv_fd(sv[0]);
	close(sv[0]);
	if (listener < 0) {
		waitpid(child, &status, 0);
		fputs("syscall_filter: the child sent no listener\n", stderr);
		return 125;
	}
	supervise(listener, pidfd, log);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
