// SPDX-License-Identifier: MIT
/*
 * Unit tests: peer_cred.c, who is at the other end of a control
 * connection. The parsers of /proc's text first: they must take the field
 * named at the start of a line and nothing else, since a process chooses
 * its own Name: line. Then the judgement on real connections: our own
 * (a socketpair), and, as root only, a child that dropped to nobody
 * before it connected, without and with CAP_NET_ADMIN, and one that
 * connected and exited before it was judged.
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

/* ---- the parsers ---------------------------------------------------------------------- */

static const char status_text[] = "Name:\tsleep\n"
				  "Umask:\t0022\n"
				  "State:\tS (sleeping)\n"
				  "Uid:\t0\t0\t0\t0\n"
				  "CapInh:\t0000000000000000\n"
				  "CapPrm:\t000001ffffffffff\n"
				  "CapEff:\t0000000000001000\n"
				  "CapBnd:\t000001ffffffffff\n";

static void test_status_hex_reads_the_named_field(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_true(peer_status_hex(status_text, "CapEff", &v));
	assert_int_equal(v, 0x1000);
	assert_true(peer_status_hex(status_text, "CapPrm", &v));
	assert_int_equal(v, 0x1ffffffffffULL);
}

static void test_status_hex_missing_field_is_false(void **state)
{
	uint64_t v = 42;

	(void)state;
	assert_false(peer_status_hex(status_text, "CapAmb", &v));
	assert_false(peer_status_hex("", "CapEff", &v));
	assert_int_equal(v, 42);
}

static void test_status_hex_takes_only_a_line_start(void **state)
{
	/* A name chosen by the process (prctl PR_SET_NAME) cannot stand for the field. */
	static const char text[] = "Name:\tCapEff: ffffffffff\nCapEffective:\t1\nCapEff:\t0000000000000000\n";
	uint64_t v = 42;

	(void)state;
	assert_true(peer_status_hex(text, "CapEff", &v));
	assert_int_equal(v, 0);
}

static void test_status_hex_refuses_malformed_values(void **state)
{
	static const char *const bad[] = { "CapEff:\t-1\n", "CapEff:\t\n", "CapEff:\tzz\n", "CapEff:\t00ff x\n",
					   "CapEff:\t1ffffffffffffffffff\n", "CapEff:\t+1\n" };
	uint64_t v = 42;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(peer_status_hex(bad[i], "CapEff", &v));
		assert_int_equal(v, 42);
	}
	assert_true(peer_status_hex("CapEff:\t00ff \n", "CapEff", &v)); /* trailing blanks are the line's end */
	assert_int_equal(v, 0xff);
}

static void test_fdinfo_pid_reads_pid_not_nspid(void **state)
{
	long pid = 0;

	(void)state;
	assert_true(peer_fdinfo_pid("pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1057\nPid:\t3667\nNSpid:\t3667\t1\n",
				    &pid));
	assert_int_equal(pid, 3667);
	assert_true(peer_fdinfo_pid("Pid:\t-1\nNSpid:\t-1\n", &pid));
	assert_int_equal(pid, -1);
	assert_true(peer_fdinfo_pid("Pid:\t0\n", &pid));
	assert_int_equal(pid, 0);
	pid = 7;
	assert_false(peer_fdinfo_pid("NSpid:\t5\n", &pid));
	assert_false(peer_fdinfo_pid("Pid:\t-2\n", &pid));
	assert_false(peer_fdinfo_pid("Pid:\tx\n", &pid));
	assert_int_equal(pid, 7);
}

/* ---- the judgement ---------------------------------------------------------------------- */

static bool we_hold_net_admin(void)
{
	char text[4096];
	FILE *f = fopen("/proc/self/status", "re");
	size_t n;
	uint64_t eff = 0;

	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_true(peer_status_hex(text, "CapEff", &eff));
	return (eff >> CAP_NET_ADMIN) & 1;
}

