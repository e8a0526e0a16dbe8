/* SPDX-License-Identifier: MIT */
/*
 * The process at the other end of a control connection, judged once, as
 * the connection is accepted, from what the kernel recorded when it
 * connected: its uid and gid (SO_PEERCRED) and its supplementary groups
 * (SO_PEERGROUPS), as our user namespace sees them. It may change things
 * when its uid was 0, or when the administrators' group (control.admin_group)
 * was its group or one of its groups.
 *
 * Nothing is read from /proc: a pid names whatever process has it now,
 * and the process that connected may have handed its socket to a child
 * and exec'd a setuid program since (reading its capabilities then judged
 * a reader to be root). The credentials of the connect stay what they were.
 */
#ifndef WB_DAEMON_PEER_CRED_H
#define WB_DAEMON_PEER_CRED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PEER_NO_GROUP ((gid_t)-1)

struct peer_cred {
	uid_t uid;       /* (uid_t)-1: unknown */
	pid_t pid;       /* SO_PEERCRED's, for the log only; 0 when unknown or outside our pid namespace */
	bool privileged; /* may change things; decided here, for the life of the connection */
	const char *why; /* how it was judged, for the log: "uid 0", "in the admin group", ... */
};

/*
 * Judges the peer of the connected AF_UNIX socket fd; admin_gid is
 * control.admin_group's gid, PEER_NO_GROUP if none is set. A peer that
 * cannot be judged is unprivileged.
 */
void peer_cred_judge(int fd, gid_t admin_gid, struct peer_cred *out);

/* Whether gid is admin_gid or one of the n groups (false when admin_gid is PEER_NO_GROUP). */
bool peer_in_group(gid_t admin_gid, gid_t gid, const gid_t *groups, size_t n);

#endif
