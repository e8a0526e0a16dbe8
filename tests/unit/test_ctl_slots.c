// SPDX-License-Identifier: MIT
/*
 * Unit tests: ctl_slots.c, who may hold a bond's control connections.
 * Unprivileged peers fill their share and no more, the reserved slots
 * stay for privileged ones whatever the unprivileged hold, and
 * unprivileged monitors stop at their bound while privileged ones do not.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unprivileged_fill_their_share_and_no_more),
		cmocka_unit_test(test_reserved_slots_stay_for_the_privileged),
		cmocka_unit_test(test_privileged_may_take_every_slot),
		cmocka_unit_test(test_privileged_connections_leave_the_unprivileged_share_alone),
		cmocka_unit_test(test_unprivileged_monitors_stop_at_their_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
