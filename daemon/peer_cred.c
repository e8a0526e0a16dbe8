// SPDX-License-Identifier: MIT
/* A control peer's uid and privilege, from its credentials at connect time (peer_cred.h). */
#define _GNU_SOURCE /* struct ucred */
#include "peer_cred.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

/*
 * Debian 12's libc headers know SO_PEERGROUPS (Linux 4.13); a libc that
 * does not gets its number: 59 in asm-generic/socket.h and in alpha's and
 * mips' own; parisc and sparc number their socket options apart.
 */
#ifndef SO_PEERGROUPS
#if defined(__hppa__)
#define SO_PEERGROUPS 0x4034
#elif defined(__sparc__)
#define SO_PEERGROUPS 0x003d
#else
#define SO_PEERGROUPS 59
#endif
#endif

/* A process may be in NGROUPS_MAX (65536) groups; a first try with this many does for nearly all. */
#define GROUPS_FIRST_TRY 64

bool peer_in_group(gid_t admin_gid, gid_t gid, const gid_t *groups, size_t n)
{
	if (admin_gid == PEER_NO_GROUP)
		return false;
	if (gid == admin_gid)
		return true;
	for (size_t i = 0; i < n; i++)
		if (groups[i] == admin_gid)
			return true;
	return false;
}

/*
 * Whether the peer's supplementary groups at connect time include
 * admin_gid. SO_PEERGROUPS says how much room it needs (ERANGE) when the
 * first buffer is too small.
 */
static bool peer_groups_include(int fd, gid_t admin_gid)
{
	gid_t first[GROUPS_FIRST_TRY], *groups = first;
	socklen_t len = sizeof(first);
	bool in = false;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len)) {
		if (errno != ERANGE || !(groups = malloc(len)))
			return false;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len)) {
			free(groups);
			return false;
		}
	}
	in = peer_in_group(admin_gid, PEER_NO_GROUP, groups, len / sizeof(gid_t));
	if (groups != first)
		free(groups);
	return in;
}

void peer_cred_judge(int fd, gid_t admin_gid, struct peer_cred *out)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	*out = (struct peer_cred){ .uid = (uid_t)-1, .why = "no SO_PEERCRED" };
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return;
	out->uid = cred.uid;
	out->pid = cred.pid;
	if (cred.uid == 0) {
		/* Fixed when it connected, and translated into our namespace. */
		out->privileged = true;
		out->why = "uid 0";
	} else if (peer_in_group(admin_gid, cred.gid, NULL, 0) || peer_groups_include(fd, admin_gid)) {
		out->privileged = true;
		out->why = "in control.admin_group";
	} else {
		out->why = admin_gid == PEER_NO_GROUP ? "not root" : "not root, not in control.admin_group";
	}
}
