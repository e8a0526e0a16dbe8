// SPDX-License-Identifier: MIT
/*
 * Unit tests: harden.c, no core dump of a process that holds keys. The
 * calls are the daemon's own, run in this test's process (or a child of
 * it): the process is not dumpable afterwards and its core size limit is 0,
 * the hard limit too; and a child killed by SIGABRT (what systemd's
 * watchdog sends) after the call leaves no core, though its limit was
 * raised before it.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harden.h"

/* The soft core limit as high as the hard one: a default of 0 must not make the tests pass by itself. */
static void raise_core_limit(void)
{
	struct rlimit rl;

	assert_int_equal(getrlimit(RLIMIT_CORE, &rl), 0);
	if (rl.rlim_max == 0)
		skip(); /* started with a hard limit of 0: nothing to tell apart */
	rl.rlim_cur = rl.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_CORE, &rl), 0);
}

static void test_not_dumpable_and_no_core_size(void **state)
{
	char err[256] = "";
	struct rlimit rl;

	(void)state;
	raise_core_limit();
	/* A process is dumpable after an exec of a plain binary. */
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);

	assert_int_equal(harden_no_core_dumps(err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
	assert_int_equal(getrlimit(RLIMIT_CORE, &rl), 0);
	assert_true(rl.rlim_cur == 0);
	assert_true(rl.rlim_max == 0);

	/* Again (a limit already 0, a process already not dumpable): still 0. */
	assert_int_equal(harden_no_core_dumps(err, sizeof(err)), 0);
}

/*
 * A directory of the test's own for the child to crash in ($TMPDIR, or
 * the C library's temporary directory), removed whatever the test's outcome.
 */
static int make_dir(void **state)
{
	static char dir[256];
	const char *tmp = getenv("TMPDIR");

	if (snprintf(dir, sizeof(dir), "%s/wb-harden.XXXXXX", tmp && *tmp ? tmp : P_tmpdir) >= (int)sizeof(dir) ||
	    !mkdtemp(dir))
		return -1;
	*state = dir;
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", (const char *)*state);
	return system(cmd) ? -1 : 0;
}

static void test_an_abort_leaves_no_core(void **state)
{
	const char *dir = *state;
	int status = 0;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl;
		char err[256];

		/* A core_pattern of "core" would write it here, not in the test's directory. */
		if (chdir(dir) || getrlimit(RLIMIT_CORE, &rl))
			_exit(2);
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_CORE, &rl) || harden_no_core_dumps(err, sizeof(err)))
			_exit(2);
		signal(SIGABRT, SIG_DFL);
		kill(getpid(), SIGABRT);
		_exit(3);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_false(WCOREDUMP(status));
}

int main(void)
{
	/* The abort first: the other test leaves this process not dumpable, and a child inherits that. */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_an_abort_leaves_no_core, make_dir, remove_dir),
		cmocka_unit_test(test_not_dumpable_and_no_core_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
