// SPDX-License-Identifier: MIT
/*
 * Unit tests: peer_cred.c, who is at the other end of a control
 * connection, judged from the credentials the kernel recorded when it
 * connected. On real connections: our own (a socketpair), and, as root
 * only, a child that dropped to nobody before it connected, with and
 * without the admin group among its groups or as its own, with
 * CAP_NET_ADMIN (no longer a privilege), and one that regained root after
 * it connected (as a reader's child that exec's a setuid program would):
 * it was judged root when its capabilities were read at accept time.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "peer_cred.h"

#define NOBODY 65534
#define ADMIN_GID 4242 /* a group no test process starts in */

static void test_in_group(void **state)
{
	const gid_t groups[] = { 10, 20, ADMIN_GID };

	(void)state;
	assert_true(peer_in_group(ADMIN_GID, ADMIN_GID, NULL, 0));
	assert_true(peer_in_group(ADMIN_GID, 5, groups, 3));
	assert_false(peer_in_group(ADMIN_GID, 5, groups, 2));
	assert_false(peer_in_group(PEER_NO_GROUP, PEER_NO_GROUP, NULL, 0));
	assert_false(peer_in_group(PEER_NO_GROUP, 5, groups, 3));
}

static void test_judge_ourselves(void **state)
{
	struct peer_cred p;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	peer_cred_judge(sv[0], PEER_NO_GROUP, &p);
	assert_int_equal(p.uid, geteuid());
	assert_int_equal(p.pid, getpid());
	assert_int_equal(p.privileged, geteuid() == 0);
	assert_non_null(p.why);
	close(sv[0]);
	close(sv[1]);
}

static void test_judge_a_socket_that_is_not_connected(void **state)
{
	struct peer_cred p;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	(void)state;
	assert_true(fd >= 0);
	peer_cred_judge(fd, ADMIN_GID, &p);
	assert_false(p.privileged);
	close(fd);
}

/* A listening socket in a fresh directory that nobody may reach. */
struct listener {
	char dir[64];
	struct sockaddr_un sa;
	int fd;
};

static void listen_at(struct listener *l)
{
	snprintf(l->dir, sizeof(l->dir), "/tmp/wb-peer-cred.XXXXXX");
	assert_non_null(mkdtemp(l->dir));
	assert_int_equal(chmod(l->dir, 0711), 0);
	l->sa = (struct sockaddr_un){ .sun_family = AF_UNIX };
	snprintf(l->sa.sun_path, sizeof(l->sa.sun_path), "%s/s", l->dir);
	l->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_true(l->fd >= 0);
	assert_int_equal(bind(l->fd, (struct sockaddr *)&l->sa, sizeof(l->sa)), 0);
	assert_int_equal(chmod(l->sa.sun_path, 0666), 0);
	assert_int_equal(listen(l->fd, 4), 0);
}

static void unlisten(struct listener *l)
{
	close(l->fd);
	unlink(l->sa.sun_path);
	rmdir(l->dir);
}

/* How the child is, and becomes, around its connect. */
struct child_plan {
	gid_t gid;            /* its gid as nobody */
	gid_t group;          /* a supplementary group, or PEER_NO_GROUP */
	bool net_admin;       /* keeps CAP_NET_ADMIN as nobody */
	bool root_after;      /* becomes root again once connected (its saved uid stays 0) */
};

/* In a child: becomes nobody as planned; with root_after, keeps uid 0 as its saved uid. */
static void become_nobody(const struct child_plan *plan)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	gid_t group = plan->group;

	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(group == PEER_NO_GROUP ? 0 : 1, &group) ||
	    setresgid(plan->gid, plan->gid, plan->gid) ||
	    setresuid(NOBODY, NOBODY, plan->root_after ? 0 : NOBODY))
		_exit(10);
	if (plan->net_admin)
		d[0].effective = d[0].permitted = 1u << CAP_NET_ADMIN;
	if (!plan->root_after && syscall(SYS_capset, &h, d))
		_exit(11);
}

