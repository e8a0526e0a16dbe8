// SPDX-License-Identifier: MIT
/*
 * Unit tests: ctl_slots.c, who may hold a bond's control connections.
 * Unprivileged peers fill their share and no more, the reserved slots
 * stay for privileged ones whatever the unprivileged hold, unprivileged
 * monitors stop at their bound while privileged ones do not, and a quiet
 * connection is due for closing 10 s after its last request, a monitor
 * never.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ctl_slots.h"

#define UNPRIVILEGED_SHARE (CTL_MAX_CLIENTS - CTL_RESERVED_SLOTS)

static void test_unprivileged_fill_their_share_and_no_more(void **state)
{
	struct ctl_census c = { 0 };

	(void)state;
	for (c.unprivileged = 0; c.unprivileged < UNPRIVILEGED_SHARE; c.unprivileged++)
		assert_true(ctl_slot_allowed(&c, false));
	assert_int_equal(c.unprivileged, 12);
	assert_false(ctl_slot_allowed(&c, false));
}

static void test_reserved_slots_stay_for_the_privileged(void **state)
{
	struct ctl_census c = { .unprivileged = UNPRIVILEGED_SHARE };

	(void)state;
	for (c.privileged = 0; c.privileged < CTL_RESERVED_SLOTS; c.privileged++) {
		assert_true(ctl_slot_allowed(&c, true));
		assert_false(ctl_slot_allowed(&c, false));
	}
	/* The table is full now: no one else, privileged or not. */
	assert_int_equal(c.privileged + c.unprivileged, CTL_MAX_CLIENTS);
	assert_false(ctl_slot_allowed(&c, true));
	assert_false(ctl_slot_allowed(&c, false));
}

static void test_privileged_may_take_every_slot(void **state)
{
	struct ctl_census c = { 0 };

	(void)state;
	for (c.privileged = 0; c.privileged < CTL_MAX_CLIENTS; c.privileged++)
		assert_true(ctl_slot_allowed(&c, true));
	assert_false(ctl_slot_allowed(&c, true));
}

static void test_privileged_connections_leave_the_unprivileged_share_alone(void **state)
{
	/* Privileged peers in the unprivileged part of the table still leave readers a slot while the table has room. */
	struct ctl_census c = { .privileged = 10, .unprivileged = 5 };

	(void)state;
	assert_true(ctl_slot_allowed(&c, false));
	c.unprivileged = 6;
	assert_false(ctl_slot_allowed(&c, false));
}

static void test_unprivileged_monitors_stop_at_their_bound(void **state)
{
	struct ctl_census c = { .unprivileged = UNPRIVILEGED_SHARE };

	(void)state;
	for (c.unprivileged_monitors = 0; c.unprivileged_monitors < CTL_MAX_UNPRIVILEGED_MONITORS;
	     c.unprivileged_monitors++)
		assert_true(ctl_monitor_allowed(&c, false));
	assert_int_equal(c.unprivileged_monitors, 4);
	assert_false(ctl_monitor_allowed(&c, false));
	assert_true(ctl_monitor_allowed(&c, true));
}

static void test_idle_deadline_is_10_s_after_the_last_request(void **state)
{
	(void)state;
	assert_int_equal(CTL_IDLE_TIMEOUT_NS, 10000000000ULL);
	assert_int_equal(ctl_idle_deadline(0, false), 10000000000ULL);
	assert_int_equal(ctl_idle_deadline(123456789, false), 10123456789ULL);
}

static void test_a_monitor_is_never_idle(void **state)
{
	(void)state;
	assert_int_equal(ctl_idle_deadline(0, true), UINT64_MAX);
	assert_int_equal(ctl_idle_deadline(UINT64_MAX / 2, true), UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unprivileged_fill_their_share_and_no_more),
		cmocka_unit_test(test_reserved_slots_stay_for_the_privileged),
		cmocka_unit_test(test_privileged_may_take_every_slot),
		cmocka_unit_test(test_privileged_connections_leave_the_unprivileged_share_alone),
		cmocka_unit_test(test_unprivileged_monitors_stop_at_their_bound),
		cmocka_unit_test(test_idle_deadline_is_10_s_after_the_last_request),
		cmocka_unit_test(test_a_monitor_is_never_idle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
