// SPDX-License-Identifier: MIT
#include "notify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* Compiled outside the Makefile (the fuzz build, say): the build without libsystemd. */
#ifndef WB_HAVE_SYSTEMD
#define WB_HAVE_SYSTEMD 0
#endif

#if WB_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#else
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#endif

/* Longer messages are cut: a status line is for a human reading `systemctl status`. */
#define NOTIFY_MSG_MAX 512

/*
 * Process-wide, like the log level: there is one service manager per
 * process, and the daemon's context need not carry it.
 */
static struct {
	bool warned; /* an error was logged: the next ones are not, a watchdog tick would repeat them */
#if !WB_HAVE_SYSTEMD
	bool read;          /* NOTIFY_SOCKET has been read */
	socklen_t addr_len; /* 0: nothing to notify */
	struct sockaddr_un addr;
#endif
} notify;

static void warn_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void warn_once(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (notify.warned)
		return;
	notify.warned = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_line(LOG_LVL_WARNING, NULL, NULL, "service manager: %s (further errors not logged)", msg);
}

/* For the log: the environment may have changed since (a library, a test). */
static const char *socket_name(void)
{
	const char *env = getenv("NOTIFY_SOCKET");

	return env ? env : "NOTIFY_SOCKET (now unset)";
}

static uint64_t usec_to_ns(uint64_t usec)
{
	if (usec > UINT64_MAX / 1000) {
		warn_once("watchdog interval of %" PRIu64 " us out of range; no watchdog", usec);
		return 0;
	}
	return usec * 1000;
}

#if WB_HAVE_SYSTEMD

static uint64_t watchdog_usec(void)
{
	uint64_t usec = 0;
	/* 0: leave NOTIFY_SOCKET and WATCHDOG_* set, for the notifications to come and for a re-exec. */
	int r = sd_watchdog_enabled(0, &usec);

	if (r < 0)
		warn_once("WATCHDOG_USEC or WATCHDOG_PID: %s", strerror(-r));
	return r > 0 ? usec : 0;
}

static void notify_send(const char *msg)
{
	int r = sd_notify(0, msg);

	if (r < 0)
		warn_once("cannot notify %s: %s", socket_name(), strerror(-r));
}

#else /* !WB_HAVE_SYSTEMD */

/*
 * The address in NOTIFY_SOCKET: a path, or "@name" for the abstract namespace
 * (sd_notify accepts both; some service managers hand out the latter). Anything else
 * (systemd's "vsock:" addresses, say) is not supported without libsystemd.
 */
static void read_socket(void)
{
	const char *env;
	size_t n;

	if (notify.read)
		return;
	notify.read = true;
	env = getenv("NOTIFY_SOCKET");
	n = env ? strlen(env) : 0;
	if (!n)
		return;
	if (env[0] == '@' && n >= 2 && n <= sizeof(notify.addr.sun_path)) {
		/* Abstract: a NUL, then the name's bytes, and no terminating NUL. */
		memcpy(notify.addr.sun_path + 1, env + 1, n - 1);
		notify.addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else if (env[0] == '/' && n < sizeof(notify.addr.sun_path)) {
		memcpy(notify.addr.sun_path, env, n + 1);
		notify.addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	} else {
		warn_once("NOTIFY_SOCKET=%s: not a socket path or an abstract @name", env);
		return;
	}
	notify.addr.sun_family = AF_UNIX;
}

/* A decimal number and nothing else, as systemd writes WATCHDOG_USEC and WATCHDOG_PID. */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

/* What sd_watchdog_enabled does: the interval, unless WATCHDOG_PID names another process. */
static uint64_t watchdog_usec(void)
{
	const char *usec_env = getenv("WATCHDOG_USEC"), *pid_env = getenv("WATCHDOG_PID");
	uint64_t usec, pid;

	if (!usec_env)
		return 0;
	if (parse_u64(usec_env, &usec) || !usec) {
		warn_once("WATCHDOG_USEC=%s: not a positive number; no watchdog", usec_env);
		return 0;
	}
	if (!pid_env)
		return usec;
	if (parse_u64(pid_env, &pid)) {
		warn_once("WATCHDOG_PID=%s: not a number; no watchdog", pid_env);
		return 0;
	}
	/* The watchdog was meant for the process that started us (a wrapper script, say). */
	return pid == (uint64_t)getpid() ? usec : 0;
}

/*
 * A socket per message, as sd_notify does: messages are rare (the watchdog's,
 * a few times per interval), and nothing stays open across a fork or exec.
 * Blocking, as sd_notify: systemd reads its socket all the time.
 */
static void notify_send(const char *msg)
{
	int fd, err = 0;

	read_socket();
	if (!notify.addr_len)
		return;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		warn_once("cannot notify %s: socket: %s", socket_name(), strerror(errno));
		return;
	}
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (const struct sockaddr *)&notify.addr, notify.addr_len) < 0)
		err = errno;
	close(fd);
	if (err)
		warn_once("cannot notify %s: %s", socket_name(), strerror(err));
}

#endif /* WB_HAVE_SYSTEMD */

static void notify_sendf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void notify_sendf(const char *fmt, ...)
{
	char msg[NOTIFY_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	notify_send(msg);
}

/*
 * A message is lines of VARIABLE=value: a newline in a status text (an
 * interface name, a config error) would start another assignment, so it
 * becomes a space.
 */
static void one_line(char *text)
{
	for (; *text; text++)
		if (*text == '\n' || *text == '\r')
			*text = ' ';
}

uint64_t notify_init(void)
{
#if !WB_HAVE_SYSTEMD
	read_socket();
#endif
	return usec_to_ns(watchdog_usec());
}

void notify_ready(const char *status)
{
	char text[NOTIFY_MSG_MAX];

	if (!status) {
		notify_send("READY=1");
		return;
	}
	snprintf(text, sizeof(text), "%s", status);
	one_line(text);
	notify_sendf("READY=1\nSTATUS=%s", text);
}

/* MONOTONIC_USEC: systemd (253 and later) uses it to tell this reload from an earlier one. */
void notify_reloading(uint64_t monotonic_usec)
{
	notify_sendf("RELOADING=1\nMONOTONIC_USEC=%" PRIu64, monotonic_usec);
}

void notify_stopping(void)
{
	notify_send("STOPPING=1");
}

void notify_status(const char *fmt, ...)
{
	char text[NOTIFY_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	one_line(text);
	notify_sendf("STATUS=%s", text);
}

void notify_watchdog(void)
{
	notify_send("WATCHDOG=1");
}
