// SPDX-License-Identifier: MIT
/*
 * Unit tests: sockfile.c, a listening socket's file made and removed
 * without following a symlink or touching what is not the socket bound.
 * Each test works in a fresh directory of its own under /tmp: a directory
 * others may write is refused unless sticky, as are one that is a symlink
 * and (as root) one of another user; what is in the socket's place is
 * cleared only if it is a dead socket of ours; the socket is bound 0600
 * whatever the umask and shared with its group and mode by name; and at
 * the end only the socket bound is removed.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sockfile.h"

struct scratch {
	char top[64];  /* the test's own directory */
	char dir[72];  /* the sockets' directory in it */
	char path[80]; /* dir/s.sock */
	char err[256];
	struct sockfile sf;
};

static int setup(void **state)
{
	struct scratch *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	snprintf(t->top, sizeof(t->top), "/tmp/wb-sockfile.XXXXXX");
	if (!mkdtemp(t->top))
		return -1;
	snprintf(t->dir, sizeof(t->dir), "%s/ctl", t->top);
	snprintf(t->path, sizeof(t->path), "%s/s.sock", t->dir);
	t->sf.dirfd = -1;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct scratch *t = *state;
	char cmd[96];

	sockfile_close(&t->sf);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->top);
	if (system(cmd))
		return -1;
	free(t);
	return 0;
}

static int open_in(struct scratch *t)
{
	return sockfile_open(&t->sf, t->dir, "s.sock", t->err, sizeof(t->err));
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode;
}

/* A socket bound at path and closed without removing its file: what a daemon that died leaves. */
static void leave_dead_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
}

static int listening_socket(void)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	return fd;
}

/* ---- the directory ------------------------------------------------------------------------ */

static void test_a_missing_directory_is_made_0755(void **state)
{
	struct scratch *t = *state;
	mode_t old = umask(022);

	assert_int_equal(open_in(t), 0);
	umask(old);
	assert_true(S_ISDIR(mode_of(t->dir)));
	assert_int_equal(mode_of(t->dir) & 07777, 0755);
}

static void test_a_directory_others_may_write_is_refused(void **state)
{
	struct scratch *t = *state;

	assert_int_equal(mkdir(t->dir, 0700), 0);
	assert_int_equal(chmod(t->dir, 0777), 0);
	assert_int_equal(open_in(t), -EPERM);
	assert_non_null(strstr(t->err, "(mode 0777) and is not sticky"));
	assert_int_equal(chmod(t->dir, 0770), 0);
	assert_int_equal(open_in(t), -EPERM);
}

static void test_a_sticky_directory_is_taken(void **state)
{
	struct scratch *t = *state;

	assert_int_equal(mkdir(t->dir, 0700), 0);
	assert_int_equal(chmod(t->dir, 01777), 0);
	assert_int_equal(open_in(t), 0);
}

static void test_a_directory_that_is_a_symlink_is_refused(void **state)
{
	struct scratch *t = *state;
	char real[128];

	snprintf(real, sizeof(real), "%s/real", t->top);
	assert_int_equal(mkdir(real, 0755), 0);
	assert_int_equal(symlink(real, t->dir), 0);
	assert_int_equal(open_in(t), -ELOOP);
	assert_non_null(strstr(t->err, "a symlink"));
}

static void test_a_directory_of_another_user_is_refused(void **state)
{
	struct scratch *t = *state;

	if (geteuid())
		skip();
	assert_int_equal(mkdir(t->dir, 0755), 0);
	assert_int_equal(chown(t->dir, 65534, 65534), 0);
	assert_int_equal(open_in(t), -EPERM);
	assert_non_null(strstr(t->err, "owned by uid 65534"));
}

static void test_a_path_too_long_is_refused(void **state)
{
	struct scratch *t = *state;
	char name[120];

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(sockfile_open(&t->sf, t->dir, name, t->err, sizeof(t->err)), -ENAMETOOLONG);
}

/* ---- what is in the socket's place ------------------------------------------------------------- */

static void test_nothing_there_is_clear(void **state)
{
	struct scratch *t = *state;

	assert_int_equal(open_in(t), 0);
	assert_int_equal(sockfile_clear_stale(&t->sf, SOCK_SEQPACKET, t->err, sizeof(t->err)), 0);
}

static void test_a_dead_socket_of_ours_is_removed(void **state)
{
	struct scratch *t = *state;

	assert_int_equal(open_in(t), 0);
	leave_dead_socket(t->path);
	assert_int_equal(sockfile_clear_stale(&t->sf, SOCK_SEQPACKET, t->err, sizeof(t->err)), 0);
	assert_int_equal(access(t->path, F_OK), -1);
}

