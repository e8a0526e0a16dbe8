/* SPDX-License-Identifier: MIT */
/*
 * The process at the other end of a control connection, judged once, as
 * the connection is accepted: its uid (SO_PEERCRED, as our user namespace
 * sees it) and whether it is privileged, that is uid 0, or CAP_NET_ADMIN
 * in its effective set in our user namespace.
 *
 * SO_PEERCRED gives no capabilities; /proc/PID/status does. But a pid
 * names a process only while that process lives: the peer may have
 * exited, its socket kept by a child, and its pid been taken by another
 * process, root's say. So the peer is held by a pidfd, which names the
 * process and never its successor: SO_PEERPIDFD (Linux 6.5) gives one of
 * the process that connected. /proc is read by the pid the pidfd has now
 * (its fdinfo), and after the reading the pidfd is asked whether its
 * process still lives (pidfd_send_signal with signal 0): if it does, the
 * pid was its own all along, so what was read was the peer's.
 *
 * A kernel without SO_PEERPIDFD gets a pidfd from SO_PEERCRED's pid
 * (pidfd_open) when the connection is accepted, with the same check after
 * the reading. That leaves the pid's reuse between the peer's connect and
 * our accept unseen; the daemon accepts as soon as the loop runs, so the
 * window is that of a busy loop, not that of a connection's life.
 */
#ifndef WB_DAEMON_PEER_CRED_H
#define WB_DAEMON_PEER_CRED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct peer_cred {
	uid_t uid;       /* (uid_t)-1: unknown */
	pid_t pid;       /* SO_PEERCRED's; 0 when unknown or outside our pid namespace */
	bool privileged; /* may change things; decided here, for the life of the connection */
	const char *why; /* how it was judged, for the log: "uid 0", "CAP_NET_ADMIN", "no CAP_NET_ADMIN", ... */
};

/* Judges the peer of the connected AF_UNIX socket fd. A peer that cannot be judged is unprivileged. */
void peer_cred_judge(int fd, struct peer_cred *out);

/*
 * In text, the contents of a /proc/PID/status: the hexadecimal value of
 * the line "NAME:\tHEX" (CapEff, say) in out. false if there is none.
 */
bool peer_status_hex(const char *text, const char *name, uint64_t *out);

/*
 * In text, the contents of a pidfd's /proc/self/fdinfo/N: its "Pid:"
 * (-1 once the process has exited, 0 outside our pid namespace). false if
 * there is none (a kernel that does not show it).
 */
bool peer_fdinfo_pid(const char *text, long *out);

#endif
