// SPDX-License-Identifier: MIT
/*
 * Unit tests: uplink_state.c, a client uplink slot's life without a socket.
 * Each event is checked for the phase it leads to, what it asks to be done
 * (close, tell the library, open, retry, say) and the reason the status
 * shows: an open uplink whose link goes down is closed and told out; one
 * the network manager took down stays out through link flaps until its
 * ifup; one the operator took out stays out through an ifup; a failed open
 * is retried and said once per reason; a removal closes only what is open.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "uplink_state.h"

/* The action, field by field: open, close, tell (available), retry, say. */
static void assert_action(struct uplink_action a, bool close, bool tell, bool available, bool open, bool retry)
{
	assert_int_equal(a.close, close);
	assert_int_equal(a.tell, tell);
	if (tell)
		assert_int_equal(a.available, available);
	assert_int_equal(a.open, open);
	assert_int_equal(a.retry, retry);
}

static void assert_nothing(struct uplink_action a)
{
	assert_action(a, false, false, false, false, false);
	assert_false(a.say);
}

/* A slot added and its socket opened: what most tests start from. */
static struct uplink_state open_uplink(void)
{
	struct uplink_state s;

	uplink_state_add(&s);
	assert_true(uplink_state_try_open(&s).open);
	uplink_state_opened(&s);
	assert_int_equal(s.phase, UPLINK_OPEN);
	return s;
}

static void test_an_added_uplink_waits_then_opens_into_use(void **state)
{
	struct uplink_state s;
	struct uplink_action a;

	(void)state;
	uplink_state_add(&s);
	assert_int_equal(s.phase, UPLINK_WAITING);
	assert_string_equal(s.why, "");
	assert_action(uplink_state_try_open(&s), false, false, false, true, false);
	a = uplink_state_opened(&s);
	assert_int_equal(s.phase, UPLINK_OPEN);
	assert_action(a, false, true, true, false, false);
	assert_null(a.why);
	/* Open: the retry pass leaves it alone. */
	assert_nothing(uplink_state_try_open(&s));
}

static void test_a_failed_open_is_retried_and_said_once_per_reason(void **state)
{
	struct uplink_state s;
	struct uplink_action a;

	(void)state;
	uplink_state_add(&s);
	a = uplink_state_open_failed(&s, "interface wan9 does not exist");
	assert_action(a, false, false, false, false, true);
	assert_true(a.say);
	assert_int_equal(s.phase, UPLINK_WAITING);
	assert_string_equal(s.why, "interface wan9 does not exist");
	/* The retry: tried again, the same reason not said again. */
	assert_true(uplink_state_try_open(&s).open);
	a = uplink_state_open_failed(&s, "interface wan9 does not exist");
	assert_true(a.retry);
	assert_false(a.say);
	/* Another reason is said. */
	a = uplink_state_open_failed(&s, "cannot bind to 192.0.2.7: Cannot assign requested address");
	assert_true(a.say);
	assert_string_equal(s.why, "cannot bind to 192.0.2.7: Cannot assign requested address");
	/* Opened at last: no reason left. */
	uplink_state_opened(&s);
	assert_string_equal(s.why, "");
}

static void test_link_down_while_open_closes_and_tells_why(void **state)
{
	struct uplink_state s = open_uplink();
	struct uplink_action a;

	(void)state;
	a = uplink_state_link_down(&s, "interface wan2 down");
	assert_action(a, true, true, false, false, false);
	assert_string_equal(a.why, "interface wan2 down");
	assert_int_equal(s.phase, UPLINK_LINK_DOWN);
	assert_string_equal(s.why, "interface wan2 down");
	/* Down: neither the retry nor an address (IPv6's leaving with the link) opens it. */
	assert_nothing(uplink_state_try_open(&s));
	assert_nothing(uplink_state_address_changed(&s));
	assert_nothing(uplink_state_link_down(&s, "interface wan2 removed"));
	assert_string_equal(s.why, "interface wan2 down");
	/* Up: opened at once. */
	a = uplink_state_link_up(&s);
	assert_action(a, false, false, false, true, false);
	assert_int_equal(s.phase, UPLINK_WAITING);
	assert_action(uplink_state_opened(&s), false, true, true, false, false);
}

static void test_link_down_while_waiting_stops_the_retries_and_keeps_the_reason(void **state)
{
	struct uplink_state s;

	(void)state;
	uplink_state_add(&s);
	uplink_state_open_failed(&s, "cannot bind to wan2: No such device");
	assert_nothing(uplink_state_link_down(&s, "interface wan2 down"));
	assert_int_equal(s.phase, UPLINK_LINK_DOWN);
	assert_string_equal(s.why, "cannot bind to wan2: No such device");
	assert_false(uplink_state_try_open(&s).open);
	/* Up while waiting: tried at once too. */
	assert_true(uplink_state_link_up(&s).open);
	assert_true(uplink_state_link_up(&s).open);
}

static void test_link_up_while_open_changes_nothing(void **state)
{
	struct uplink_state s = open_uplink();

	(void)state;
	assert_nothing(uplink_state_link_up(&s));
	assert_int_equal(s.phase, UPLINK_OPEN);
}

static void test_an_address_change_binds_an_open_socket_again(void **state)
{
	struct uplink_state s = open_uplink();
	struct uplink_action a;

	(void)state;
	a = uplink_state_address_changed(&s);
	assert_action(a, true, true, false, true, false);
	assert_string_equal(a.why, "binding again after an address change");
	assert_int_equal(s.phase, UPLINK_WAITING);
	/* Its source address went: the failure is new, said, and retried. */
	a = uplink_state_open_failed(&s, "cannot bind to 192.0.2.7: Cannot assign requested address");
	assert_true(a.say);
	assert_true(a.retry);
	/* Waiting, an address change tries again without a close. */
	assert_action(uplink_state_address_changed(&s), false, false, false, true, false);
}