static void test_a_socket_that_answers_is_left(void **state)
{
	struct scratch *t = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = listening_socket();

	assert_int_equal(open_in(t), 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", t->path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(sockfile_clear_stale(&t->sf, SOCK_SEQPACKET, t->err, sizeof(t->err)), -EADDRINUSE);
	assert_true(S_ISSOCK(mode_of(t->path)));
	close(fd);
}

static void test_a_regular_file_is_left(void **state)
{
	struct scratch *t = *state;
	FILE *f;

	assert_int_equal(open_in(t), 0);
	f = fopen(t->path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(sockfile_clear_stale(&t->sf, SOCK_SEQPACKET, t->err, sizeof(t->err)), -EEXIST);
	assert_non_null(strstr(t->err, "is a regular file, not a socket: left alone"));
	assert_true(S_ISREG(mode_of(t->path)));
}

static void test_a_symlink_is_left_and_not_followed(void **state)
{
	struct scratch *t = *state;
	char target[128];

	assert_int_equal(open_in(t), 0);
	/* To a dead socket: one that follows the link would remove what it points to. */
	snprintf(target, sizeof(target), "%s/target.sock", t->top);
	leave_dead_socket(target);
	assert_int_equal(symlink(target, t->path), 0);
	assert_int_equal(sockfile_clear_stale(&t->sf, SOCK_SEQPACKET, t->err, sizeof(t->err)), -EEXIST);
	assert_non_null(strstr(t->err, "is a symlink, not a socket"));
	assert_true(S_ISLNK(mode_of(t->path)));
	assert_true(S_ISSOCK(mode_of(target)));
}

static void test_a_socket_of_another_user_is_left(void **state)
{
	struct scratch *t = *state;

	if (geteuid())
		skip();
	assert_int_equal(open_in(t), 0);
	leave_dead_socket(t->path);
	assert_int_equal(lchown(t->path, 65534, 65534), 0);
	assert_int_equal(sockfile_clear_stale(&t->sf, SOCK_SEQPACKET, t->err, sizeof(t->err)), -EEXIST);
	assert_non_null(strstr(t->err, "a socket of uid 65534, not ours"));
}

/* ---- binding, sharing, removing ------------------------------------------------------------------ */

static void test_bound_0600_whatever_the_umask(void **state)
{
	struct scratch *t = *state;
	int fd = listening_socket();
	mode_t old = umask(0);

	assert_int_equal(open_in(t), 0);
	assert_int_equal(sockfile_bind(&t->sf, fd, t->err, sizeof(t->err)), 0);
	assert_int_equal(umask(old), 0); /* and the umask is as it was */
	assert_true(S_ISSOCK(mode_of(t->path)));
	assert_int_equal(mode_of(t->path) & 07777, 0600);
	close(fd);
}

static void test_shared_with_group_and_mode(void **state)
{
	struct scratch *t = *state;
	int fd = listening_socket();
	struct stat st;

	assert_int_equal(open_in(t), 0);
	assert_int_equal(sockfile_bind(&t->sf, fd, t->err, sizeof(t->err)), 0);
	assert_int_equal(sockfile_share(&t->sf, getegid(), 0660, t->err, sizeof(t->err)), 0);
	assert_int_equal(lstat(t->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0660);
	assert_int_equal(st.st_gid, getegid());
	close(fd);
}

static void test_a_replaced_socket_is_not_shared(void **state)
{
	struct scratch *t = *state;
	char moved[128], victim[128];
	int fd = listening_socket();
	FILE *f;

	assert_int_equal(open_in(t), 0);
	assert_int_equal(sockfile_bind(&t->sf, fd, t->err, sizeof(t->err)), 0);
	/* What one who could write the directory would do between the bind and the chmod. */
	snprintf(moved, sizeof(moved), "%s/moved.sock", t->top);
	snprintf(victim, sizeof(victim), "%s/victim", t->top);
	f = fopen(victim, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod(victim, 0600), 0);
	assert_int_equal(rename(t->path, moved), 0);
	assert_int_equal(symlink(victim, t->path), 0);
	assert_int_equal(sockfile_share(&t->sf, getegid(), 0666, t->err, sizeof(t->err)), -ESTALE);
	assert_int_equal(mode_of(victim) & 07777, 0600);
	close(fd);
}

static void test_close_removes_the_socket_bound(void **state)
{
	struct scratch *t = *state;
	int fd = listening_socket();

	assert_int_equal(open_in(t), 0);
	assert_int_equal(sockfile_bind(&t->sf, fd, t->err, sizeof(t->err)), 0);
	close(fd);
	sockfile_close(&t->sf);
	assert_int_equal(t->sf.dirfd, -1);
	assert_int_equal(access(t->path, F_OK), -1);
	sockfile_close(&t->sf); /* twice is harmless */
}

static void test_close_leaves_what_replaced_it(void **state)
{
	struct scratch *t = *state;
	char moved[128];
	int fd = listening_socket();

	assert_int_equal(open_in(t), 0);
	assert_int_equal(sockfile_bind(&t->sf, fd, t->err, sizeof(t->err)), 0);
	snprintf(moved, sizeof(moved), "%s/moved.sock", t->top);
	assert_int_equal(rename(t->path, moved), 0);
	leave_dead_socket(t->path); /* another socket, under the same name */
	sockfile_close(&t->sf);
	assert_true(S_ISSOCK(mode_of(t->path)));
	close(fd);
}

static void test_close_of_a_file_never_bound_removes_nothing(void **state)
{
	struct scratch *t = *state;

	assert_int_equal(open_in(t), 0);
	leave_dead_socket(t->path);
	sockfile_close(&t->sf);
	assert_true(S_ISSOCK(mode_of(t->path)));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_a_missing_directory_is_made_0755),
		T(test_a_directory_others_may_write_is_refused),
		T(test_a_sticky_directory_is_taken),
		T(test_a_directory_that_is_a_symlink_is_refused),
		T(test_a_directory_of_another_user_is_refused),
		T(test_a_path_too_long_is_refused),
		T(test_nothing_there_is_clear),
		T(test_a_dead_socket_of_ours_is_removed),
		T(test_a_socket_that_answers_is_left),
		T(test_a_regular_file_is_left),
		T(test_a_symlink_is_left_and_not_followed),
		T(test_a_socket_of_another_user_is_left),
		T(test_bound_0600_whatever_the_umask),
		T(test_shared_with_group_and_mode),
		T(test_a_replaced_socket_is_not_shared),
		T(test_close_removes_the_socket_bound),
		T(test_close_leaves_what_replaced_it),
		T(test_close_of_a_file_never_bound_removes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