/* A child connects to l as planned; the connection is accepted and judged while it lives. */
static void judge_child(struct listener *l, const struct child_plan *plan, gid_t admin_gid, struct peer_cred *p)
{
	int connected[2], judged[2], fd, status;
	char byte = 0;
	pid_t child;

	assert_int_equal(pipe(connected), 0);
	assert_int_equal(pipe(judged), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		int s;

		become_nobody(plan);
		s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&l->sa, sizeof(l->sa)))
			_exit(12);
		if (plan->root_after && setresuid(0, 0, 0))
			_exit(15);
		if (write(connected[1], "c", 1) != 1)
			_exit(13);
		if (read(judged[0], &byte, 1) != 1)
			_exit(14);
		_exit(0);
	}
	assert_int_equal(read(connected[0], &byte, 1), 1);
	fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
	assert_true(fd >= 0);
	peer_cred_judge(fd, admin_gid, p);
	close(fd);
	assert_int_equal(write(judged[1], "j", 1), 1);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(connected[0]);
	close(connected[1]);
	close(judged[0]);
	close(judged[1]);
}

static void judge_as(const struct child_plan *plan, gid_t admin_gid, struct peer_cred *p)
{
	struct listener l;

	listen_at(&l);
	judge_child(&l, plan, admin_gid, p);
	unlisten(&l);
	assert_int_equal(p->uid, NOBODY);
	assert_true(p->pid > 0);
}

static void test_judge_nobody(void **state)
{
	struct child_plan plan = { .gid = NOBODY, .group = PEER_NO_GROUP };
	struct peer_cred p;

	(void)state;
	if (geteuid())
		skip();
	judge_as(&plan, PEER_NO_GROUP, &p);
	assert_false(p.privileged);
	assert_string_equal(p.why, "not root");
	judge_as(&plan, ADMIN_GID, &p);
	assert_false(p.privileged);
	assert_string_equal(p.why, "not root, not in control.admin_group");
}

static void test_judge_a_member_of_the_admin_group(void **state)
{
	struct child_plan supplementary = { .gid = NOBODY, .group = ADMIN_GID };
	struct child_plan primary = { .gid = ADMIN_GID, .group = PEER_NO_GROUP };
	struct peer_cred p;

	(void)state;
	if (geteuid())
		skip();
	judge_as(&supplementary, ADMIN_GID, &p);
	assert_true(p.privileged);
	assert_string_equal(p.why, "in control.admin_group");
	judge_as(&primary, ADMIN_GID, &p);
	assert_true(p.privileged);
	/* The same peer where no admin group is set, or another one. */
	judge_as(&supplementary, PEER_NO_GROUP, &p);
	assert_false(p.privileged);
	judge_as(&supplementary, ADMIN_GID + 1, &p);
	assert_false(p.privileged);
}

/* CAP_NET_ADMIN made a peer an administrator; it no longer does: only uid 0 and the group. */
static void test_judge_nobody_with_net_admin(void **state)
{
	struct child_plan plan = { .gid = NOBODY, .group = PEER_NO_GROUP, .net_admin = true };
	struct peer_cred p;

	(void)state;
	if (geteuid())
		skip();
	judge_as(&plan, PEER_NO_GROUP, &p);
	assert_false(p.privileged);
}

/*
 * A reader connects, then the process that holds its socket becomes root
 * (a child that exec's a setuid program): judged by what it was when it
 * connected, it stays a reader.
 */
static void test_judge_a_peer_root_since_it_connected(void **state)
{
	struct child_plan plan = { .gid = NOBODY, .group = PEER_NO_GROUP, .root_after = true };
	struct peer_cred p;

	(void)state;
	if (geteuid())
		skip();
	judge_as(&plan, PEER_NO_GROUP, &p);
	assert_false(p.privileged);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_group),
		cmocka_unit_test(test_judge_ourselves),
		cmocka_unit_test(test_judge_a_socket_that_is_not_connected),
		cmocka_unit_test(test_judge_nobody),
		cmocka_unit_test(test_judge_a_member_of_the_admin_group),
		cmocka_unit_test(test_judge_nobody_with_net_admin),
		cmocka_unit_test(test_judge_a_peer_root_since_it_connected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