static void test_ifdown_keeps_an_open_uplink_out_through_link_flaps_until_ifup(void **state)
{
	struct uplink_state s = open_uplink();
	struct uplink_action a;

	(void)state;
	a = uplink_state_set_iface_up(&s, false);
	assert_action(a, false, true, false, false, false);
	assert_string_equal(a.why, "interface down (the network manager's ifdown)");
	assert_int_equal(s.phase, UPLINK_OPEN); /* the socket stays: the hold is the library's */
	assert_nothing(uplink_state_set_iface_up(&s, false));
	/* The link flaps: closed, then opened again, and still kept out. */
	assert_true(uplink_state_link_down(&s, "interface wan2 down").close);
	assert_true(uplink_state_link_up(&s).open);
	a = uplink_state_opened(&s);
	assert_action(a, false, true, false, false, false);
	assert_string_equal(a.why, "interface down (the network manager's ifdown)");
	/* Its ifup gives it back. */
	a = uplink_state_set_iface_up(&s, true);
	assert_action(a, false, true, true, false, false);
	assert_null(a.why);
	assert_null(uplink_state_kept_out(&s));
}

static void test_an_ifup_never_gives_back_what_the_operator_took(void **state)
{
	struct uplink_state s = open_uplink();
	struct uplink_action a;

	(void)state;
	a = uplink_state_set_enabled(&s, false);
	assert_action(a, false, true, false, false, false);
	assert_string_equal(a.why, "disabled by the operator");
	uplink_state_set_iface_up(&s, false);
	a = uplink_state_set_iface_up(&s, true);
	assert_action(a, false, true, false, false, false);
	assert_string_equal(a.why, "disabled by the operator");
	/* Enabled while the manager holds it down: still out, for the manager's reason. */
	uplink_state_set_iface_up(&s, false);
	a = uplink_state_set_enabled(&s, true);
	assert_false(a.available);
	assert_string_equal(a.why, "interface down (the network manager's ifdown)");
	a = uplink_state_set_iface_up(&s, true);
	assert_true(a.available);
}

static void test_holds_on_a_closed_uplink_wait_for_its_socket(void **state)
{
	struct uplink_state s;
	struct uplink_action a;

	(void)state;
	uplink_state_add(&s);
	/* No socket: nothing to tell the library yet, the hold is kept for when it opens. */
	assert_nothing(uplink_state_set_enabled(&s, false));
	assert_true(s.off_by_operator);
	a = uplink_state_opened(&s);
	assert_action(a, false, true, false, false, false);
	assert_string_equal(a.why, "disabled by the operator");
	assert_true(uplink_state_set_enabled(&s, true).available);
}

static void test_removal_closes_only_an_open_socket(void **state)
{
	struct uplink_state s = open_uplink();
	struct uplink_action a;

	(void)state;
	uplink_state_set_enabled(&s, false);
	a = uplink_state_remove(&s);
	assert_action(a, true, true, false, false, false);
	assert_string_equal(a.why, "removed");
	assert_int_equal(s.phase, UPLINK_FREE);
	assert_false(s.off_by_operator);
	/* Removed while its link is down: nothing open to close. */
	uplink_state_add(&s);
	uplink_state_link_down(&s, "interface wan2 down");
	assert_nothing(uplink_state_remove(&s));
	assert_int_equal(s.phase, UPLINK_FREE);
}

static void test_a_free_slot_takes_no_event(void **state)
{
	struct uplink_state s = { .phase = UPLINK_FREE };

	(void)state;
	assert_nothing(uplink_state_try_open(&s));
	assert_nothing(uplink_state_link_up(&s));
	assert_nothing(uplink_state_link_down(&s, "interface wan2 down"));
	assert_nothing(uplink_state_address_changed(&s));
	assert_nothing(uplink_state_set_enabled(&s, false));
	assert_nothing(uplink_state_set_iface_up(&s, false));
	assert_int_equal(s.phase, UPLINK_FREE);
	assert_false(s.off_by_operator || s.down_by_manager);
}

static void test_a_slot_used_again_starts_clean(void **state)
{
	struct uplink_state s = open_uplink();

	(void)state;
	uplink_state_set_enabled(&s, false);
	uplink_state_set_iface_up(&s, false);
	uplink_state_link_down(&s, "interface wan2 down");
	uplink_state_remove(&s);
	uplink_state_add(&s);
	assert_int_equal(s.phase, UPLINK_WAITING);
	assert_null(uplink_state_kept_out(&s));
	assert_string_equal(s.why, "");
	assert_string_equal(uplink_phase_name(UPLINK_LINK_DOWN), "link down");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_added_uplink_waits_then_opens_into_use),
		cmocka_unit_test(test_a_failed_open_is_retried_and_said_once_per_reason),
		cmocka_unit_test(test_link_down_while_open_closes_and_tells_why),
		cmocka_unit_test(test_link_down_while_waiting_stops_the_retries_and_keeps_the_reason),
		cmocka_unit_test(test_link_up_while_open_changes_nothing),
		cmocka_unit_test(test_an_address_change_binds_an_open_socket_again),
		cmocka_unit_test(test_ifdown_keeps_an_open_uplink_out_through_link_flaps_until_ifup),
		cmocka_unit_test(test_an_ifup_never_gives_back_what_the_operator_took),
		cmocka_unit_test(test_holds_on_a_closed_uplink_wait_for_its_socket),
		cmocka_unit_test(test_removal_closes_only_an_open_socket),
		cmocka_unit_test(test_a_free_slot_takes_no_event),
		cmocka_unit_test(test_a_slot_used_again_starts_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
