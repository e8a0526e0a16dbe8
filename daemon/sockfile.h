/* SPDX-License-Identifier: MIT */
/*
 * The file of a listening AF_UNIX socket, DIRECTORY/NAME: a stale one
 * cleared, the new one bound, given its group and mode, and removed at the
 * end, without following a symlink and without touching any file that is
 * not the socket bound.
 *
 * The directory is opened once (O_DIRECTORY | O_NOFOLLOW) and checked: it
 * must be root's or the daemon's user's, and writable by no one else
 * unless it is sticky. Whoever may rename entries in it could otherwise
 * put a hard link to another file, or a symlink, in the socket's place
 * between any check and the chown, chmod or unlink after it, and no flag
 * of those calls would notice a hard link. In a sticky directory others
 * cannot rename or remove our file, only make files of their own, which
 * are refused. Everything after that is done relative to the directory's
 * descriptor, each name checked first with fstatat(AT_SYMLINK_NOFOLLOW),
 * and the changes made with AT_SYMLINK_NOFOLLOW too.
 */
#ifndef WB_DAEMON_SOCKFILE_H
#define WB_DAEMON_SOCKFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/un.h>

struct sockfile {
	int dirfd; /* -1 when closed */
	char name[64];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* DIRECTORY/NAME, as bind and connect take it */
	bool bound;                                             /* dev and ino are those of the file bound */
	dev_t dev;
	ino_t ino;
};

/*
 * Opens dir (made, mode 0755, if missing; its parent must exist) and
 * checks it, for the file name in it. 0, or -errno with what is wrong in
 * err; either way sockfile_close cleans up.
 */
int sockfile_open(struct sockfile *sf, const char *dir, const char *name, char *err, size_t errlen);

/*
 * Removes the file of a socket of ours that nothing answers on (a daemon
 * that died). 0 if the name is free now; -EADDRINUSE if a socket answers
 * there; -EEXIST if it is anything else (a file, a symlink, a socket of
 * another user): left alone, with err saying what it is.
 */
int sockfile_clear_stale(struct sockfile *sf, int type, char *err, size_t errlen);

/*
 * Binds socket fd to the file, mode 0600 whatever the umask: ours alone
 * until sockfile_share. 0 or -errno, with err.
 */
int sockfile_bind(struct sockfile *sf, int fd, char *err, size_t errlen);

/* Gives the bound file to group gid, with mode (0660, say). 0 or -errno, with err. */
int sockfile_share(struct sockfile *sf, gid_t gid, mode_t mode, char *err, size_t errlen);

/* Removes the file if it is still the one bound, and closes the directory. */
void sockfile_close(struct sockfile *sf);

#endif