static void test_judge_ourselves(void **state)
{
	struct peer_cred p;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	peer_cred_judge(sv[0], &p);
	assert_int_equal(p.uid, geteuid());
	assert_int_equal(p.pid, getpid());
	assert_int_equal(p.privileged, geteuid() == 0 || we_hold_net_admin());
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
	peer_cred_judge(fd, &p);
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

/* In a child: becomes nobody, keeping CAP_NET_ADMIN (effective) if asked and nothing else. */
static void become_nobody(bool net_admin)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		_exit(10);
	if (net_admin)
		d[0].effective = d[0].permitted = 1u << CAP_NET_ADMIN;
	if (syscall(SYS_capset, &h, d))
		_exit(11);
}

enum child_end { STAYS_UNTIL_JUDGED, EXITS_BEFORE_ACCEPT };

/*
 * A child, nobody with or without CAP_NET_ADMIN, connects to l; the
 * connection is accepted and judged while the child lives, or after it has
 * exited and been reaped.
 */
static void judge_child(struct listener *l, bool net_admin, enum child_end end, struct peer_cred *p)
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

		become_nobody(net_admin);
		s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&l->sa, sizeof(l->sa)))
			_exit(12);
		if (write(connected[1], "c", 1) != 1)
			_exit(13);
		if (end == STAYS_UNTIL_JUDGED && read(judged[0], &byte, 1) != 1)
			_exit(14);
		_exit(0);
	}
	assert_int_equal(read(connected[0], &byte, 1), 1);
	if (end == EXITS_BEFORE_ACCEPT) {
		assert_int_equal(waitpid(child, &status, 0), child);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
	assert_true(fd >= 0);
	peer_cred_judge(fd, p);
	close(fd);
	if (end == STAYS_UNTIL_JUDGED) {
		assert_int_equal(write(judged[1], "j", 1), 1);
		assert_int_equal(waitpid(child, &status, 0), child);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	close(connected[0]);
	close(connected[1]);
	close(judged[0]);
	close(judged[1]);
}

static void test_judge_nobody(void **state)
{
	struct listener l;
	struct peer_cred p;

	(void)state;
	if (geteuid())
		skip();
	listen_at(&l);
	judge_child(&l, false, STAYS_UNTIL_JUDGED, &p);
	assert_int_equal(p.uid, NOBODY);
	assert_true(p.pid > 0);
	assert_false(p.privileged);
	assert_string_equal(p.why, "no CAP_NET_ADMIN");
	unlisten(&l);
}

static void test_judge_nobody_with_net_admin(void **state)
{
	struct listener l;
	struct peer_cred p;

	(void)state;
	if (geteuid())
		skip();
	listen_at(&l);
	judge_child(&l, true, STAYS_UNTIL_JUDGED, &p);
	assert_int_equal(p.uid, NOBODY);
	assert_true(p.privileged);
	assert_string_equal(p.why, "CAP_NET_ADMIN");
	unlisten(&l);
}

static void test_judge_a_peer_gone_before_accept(void **state)
{
	struct listener l;
	struct peer_cred p;

	(void)state;
	if (geteuid())
		skip();
	listen_at(&l);
	/* It had CAP_NET_ADMIN, but what has its pid now is not it: unprivileged. */
	judge_child(&l, true, EXITS_BEFORE_ACCEPT, &p);
	assert_int_equal(p.uid, NOBODY);
	assert_false(p.privileged);
	assert_string_equal(p.why, "it has exited");
	unlisten(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_hex_reads_the_named_field),
		cmocka_unit_test(test_status_hex_missing_field_is_false),
		cmocka_unit_test(test_status_hex_takes_only_a_line_start),
		cmocka_unit_test(test_status_hex_refuses_malformed_values),
		cmocka_unit_test(test_fdinfo_pid_reads_pid_not_nspid),
		cmocka_unit_test(test_judge_ourselves),
		cmocka_unit_test(test_judge_a_socket_that_is_not_connected),
		cmocka_unit_test(test_judge_nobody),
		cmocka_unit_test(test_judge_nobody_with_net_admin),
		cmocka_unit_test(test_judge_a_peer_gone_before_accept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
