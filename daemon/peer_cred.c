// SPDX-License-Identifier: MIT
/* A control peer's uid and privilege, judged through a pidfd (peer_cred.h). */
#define _GNU_SOURCE /* struct ucred */
#include "peer_cred.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

/*
 * Debian 12's kernel headers (6.1) predate SO_PEERPIDFD. Its number is 77
 * in asm-generic/socket.h and in alpha's and mips' own; parisc and sparc
 * number their socket options apart.
 */
#ifndef SO_PEERPIDFD
#if defined(__hppa__)
#define SO_PEERPIDFD 0x404B
#elif defined(__sparc__)
#define SO_PEERPIDFD 0x0056
#else
#define SO_PEERPIDFD 77
#endif
#endif

/* /proc/PID/status is under 2 KB; a pidfd's fdinfo a few lines. */
#define PROC_TEXT_MAX 4096

/* ---- reading /proc ------------------------------------------------------------------ */

/* The text after "NAME:" on the line of text that starts with it; NULL if none does. */
static const char *field(const char *text, const char *name)
{
	size_t len = strlen(name);
	const char *line = text;

	while (line && *line) {
		if (!strncmp(line, name, len) && line[len] == ':')
			return line + len + 1;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

/* Whether a number ended at end: at the end of its line, or of the text. */
static bool ends_line(const char *end)
{
	while (*end == ' ' || *end == '\t')
		end++;
	return *end == '\n' || *end == '\0';
}

bool peer_status_hex(const char *text, const char *name, uint64_t *out)
{
	const char *value = field(text, name);
	char *end;
	unsigned long long v;

	if (!value)
		return false;
	value += strspn(value, " \t");
	if (!isxdigit((unsigned char)*value))
		return false; /* strtoull would take a sign, or nothing */
	errno = 0;
	v = strtoull(value, &end, 16);
	if (errno || !ends_line(end))
		return false;
	*out = v;
	return true;
}

bool peer_fdinfo_pid(const char *text, long *out)
{
	const char *value = field(text, "Pid");
	char *end;
	long v;

	if (!value)
		return false;
	errno = 0;
	v = strtol(value, &end, 10);
	if (end == value || errno || !ends_line(end) || v < -1)
		return false;
	*out = v;
	return true;
}

/* The contents of path (relative to dirfd) as a string, at most size - 1 bytes. 0 or -errno. */
static int read_text(int dirfd, const char *path, char *buf, size_t size)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	size_t total = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -errno;
	while (total < size - 1 && (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += (size_t)n;
	if (n < 0)
		n = -errno;
	close(fd);
	buf[total] = '\0';
	return n < 0 ? (int)n : 0;
}

/*
 * Whether the process that /proc/PID shows now is in our user namespace
 * and holds cap in its effective set; why says what was found. Its
 * capabilities mean something here only in our namespace: a process in a
 * user namespace of its own has every capability there and none here.
 * Everything is read through one descriptor of /proc/PID, which goes on
 * naming that process, not a successor, if it exits meanwhile.
 */
static bool holds_capability(pid_t pid, int cap, const char **why)
{
	char path[32], status[PROC_TEXT_MAX];
	struct stat ours, theirs;
	uint64_t eff = 0;
	bool found = false;
	int dir;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		*why = "its /proc entry cannot be opened";
		return false;
	}
	if (stat("/proc/self/ns/user", &ours) || fstatat(dir, "ns/user", &theirs, 0))
		*why = "its user namespace cannot be read"; /* without CAP_SYS_PTRACE, another uid's */
	else if (ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino)
		*why = "it is in another user namespace";
	else if (read_text(dir, "status", status, sizeof(status)) || !peer_status_hex(status, "CapEff", &eff))
		*why = "its capabilities cannot be read";
	else
		found = true;
	close(dir);
	if (found)
		*why = (eff >> cap) & 1 ? "CAP_NET_ADMIN" : "no CAP_NET_ADMIN";
	return found && (eff >> cap) & 1;
}

/* ---- the pidfd ---------------------------------------------------------------------- */

/*
 * A pidfd of the peer of socket fd, and whether it came from the socket
 * (SO_PEERPIDFD) or from pid (pidfd_open, on a kernel without
 * SO_PEERPIDFD). -errno if there is none.
 */
static int peer_pidfd(int fd, pid_t pid, bool *from_socket)
{
	int pidfd = -1;
	socklen_t len = sizeof(pidfd);

	*from_socket = true;
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len))
		return pidfd;
	/*
	 * Only a kernel that does not know the option falls back to the pid:
	 * any other error (ESRCH, EINVAL) says the peer is gone, and whoever
	 * has its pid now is not it.
	 */
	if (errno != ENOPROTOOPT)
		return -errno;
	*from_socket = false;
	if (pid <= 0)
		return -ESRCH;
#ifdef SYS_pidfd_open
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return pidfd < 0 ? -errno : pidfd;
#else
	return -ENOSYS;
#endif
}

/* The pid of pidfd's process in our pid namespace, from its fdinfo: -1 once it has exited, 0 if unknown. */
static long pidfd_pid(int pidfd)
{
	char path[48], text[PROC_TEXT_MAX];
	long pid;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if (read_text(AT_FDCWD, path, text, sizeof(text)) || !peer_fdinfo_pid(text, &pid))
		return 0;
	return pid;
}

/* Whether pidfd's process still lives (a zombie too: it keeps its pid until it is reaped). */
static bool pidfd_alive(int pidfd)
{
#ifdef SYS_pidfd_send_signal
	/* Signal 0 only asks; EPERM says the process is there but not ours to signal. */
	return !syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) || errno == EPERM;
#else
	(void)pidfd;
	return false;
#endif
}

/* ---- judging -------------------------------------------------------------------------- */

/* Whether the peer holds CAP_NET_ADMIN here, read through its pidfd; why says what was found. */
static bool peer_has_net_admin(int fd, pid_t cred_pid, const char **why)
{
	bool from_socket, has = false;
	int pidfd = peer_pidfd(fd, cred_pid, &from_socket);
	long pid;

	if (pidfd < 0) {
		if (pidfd == -ESRCH || pidfd == -EINVAL)
			*why = "it has exited";
		else if (pidfd == -ENOSYS)
			*why = "no pidfd on this system";
		else
			*why = "no pidfd of it could be had";
		return false;
	}
	pid = from_socket ? pidfd_pid(pidfd) : cred_pid;
	if (pid < 0)
		*why = "it has exited";
	else if (pid == 0)
		*why = "its pid is not known in our pid namespace";
	else if ((has = holds_capability((pid_t)pid, CAP_NET_ADMIN, why)) && !pidfd_alive(pidfd)) {
		has = false;
		*why = "it exited as it was judged";
	}
	close(pidfd);
	return has;
}

void peer_cred_judge(int fd, struct peer_cred *out)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	*out = (struct peer_cred){ .uid = (uid_t)-1, .why = "no SO_PEERCRED" };
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return;
	out->uid = cred.uid;
	out->pid = cred.pid;
	if (cred.uid == 0) {
		/* Fixed when it connected, and translated into our namespace: a pid plays no part. */
		out->privileged = true;
		out->why = "uid 0";
		return;
	}
	out->privileged = peer_has_net_admin(fd, cred.pid, &out->why);
}
