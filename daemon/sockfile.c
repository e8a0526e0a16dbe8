// SPDX-License-Identifier: MIT
/* A listening AF_UNIX socket's file, made and removed without following a symlink (sockfile.h). */
#include "sockfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static void say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static const char *kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISLNK(mode))
		return "a symlink";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	return "a device";
}

static bool is_symlink(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISLNK(st.st_mode);
}

/*
 * 0 if st, the directory dir, is root's or ours and no one else may rename
 * or remove entries in it (not writable by others, or sticky); -EPERM with
 * why in err otherwise.
 */
static int check_directory(const struct stat *st, const char *dir, char *err, size_t errlen)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		say(err, errlen, "%s is owned by uid %u: the directory must be root's or the daemon's user's", dir,
		    (unsigned)st->st_uid);
		return -EPERM;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX)) {
		say(err, errlen,
		    "%s may be written by its group or by others (mode %04o) and is not sticky: they could put another "
		    "file in the socket's place",
		    dir, (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int sockfile_open(struct sockfile *sf, const char *dir, const char *name, char *err, size_t errlen)
{
	struct stat st;
	int rc;

	*sf = (struct sockfile){ .dirfd = -1 };
	if (snprintf(sf->name, sizeof(sf->name), "%s", name) >= (int)sizeof(sf->name) ||
	    snprintf(sf->path, sizeof(sf->path), "%s/%s", dir, name) >= (int)sizeof(sf->path)) {
		say(err, errlen, "%s/%s: too long for a socket's path", dir, name);
		return -ENAMETOOLONG;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		rc = -errno;
		say(err, errlen, "%s: cannot make the directory: %s", dir, strerror(-rc));
		return rc;
	}
	sf->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sf->dirfd < 0) {
		rc = -errno;
		if (is_symlink(dir)) { /* O_DIRECTORY's ENOTDIR, or O_NOFOLLOW's ELOOP */
			say(err, errlen, "%s: a symlink: the directory itself must be named", dir);
			return -ELOOP;
		}
		say(err, errlen, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	if (fstat(sf->dirfd, &st)) {
		rc = -errno;
		say(err, errlen, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	return check_directory(&st, dir, err, errlen);
}

/* Whether a socket of type listens at path. */
static bool answers(const char *path, int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return false;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return !rc;
}

int sockfile_clear_stale(struct sockfile *sf, int type, char *err, size_t errlen)
{
	struct stat st;
	int rc;

	if (fstatat(sf->dirfd, sf->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		say(err, errlen, "%s: %s", sf->path, strerror(-rc));
		return rc;
	}
	if (!S_ISSOCK(st.st_mode)) {
		say(err, errlen, "%s is %s, not a socket: left alone", sf->path, kind(st.st_mode));
		return -EEXIST;
	}
	if (st.st_uid != geteuid()) {
		say(err, errlen, "%s is a socket of uid %u, not ours: left alone", sf->path, (unsigned)st.st_uid);
		return -EEXIST;
	}
	if (answers(sf->path, type)) {
		say(err, errlen, "%s: in use: a process answers on it", sf->path);
		return -EADDRINUSE;
	}
	/* No one can have changed the name since fstatat: the directory is ours alone, or sticky. */
	if (unlinkat(sf->dirfd, sf->name, 0)) {
		rc = -errno;
		say(err, errlen, "%s: cannot remove the stale socket: %s", sf->path, strerror(-rc));
		return rc;
	}
	return 0;
}

/* 0 if the name is still the socket bound, -ESTALE if anything else is there, or nothing. */
static int still_bound(const struct sockfile *sf)
{
	struct stat st;

	if (!sf->bound || fstatat(sf->dirfd, sf->name, &st, AT_SYMLINK_NOFOLLOW))
		return -ESTALE;
	return S_ISSOCK(st.st_mode) && st.st_dev == sf->dev && st.st_ino == sf->ino ? 0 : -ESTALE;
}

int sockfile_bind(struct sockfile *sf, int fd, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old_mask;
	int rc;

	memcpy(sa.sun_path, sf->path, sizeof(sa.sun_path));
	old_mask = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old_mask);
	if (rc) {
		say(err, errlen, "%s: %s", sf->path, strerror(-rc));
		return rc;
	}
	/* bind took the path anew: what it made must be in the directory that was checked. */
	if (fstatat(sf->dirfd, sf->name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
		say(err, errlen, "%s: the socket bound is not in the directory checked (did the path change?)", sf->path);
		return -ESTALE;
	}
	sf->bound = true;
	sf->dev = st.st_dev;
	sf->ino = st.st_ino;
	return 0;
}

int sockfile_share(struct sockfile *sf, gid_t gid, mode_t mode, char *err, size_t errlen)
{
	int rc = still_bound(sf);

	if (rc) {
		say(err, errlen, "%s: no longer the socket bound: its group and mode are not set", sf->path);
		return rc;
	}
	if (fchownat(sf->dirfd, sf->name, (uid_t)-1, gid, AT_SYMLINK_NOFOLLOW)) {
		rc = -errno;
		say(err, errlen, "%s: cannot give it to group %u: %s", sf->path, (unsigned)gid, strerror(-rc));
		return rc;
	}
	if (fchmodat(sf->dirfd, sf->name, mode, AT_SYMLINK_NOFOLLOW)) {
		rc = -errno;
		say(err, errlen, "%s: cannot set its mode to %04o: %s", sf->path, (unsigned)mode, strerror(-rc));
		return rc;
	}
	return 0;
}

void sockfile_close(struct sockfile *sf)
{
	if (sf->dirfd < 0)
		return;
	if (!still_bound(sf))
		unlinkat(sf->dirfd, sf->name, 0);
	sf->bound = false;
	close(sf->dirfd);
	sf->dirfd = -1;
}
