// SPDX-License-Identifier: MIT
/*
 * Unit tests: ctl.c, the codec of the control family (the netlink messages
 * between wanbondd and the wanbond CLI). The daemon parses what any local
 * process with access to the socket sends, so every parse runs on a heap
 * copy of exactly the bytes given: under ASan a read past them is a crash
 * (libmnl itself is not instrumented, so reads it makes are checked here by
 * hand where it matters). A rejected message must leave the parsed result
 * zeroed and say in its error text what was wrong.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>

#include "ctl.h"
#include "wanbond.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define SEQ 0x01020304u

/* The message under construction (aligned as a receive buffer would be). */
static union {
	struct nlmsghdr h;
	uint64_t align;
	uint8_t b[WB_CTL_MSG_MAX];
} tx;

/* The heap copy the last parse ran on: the parsed pointers point into it. */
static uint8_t *copy;
static char err[256];

static struct nlmsghdr *start(uint8_t cmd)
{
	memset(&tx, 0, sizeof(tx));
	return wb_ctl_msg_start(tx.b, cmd, NLM_F_REQUEST, SEQ);
}

static struct wb_ctl_hdr *ghdr(struct nlmsghdr *nlh)
{
	return mnl_nlmsg_get_payload(nlh);
}

/* Parses len bytes of tx from a heap buffer of exactly len bytes. */
static int parse_len(size_t len, enum wb_ctl_dir dir, struct wb_ctl_msg *m)
{
	free(copy);
	copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, tx.b, len);
	memset(err, 0, sizeof(err));
	/* Garbage in m: a rejection must zero it, an acceptance must fill it. */
	memset(m, 0xa5, sizeof(*m));
	return wb_ctl_parse((const struct nlmsghdr *)copy, len, dir, m, err, sizeof(err));
}

static int parse(const struct nlmsghdr *nlh, enum wb_ctl_dir dir, struct wb_ctl_msg *m)
{
	return parse_len(nlh->nlmsg_len, dir, m);
}

static void assert_zeroed(const struct wb_ctl_msg *m)
{
	static const struct wb_ctl_msg zero;

	assert_memory_equal(m, &zero, sizeof(zero));
}

/* A rejection of len bytes of tx: its code, a word of its message, and m zeroed. */
static void reject_len(size_t len, enum wb_ctl_dir dir, int rc, const char *word)
{
	struct wb_ctl_msg m;

	assert_int_equal(parse_len(len, dir, &m), rc);
	if (!strstr(err, word))
		fail_msg("error \"%s\" does not say \"%s\"", err, word);
	assert_zeroed(&m);
}

static void reject(const struct nlmsghdr *nlh, enum wb_ctl_dir dir, int rc, const char *word)
{
	reject_len(nlh->nlmsg_len, dir, rc, word);
}

static void accept_msg(const struct nlmsghdr *nlh, enum wb_ctl_dir dir, struct wb_ctl_msg *m)
{
	int rc = parse(nlh, dir, m);

	if (rc)
		fail_msg("rejected (%d): %s", rc, err);
}

/* The attribute's offset in the message the last parse ran on. */
static const struct nlattr *in_copy(const struct nlattr *a)
{
	assert_non_null(a);
	assert_true((const uint8_t *)a >= copy);
	return a;
}

static struct nlattr *nest_start(struct nlmsghdr *nlh, uint16_t type)
{
	struct nlattr *n = mnl_attr_nest_start_check(nlh, WB_CTL_MSG_MAX, type);

	assert_non_null(n);
	return n;
}

/* A SET_UPLINK request for "lte" with a weight: valid, for variants to spoil. */
static struct nlmsghdr *set_uplink(uint32_t weight)
{
	struct nlmsghdr *nlh = start(WB_CTL_CMD_SET_UPLINK);
	struct nlattr *n = nest_start(nlh, WB_CTL_A_UPLINK);

	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, weight);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

/* Distinct values in every counter (no two fields alike, no zero), so a field mixed up shows. */
static void fill_bond_counters(struct wb_bond_counters *c)
{
	uint64_t k = 0;

	memset(c, 0, sizeof(*c));
#define FILL(f) k++, c->f = 0x0101010100000000ull * k + k;
	WB_CTL_BOND_COUNTERS(FILL)
}

static void fill_uplink_counters(struct wb_uplink_counters *c)
{
	uint64_t k = 100;

	memset(c, 0, sizeof(*c));
	WB_CTL_UPLINK_COUNTERS(FILL)
#undef FILL
}

/* ---- requests ------------------------------------------------------------------ */

static void test_msg_start_writes_the_family_header(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	nlh = start(WB_CTL_CMD_GET_BOND);
	assert_int_equal(nlh->nlmsg_type, WB_CTL_MSG_TYPE);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(nlh->nlmsg_seq, SEQ);
	assert_int_equal(nlh->nlmsg_len, sizeof(struct nlmsghdr) + sizeof(struct wb_ctl_hdr));
	assert_int_equal(ghdr(nlh)->cmd, WB_CTL_CMD_GET_BOND);
	assert_int_equal(ghdr(nlh)->version, WB_CTL_VERSION);
	assert_int_equal(ghdr(nlh)->reserved, 0);
}

/* The commands that carry nothing: each parses as itself, with no attribute. */
static void test_requests_without_attributes_round_trip(void **state)
{
	static const uint8_t cmds[] = { WB_CTL_CMD_GET_BOND, WB_CTL_CMD_GET_UPLINKS, WB_CTL_CMD_RESET_COUNTERS,
					WB_CTL_CMD_MONITOR };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cmds); i++) {
		struct nlmsghdr *nlh = start(cmds[i]);
		struct wb_ctl_msg m;

		accept_msg(nlh, WB_CTL_REQUEST, &m);
		assert_int_equal(m.cmd, cmds[i]);
		for (unsigned t = 0; t < WB_CTL_A_COUNT; t++)
			assert_null(m.a[t]);
		for (unsigned t = 0; t < WB_CTL_U_COUNT; t++)
			assert_null(m.u[t]);
		assert_int_equal(m.counters.present, 0);
	}
}

static void test_set_sched_request_round_trips(void **state)
{
	struct nlmsghdr *nlh;
	struct wb_ctl_msg m;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "roundrobin");
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, WB_SCHED_RULE_PENALISE | WB_SCHED_RULE_REINJECT);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_OFF, WB_SCHED_RULE_AVOID_BLOCKING);
	accept_msg(nlh, WB_CTL_REQUEST, &m);
	assert_int_equal(m.cmd, WB_CTL_CMD_SET_SCHED);
	assert_string_equal(wb_ctl_str(in_copy(m.a[WB_CTL_A_SCHED_POLICY]), "?"), "roundrobin");
	assert_int_equal(mnl_attr_get_u32(in_copy(m.a[WB_CTL_A_SCHED_SET_ON])),
			 WB_SCHED_RULE_PENALISE | WB_SCHED_RULE_REINJECT);
	assert_int_equal(mnl_attr_get_u32(in_copy(m.a[WB_CTL_A_SCHED_SET_OFF])), WB_SCHED_RULE_AVOID_BLOCKING);
	/* An absent attribute reads as the default. */
	assert_null(m.a[WB_CTL_A_SCHED_OFF]);
	assert_string_equal(wb_ctl_str(m.a[WB_CTL_A_BOND_NAME], "none"), "none");
}

/* Any one of policy, rules on, rules off is enough; every policy the scheduler has is accepted. */
static void test_set_sched_request_with_one_thing_each(void **state)
{
	static const char *const policies[] = { "default", "roundrobin", "redundant", "first" };
	struct nlmsghdr *nlh;
	struct wb_ctl_msg m;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(policies); i++) {
		assert_true(wb_sched_exists(policies[i]));
		nlh = start(WB_CTL_CMD_SET_SCHED);
		mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, policies[i]);
		accept_msg(nlh, WB_CTL_REQUEST, &m);
		assert_string_equal(mnl_attr_get_str(m.a[WB_CTL_A_SCHED_POLICY]), policies[i]);
	}
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, 0xff); /* every rule, arrival (0x80) too */
	accept_msg(nlh, WB_CTL_REQUEST, &m);
	assert_null(m.a[WB_CTL_A_SCHED_POLICY]);
	assert_int_equal(mnl_attr_get_u32(m.a[WB_CTL_A_SCHED_SET_ON]), 0xff);
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_OFF, 0xff);
	accept_msg(nlh, WB_CTL_REQUEST, &m);
	assert_int_equal(mnl_attr_get_u32(m.a[WB_CTL_A_SCHED_SET_OFF]), 0xff);
	/* Each rule the configuration file and the CLI name, by its name. */
	for (uint32_t flag = 1; flag; flag <<= 1) {
		if (!wb_sched_rule_name(flag))
			continue;
		nlh = start(WB_CTL_CMD_SET_SCHED);
		mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_OFF, wb_sched_rule_by_name(wb_sched_rule_name(flag)));
		accept_msg(nlh, WB_CTL_REQUEST, &m);
	}
}

static void test_set_uplink_request_round_trips(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;
	struct wb_ctl_msg m;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "dsl-2");
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 1);
	mnl_attr_put_u8(nlh, WB_CTL_U_ENABLED, 0);
	mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, 250);
	mnl_attr_nest_end(nlh, n);
	accept_msg(nlh, WB_CTL_REQUEST, &m);
	assert_int_equal(m.cmd, WB_CTL_CMD_SET_UPLINK);
	assert_non_null(in_copy(m.a[WB_CTL_A_UPLINK]));
	assert_string_equal(mnl_attr_get_str(in_copy(m.u[WB_CTL_U_NAME])), "dsl-2");
	assert_int_equal(mnl_attr_get_u8(in_copy(m.u[WB_CTL_U_BACKUP])), 1);
	assert_int_equal(mnl_attr_get_u8(in_copy(m.u[WB_CTL_U_ENABLED])), 0);
	assert_int_equal(mnl_attr_get_u32(in_copy(m.u[WB_CTL_U_WEIGHT])), 250);
	assert_null(m.u[WB_CTL_U_SRTT]);
	assert_int_equal(m.counters.present, 0);
}

/* Each of backup, enabled, weight is a change on its own. */
static void test_set_uplink_request_with_one_change_each(void **state)
{
	static const uint16_t types[] = { WB_CTL_U_BACKUP, WB_CTL_U_ENABLED };
	struct wb_ctl_msg m;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(types); i++) {
		struct nlmsghdr *nlh = start(WB_CTL_CMD_SET_UPLINK);
		struct nlattr *n = nest_start(nlh, WB_CTL_A_UPLINK);

		mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
		mnl_attr_put_u8(nlh, types[i], 0);
		mnl_attr_nest_end(nlh, n);
		accept_msg(nlh, WB_CTL_REQUEST, &m);
		assert_non_null(m.u[types[i]]);
	}
	accept_msg(set_uplink(7), WB_CTL_REQUEST, &m);
	assert_int_equal(mnl_attr_get_u32(m.u[WB_CTL_U_WEIGHT]), 7);
}

/* Uplink names are up to WB_UPLINK_NAME_MAX bytes: that many pass, one more does not. */
static void test_uplink_name_length_boundary(void **state)
{
	char name[WB_UPLINK_NAME_MAX + 2];
	struct nlmsghdr *nlh;
	struct nlattr *n;
	struct wb_ctl_msg m;

	(void)state;
	memset(name, 'u', sizeof(name));
	name[WB_UPLINK_NAME_MAX] = '\0';
	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, name);
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 0);
	mnl_attr_nest_end(nlh, n);
	accept_msg(nlh, WB_CTL_REQUEST, &m);
	assert_int_equal(strlen(mnl_attr_get_str(m.u[WB_CTL_U_NAME])), WB_UPLINK_NAME_MAX);

	name[WB_UPLINK_NAME_MAX] = 'u';
	name[WB_UPLINK_NAME_MAX + 1] = '\0';
	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, name);
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 0);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "1 to 31 bytes");
}

/* ---- replies -------------------------------------------------------------------- */

static void test_bond_reply_round_trips_with_every_counter(void **state)
{
	struct wb_bond_counters c, back;
	struct wb_device_counters dc, dback;
	struct nlmsghdr *nlh;
	struct wb_ctl_msg m;

	(void)state;
	fill_bond_counters(&c);
	/* Each field its own value, far from the bond's: a mix-up of the lists shows. */
	for (size_t i = 0; i < sizeof(dc) / sizeof(uint64_t); i++)
		((uint64_t *)&dc)[i] = (7ull << 40) + i;
	nlh = start(WB_CTL_CMD_GET_BOND);
	mnl_attr_put_strz(nlh, WB_CTL_A_BOND_NAME, "home");
	mnl_attr_put_strz(nlh, WB_CTL_A_ROLE, "client");
	mnl_attr_put_strz(nlh, WB_CTL_A_TUN, "wb0");
	mnl_attr_put_strz(nlh, WB_CTL_A_PEER, "yb35g17ryfpD/SA9B4ovqyegIUZpzu1DW+DcWbYeHws=");
	mnl_attr_put_u8(nlh, WB_CTL_A_SESSION, 1);
	mnl_attr_put_u64(nlh, WB_CTL_A_HANDSHAKE_AGO, 12345678901ull);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "default");
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_OFF, WB_SCHED_RULE_REINJECT_RWND);
	mnl_attr_put_u32(nlh, WB_CTL_A_MTU, 1420);
	mnl_attr_put_u64(nlh, WB_CTL_A_SEND_BUFFER, 4ull << 20);
	mnl_attr_put_u64(nlh, WB_CTL_A_RECEIVE_WINDOW, 6ull << 20);
	mnl_attr_put_u64(nlh, WB_CTL_A_SEND_QUEUE, 1500);
	mnl_attr_put_u64(nlh, WB_CTL_A_MEMORY, 1ull << 33);
	mnl_attr_put_u64(nlh, WB_CTL_A_UPTIME, UINT64_MAX);
	assert_true(wb_ctl_put_bond_counters(nlh, WB_CTL_A_COUNTERS, &c));
	assert_true(wb_ctl_put_device_counters(nlh, WB_CTL_A_DEVICE_COUNTERS, &dc));
	accept_msg(nlh, WB_CTL_REPLY, &m);

	assert_int_equal(m.cmd, WB_CTL_CMD_GET_BOND);
	assert_string_equal(mnl_attr_get_str(m.a[WB_CTL_A_BOND_NAME]), "home");
	assert_string_equal(mnl_attr_get_str(m.a[WB_CTL_A_ROLE]), "client");
	assert_string_equal(mnl_attr_get_str(m.a[WB_CTL_A_TUN]), "wb0");
	assert_string_equal(mnl_attr_get_str(m.a[WB_CTL_A_PEER]), "yb35g17ryfpD/SA9B4ovqyegIUZpzu1DW+DcWbYeHws=");
	assert_int_equal(mnl_attr_get_u8(m.a[WB_CTL_A_SESSION]), 1);
	assert_int_equal(mnl_attr_get_u64(m.a[WB_CTL_A_HANDSHAKE_AGO]), 12345678901ull);
	assert_string_equal(mnl_attr_get_str(m.a[WB_CTL_A_SCHED_POLICY]), "default");
	assert_int_equal(mnl_attr_get_u32(m.a[WB_CTL_A_SCHED_OFF]), WB_SCHED_RULE_REINJECT_RWND);
	assert_int_equal(mnl_attr_get_u32(m.a[WB_CTL_A_MTU]), 1420);
	assert_int_equal(mnl_attr_get_u64(m.a[WB_CTL_A_SEND_BUFFER]), 4ull << 20);
	assert_int_equal(mnl_attr_get_u64(m.a[WB_CTL_A_RECEIVE_WINDOW]), 6ull << 20);
	assert_int_equal(mnl_attr_get_u64(m.a[WB_CTL_A_SEND_QUEUE]), 1500);
	assert_int_equal(mnl_attr_get_u64(m.a[WB_CTL_A_MEMORY]), 1ull << 33);
	assert_int_equal(mnl_attr_get_u64(m.a[WB_CTL_A_UPTIME]), UINT64_MAX);
	assert_non_null(m.a[WB_CTL_A_COUNTERS]);
	assert_int_equal(m.counters.present, (1ull << WB_CTL_N_BOND_COUNTERS) - 1);
	/* Every field back where it was: the struct compares whole. */
	memset(&back, 0xee, sizeof(back));
	wb_ctl_bond_counters_from(&m.counters, &back);
	assert_memory_equal(&back, &c, sizeof(c));
	assert_int_equal(m.device_counters.present, (1ull << WB_CTL_N_DEVICE_COUNTERS) - 1);
	memset(&dback, 0xee, sizeof(dback));
	wb_ctl_device_counters_from(&m.device_counters, &dback);
	assert_memory_equal(&dback, &dc, sizeof(dc));
	assert_int_equal(dback.bad_mac1, (7ull << 40) + 3);
}

/* The counter tables cover every field of the structures (a field left out would read as zero). */
static void test_counter_tables_cover_the_structures(void **state)
{
	(void)state;
	assert_int_equal(WB_CTL_N_BOND_COUNTERS * sizeof(uint64_t), sizeof(struct wb_bond_counters));
	assert_int_equal(WB_CTL_N_UPLINK_COUNTERS * sizeof(uint64_t), sizeof(struct wb_uplink_counters));
	assert_int_equal(WB_CTL_N_DEVICE_COUNTERS * sizeof(uint64_t), sizeof(struct wb_device_counters));
	/* present is a 64-bit mask */
	assert_true(WB_CTL_N_BOND_COUNTERS <= 64 && WB_CTL_N_UPLINK_COUNTERS <= 64);
}

static void test_uplink_reply_round_trips_with_its_counters(void **state)
{
	struct wb_uplink_counters c, back;
	struct nlmsghdr *nlh;
	struct nlattr *n;
	struct wb_ctl_msg m;

	(void)state;
	fill_uplink_counters(&c);
	nlh = start(WB_CTL_CMD_GET_UPLINKS);
	nlh->nlmsg_flags = NLM_F_MULTI;
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_put_u32(nlh, WB_CTL_U_ID, 3);
	mnl_attr_put_strz(nlh, WB_CTL_U_STATE, "probing");
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 0);
	mnl_attr_put_u8(nlh, WB_CTL_U_ENABLED, 1);
	mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, 1000);
	mnl_attr_put_strz(nlh, WB_CTL_U_DEVICE, "wwan0");
	mnl_attr_put_strz(nlh, WB_CTL_U_ENDPOINT, "[2001:db8::7]:51821");
	mnl_attr_put_strz(nlh, WB_CTL_U_SOCKET, "bind: No such device");
	mnl_attr_put_u64(nlh, WB_CTL_U_SRTT, 41000000);
	mnl_attr_put_u64(nlh, WB_CTL_U_MIN_RTT, 38000000);
	mnl_attr_put_u64(nlh, WB_CTL_U_RTTVAR, 2000000);
	mnl_attr_put_u32(nlh, WB_CTL_U_LOSS_PPM, 12500);
	mnl_attr_put_u64(nlh, WB_CTL_U_CWND, 64000);
	mnl_attr_put_u64(nlh, WB_CTL_U_IN_FLIGHT, 12000);
	mnl_attr_put_u64(nlh, WB_CTL_U_PACING_RATE, 2500000);
	assert_true(wb_ctl_put_uplink_counters(nlh, WB_CTL_U_COUNTERS, &c));
	mnl_attr_nest_end(nlh, n);
	accept_msg(nlh, WB_CTL_REPLY, &m);

	assert_int_equal(m.cmd, WB_CTL_CMD_GET_UPLINKS);
	assert_non_null(m.a[WB_CTL_A_UPLINK]);
	assert_null(m.a[WB_CTL_A_COUNTERS]);
	assert_string_equal(mnl_attr_get_str(m.u[WB_CTL_U_NAME]), "lte");
	assert_int_equal(mnl_attr_get_u32(m.u[WB_CTL_U_ID]), 3);
	assert_string_equal(mnl_attr_get_str(m.u[WB_CTL_U_STATE]), "probing");
	assert_int_equal(mnl_attr_get_u8(m.u[WB_CTL_U_BACKUP]), 0);
	assert_int_equal(mnl_attr_get_u8(m.u[WB_CTL_U_ENABLED]), 1);
	assert_int_equal(mnl_attr_get_u32(m.u[WB_CTL_U_WEIGHT]), 1000);
	assert_string_equal(mnl_attr_get_str(m.u[WB_CTL_U_DEVICE]), "wwan0");
	assert_string_equal(mnl_attr_get_str(m.u[WB_CTL_U_ENDPOINT]), "[2001:db8::7]:51821");
	assert_string_equal(mnl_attr_get_str(m.u[WB_CTL_U_SOCKET]), "bind: No such device");
	assert_int_equal(mnl_attr_get_u64(m.u[WB_CTL_U_SRTT]), 41000000);
	assert_int_equal(mnl_attr_get_u64(m.u[WB_CTL_U_MIN_RTT]), 38000000);
	assert_int_equal(mnl_attr_get_u64(m.u[WB_CTL_U_RTTVAR]), 2000000);
	assert_int_equal(mnl_attr_get_u32(m.u[WB_CTL_U_LOSS_PPM]), 12500);
	assert_int_equal(mnl_attr_get_u64(m.u[WB_CTL_U_CWND]), 64000);
	assert_int_equal(mnl_attr_get_u64(m.u[WB_CTL_U_IN_FLIGHT]), 12000);
	assert_int_equal(mnl_attr_get_u64(m.u[WB_CTL_U_PACING_RATE]), 2500000);
	assert_non_null(m.u[WB_CTL_U_COUNTERS]);
	assert_int_equal(m.uplink_counters.present, (1ull << WB_CTL_N_UPLINK_COUNTERS) - 1);
	assert_int_equal(m.counters.present, 0); /* the bond's set is apart */
	memset(&back, 0xee, sizeof(back));
	wb_ctl_uplink_counters_from(&m.uplink_counters, &back);
	assert_memory_equal(&back, &c, sizeof(c));
}

static void test_event_reply_round_trips(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;
	struct wb_ctl_msg m;

	(void)state;
	nlh = start(WB_CTL_CMD_EVENT);
	nlh->nlmsg_flags = 0;
	n = nest_start(nlh, WB_CTL_A_EVENT);
	mnl_attr_put_u32(nlh, WB_CTL_E_TYPE, WB_CTL_EV_REINJECTION);
	mnl_attr_put_strz(nlh, WB_CTL_E_UPLINK, "dsl");
	mnl_attr_put_u64(nlh, WB_CTL_E_COUNT, 17);
	mnl_attr_put_strz(nlh, WB_CTL_E_TEXT, "17 packets copied onto dsl");
	mnl_attr_nest_end(nlh, n);
	accept_msg(nlh, WB_CTL_REPLY, &m);
	assert_int_equal(m.cmd, WB_CTL_CMD_EVENT);
	assert_non_null(m.a[WB_CTL_A_EVENT]);
	assert_int_equal(mnl_attr_get_u32(m.e[WB_CTL_E_TYPE]), WB_CTL_EV_REINJECTION);
	assert_string_equal(mnl_attr_get_str(m.e[WB_CTL_E_UPLINK]), "dsl");
	assert_int_equal(mnl_attr_get_u64(m.e[WB_CTL_E_COUNT]), 17);
	assert_string_equal(mnl_attr_get_str(m.e[WB_CTL_E_TEXT]), "17 packets copied onto dsl");
	/* No uplink attribute: the uplink table stays empty. */
	assert_null(m.a[WB_CTL_A_UPLINK]);
	assert_null(m.u[WB_CTL_U_NAME]);
}

/* A reply with some counters (an older daemon): the others are absent, and read as zero. */
static void test_counters_absent_read_as_zero(void **state)
{
	struct wb_bond_counters back;
	struct nlmsghdr *nlh;
	struct nlattr *n;
	struct wb_ctl_msg m;

	(void)state;
	nlh = start(WB_CTL_CMD_GET_BOND);
	n = nest_start(nlh, WB_CTL_A_COUNTERS);
	mnl_attr_put_u64(nlh, 1, 111);  /* tun_rx_packets */
	mnl_attr_put_u64(nlh, WB_CTL_N_BOND_COUNTERS, 999); /* the last: fec_repaired */
	mnl_attr_nest_end(nlh, n);
	accept_msg(nlh, WB_CTL_REPLY, &m);
	assert_int_equal(m.counters.present, 1ull | 1ull << (WB_CTL_N_BOND_COUNTERS - 1));
	memset(&back, 0xee, sizeof(back));
	wb_ctl_bond_counters_from(&m.counters, &back);
	assert_int_equal(back.tun_rx_packets, 111);
	assert_int_equal(back.fec_repaired, 999);
	assert_int_equal(back.pool_full_drops, 0);
	assert_int_equal(back.tun_rx_bytes, 0);
	assert_int_equal(back.rekeys, 0);
}

/*
 * A newer daemon may add attributes, at the top, in an uplink, in an event,
 * and counters: a reply skips what it does not know and reads the rest.
 */
static void test_reply_skips_attributes_of_a_newer_daemon(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n, *c;
	struct wb_ctl_msg m;

	(void)state;
	nlh = start(WB_CTL_CMD_GET_UPLINKS);
	mnl_attr_put_u16(nlh, WB_CTL_A_COUNT + 5, 0xbeef);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_put_u8(nlh, WB_CTL_U_COUNT, 9); /* an unknown u8: never checked as 0 or 1 */
	c = nest_start(nlh, WB_CTL_U_COUNTERS);
	mnl_attr_put_u64(nlh, 2, 22);
	mnl_attr_put_u32(nlh, WB_CTL_N_UPLINK_COUNTERS + 1, 7); /* a newer counter, of any size */
	mnl_attr_put_u64(nlh, 0, 5);                           /* type 0: no counter */
	mnl_attr_nest_end(nlh, c);
	mnl_attr_nest_end(nlh, n);
	mnl_attr_put_strz(nlh, 0x3fff, "the largest type");
	accept_msg(nlh, WB_CTL_REPLY, &m);
	assert_string_equal(mnl_attr_get_str(m.u[WB_CTL_U_NAME]), "lte");
	assert_int_equal(m.uplink_counters.present, 1ull << 1);
	assert_int_equal(m.uplink_counters.v[1], 22);

	nlh = start(WB_CTL_CMD_EVENT);
	n = nest_start(nlh, WB_CTL_A_EVENT);
	mnl_attr_put_u32(nlh, WB_CTL_E_TYPE, WB_CTL_EV_COUNT + 3); /* an event this side has no name for */
	mnl_attr_put_u64(nlh, WB_CTL_E_MAX_ATTR, 1);
	mnl_attr_nest_end(nlh, n);
	accept_msg(nlh, WB_CTL_REPLY, &m);
	assert_int_equal(mnl_attr_get_u32(m.e[WB_CTL_E_TYPE]), WB_CTL_EV_COUNT + 3);
	assert_null(wb_ctl_event_name(mnl_attr_get_u32(m.e[WB_CTL_E_TYPE])));
}

/* The same attributes in a request are errors that say which attribute. */
static void test_request_rejects_unknown_attributes_by_number(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;
	char expect[64];

	(void)state;
	nlh = start(WB_CTL_CMD_GET_BOND);
	mnl_attr_put_u16(nlh, WB_CTL_A_COUNT + 5, 0xbeef);
	snprintf(expect, sizeof(expect), "unknown attribute %d", WB_CTL_A_COUNT + 5);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, expect);
	/* Type 0 is no attribute either. */
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "first");
	mnl_attr_put_u32(nlh, WB_CTL_A_UNSPEC, 0);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "unknown attribute 0");

	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 1);
	mnl_attr_put_u8(nlh, WB_CTL_U_COUNT, 1);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "unknown uplink attribute 25");
}

/* add-uplink: a name and a binding (device, source or mark); del-uplink: the name alone. */
static void test_add_and_del_uplink_requests(void **state)
{
	struct wb_ctl_msg m;
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	nlh = start(WB_CTL_CMD_ADD_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte2");
	mnl_attr_put_strz(nlh, WB_CTL_U_DEVICE, "wwan1");
	mnl_attr_put_strz(nlh, WB_CTL_U_SOURCE, "192.0.2.7");
	mnl_attr_put_u32(nlh, WB_CTL_U_FWMARK, 0x10000);
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 1);
	mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, 3);
	mnl_attr_nest_end(nlh, n);
	accept_msg(nlh, WB_CTL_REQUEST, &m);
	assert_int_equal(m.cmd, WB_CTL_CMD_ADD_UPLINK);
	assert_string_equal(mnl_attr_get_str(m.u[WB_CTL_U_SOURCE]), "192.0.2.7");
	assert_int_equal(mnl_attr_get_u32(m.u[WB_CTL_U_FWMARK]), 0x10000);

	nlh = start(WB_CTL_CMD_ADD_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte2");
	mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, 3);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "needs at least one of device, source and fwmark");

	nlh = start(WB_CTL_CMD_ADD_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte2");
	mnl_attr_put_u32(nlh, WB_CTL_U_FWMARK, 0);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "fwmark 0 is no mark");

	nlh = start(WB_CTL_CMD_ADD_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte2");
	mnl_attr_put_strz(nlh, WB_CTL_U_DEVICE, "wwan1");
	mnl_attr_put_u8(nlh, WB_CTL_U_ENABLED, 1);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "add-uplink: uplink attribute 5 cannot be set");

	nlh = start(WB_CTL_CMD_DEL_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte2");
	mnl_attr_nest_end(nlh, n);
	accept_msg(nlh, WB_CTL_REQUEST, &m);
	assert_int_equal(m.cmd, WB_CTL_CMD_DEL_UPLINK);

	nlh = start(WB_CTL_CMD_DEL_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte2");
	mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, 3);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "del-uplink: uplink attribute 6 cannot be set");

	nlh = start(WB_CTL_CMD_DEL_UPLINK);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "del-uplink: the uplink's name is missing");
}

/* ---- rejections: the envelope ---------------------------------------------------------- */

static void test_length_not_matching_the_header_is_rejected(void **state)
{
	struct nlmsghdr *nlh;
	size_t len;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "first");
	len = nlh->nlmsg_len;
	/* More bytes than the header says (a second message, or junk after it). */
	reject_len(len + 4, WB_CTL_REQUEST, -EINVAL, "length");
	/* Fewer. */
	reject_len(len - 4, WB_CTL_REQUEST, -EINVAL, "length");
	/* A header that claims less than a header. */
	nlh->nlmsg_len = 8;
	reject_len(len, WB_CTL_REQUEST, -EINVAL, "length");
	nlh->nlmsg_len = 8;
	reject_len(8, WB_CTL_REQUEST, -EINVAL, "length");
}

/* Shorter than an nlmsghdr: rejected before the header is read (ASan sees a read past a short copy). */
static void test_shorter_than_the_header_is_rejected(void **state)
{
	(void)state;
	start(WB_CTL_CMD_GET_BOND);
	for (size_t len = 0; len < sizeof(struct nlmsghdr); len++)
		reject_len(len, WB_CTL_REQUEST, -EINVAL, "length");
}

static void test_wrong_message_type_is_rejected(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	nlh = start(WB_CTL_CMD_GET_BOND);
	nlh->nlmsg_type = NLMSG_ERROR;
	reject(nlh, WB_CTL_REPLY, -EINVAL, "type 2");
	nlh->nlmsg_type = WB_CTL_MSG_TYPE + 1;
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "type 88");
}

static void test_payload_shorter_than_the_generic_header_is_rejected(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	for (uint32_t extra = 0; extra < sizeof(struct wb_ctl_hdr); extra++) {
		nlh = start(WB_CTL_CMD_GET_BOND);
		nlh->nlmsg_len = sizeof(struct nlmsghdr) + extra;
		reject(nlh, WB_CTL_REQUEST, -EINVAL, "too short");
	}
}

static void test_wrong_version_is_eproto(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	nlh = start(WB_CTL_CMD_GET_BOND);
	ghdr(nlh)->version = WB_CTL_VERSION + 1;
	reject(nlh, WB_CTL_REQUEST, -EPROTO, "version 2");
	ghdr(nlh)->version = 0;
	reject(nlh, WB_CTL_REPLY, -EPROTO, "version 0");
}

static void test_unknown_command_is_eopnotsupp(void **state)
{
	static const uint8_t cmds[] = { WB_CTL_CMD_UNSPEC, WB_CTL_CMD_COUNT, 0xff };
	struct nlmsghdr *nlh;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cmds); i++) {
		nlh = start(cmds[i]);
		reject(nlh, WB_CTL_REQUEST, -EOPNOTSUPP, "unknown command");
		reject(nlh, WB_CTL_REPLY, -EOPNOTSUPP, "unknown command");
	}
}

/* EVENT goes from the daemon to a monitor only: as a request it is no command. */
static void test_event_as_a_request_is_eopnotsupp(void **state)
{
	struct nlmsghdr *nlh;
	struct wb_ctl_msg m;

	(void)state;
	nlh = start(WB_CTL_CMD_EVENT);
	reject(nlh, WB_CTL_REQUEST, -EOPNOTSUPP, "command 7");
	accept_msg(nlh, WB_CTL_REPLY, &m);
	assert_int_equal(m.cmd, WB_CTL_CMD_EVENT);
}

/* The message text fits whatever buffer it is given, NUL-terminated. */
static void test_error_text_is_cut_to_its_buffer(void **state)
{
	struct nlmsghdr *nlh;
	struct wb_ctl_msg m;
	char small[8];

	(void)state;
	nlh = start(WB_CTL_CMD_UNSPEC);
	memset(small, 'x', sizeof(small));
	assert_int_equal(wb_ctl_parse(nlh, nlh->nlmsg_len, WB_CTL_REQUEST, &m, small, sizeof(small)), -EOPNOTSUPP);
	assert_string_equal(small, "unknown");
}

/* ---- rejections: attributes -------------------------------------------------------------- */

static void test_u32_of_wrong_size_is_rejected(void **state)
{
	static const uint8_t bytes[8] = { 1 };
	static const uint16_t sizes[] = { 0, 3, 5, 8 };
	struct nlmsghdr *nlh;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
		nlh = start(WB_CTL_CMD_SET_SCHED);
		mnl_attr_put(nlh, WB_CTL_A_SCHED_SET_ON, sizes[i], bytes);
		reject(nlh, WB_CTL_REQUEST, -EINVAL, "attribute 9: wrong type or length");
	}
	/* In a reply as well: a known attribute is checked whoever sent it. */
	nlh = start(WB_CTL_CMD_GET_BOND);
	mnl_attr_put(nlh, WB_CTL_A_MTU, 3, bytes);
	reject(nlh, WB_CTL_REPLY, -EINVAL, "attribute 11: wrong type or length (3 bytes)");
	/* A u64 of 4 bytes. */
	nlh = start(WB_CTL_CMD_GET_BOND);
	mnl_attr_put_u32(nlh, WB_CTL_A_UPTIME, 1);
	reject(nlh, WB_CTL_REPLY, -EINVAL, "attribute 16: wrong type or length");
}

static void test_string_without_nul_is_rejected(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_str(nlh, WB_CTL_A_SCHED_POLICY, "first"); /* without its NUL */
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "attribute 7: wrong type or length");
}

static void test_string_with_nul_inside_is_rejected(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	/* "first" for a C reader, more for the sender: the two must not disagree. */
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put(nlh, WB_CTL_A_SCHED_POLICY, sizeof("first\0x"), "first\0x");
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "NUL inside");
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put(nlh, WB_CTL_A_SCHED_POLICY, sizeof("\0\0"), "\0\0");
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "NUL inside");
}

static void test_string_too_long_is_rejected(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	/* Policies are up to 16 bytes: 16 passes the length check (and fails as no policy), 17 does not. */
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "sixteen-bytes-xx");
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "no policy");
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "seventeen-bytes-x");
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "a string of 1 to 16 bytes");
}

static void test_empty_string_is_rejected(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "");
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "a string of 1 to");
	/* An empty uplink name would match no uplink, or the wrong one. */
	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "");
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 1);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "uplink attribute 1: a string of 1 to");
}

static void test_boolean_other_than_0_or_1_is_rejected(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 2);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "0 or 1 expected, got 2");
	/* In a reply too. */
	nlh = start(WB_CTL_CMD_GET_BOND);
	mnl_attr_put_u8(nlh, WB_CTL_A_SESSION, 0xff);
	reject(nlh, WB_CTL_REPLY, -EINVAL, "0 or 1 expected, got 255");
}

static void test_attribute_given_twice_is_rejected(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	/* Twice the same value or not: which one would count is not for the parser to guess. */
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, 1);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, 1);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "attribute 9 given twice");
	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "dsl");
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 1);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "uplink attribute 1 given twice");
	/* Two uplink nests. */
	nlh = set_uplink(5);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "dsl");
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "attribute 18 given twice");
}

static void test_attribute_of_another_command_is_rejected(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	nlh = start(WB_CTL_CMD_GET_BOND);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "first");
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "attribute 7 is not one of get-bond's");
	/* What a reply carries is no request's. */
	nlh = start(WB_CTL_CMD_RESET_COUNTERS);
	mnl_attr_put_u32(nlh, WB_CTL_A_MTU, 1400);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "not one of reset-counters's");
	/* SET_UPLINK's nest in SET_SCHED. */
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, 1);
	mnl_attr_nest_end(nlh, nest_start(nlh, WB_CTL_A_UPLINK));
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "attribute 18 is not one of set-sched's");
	/* A MONITOR that subscribes with an event nest. */
	nlh = start(WB_CTL_CMD_MONITOR);
	mnl_attr_nest_end(nlh, nest_start(nlh, WB_CTL_A_EVENT));
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "not one of monitor's");
}

/* mnl's walk stops quietly at an attribute that runs past the end: the parser must not. */
static void test_attribute_past_the_end_of_the_message_is_rejected(void **state)
{
	struct nlmsghdr *nlh;
	struct wb_ctl_msg m;
	uint32_t full;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, 1);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "roundrobin");
	full = nlh->nlmsg_len;
	/* The last attribute cut: the walk would see only SET_ON, a valid request. */
	for (uint32_t cut = MNL_ALIGN(sizeof("roundrobin")) - sizeof("roundrobin") + 1;
	     cut < MNL_ALIGN(sizeof("roundrobin")) + MNL_ATTR_HDRLEN; cut++) {
		nlh->nlmsg_len = full - cut;
		reject(nlh, WB_CTL_REQUEST, -EINVAL, "past the end of the message");
	}
	/* Its padding alone may be missing. */
	nlh->nlmsg_len = full - (uint32_t)(MNL_ALIGN(sizeof("roundrobin")) - sizeof("roundrobin"));
	accept_msg(nlh, WB_CTL_REQUEST, &m);
	assert_string_equal(mnl_attr_get_str(m.a[WB_CTL_A_SCHED_POLICY]), "roundrobin");
	/* 1 to 3 bytes after the last attribute: no attribute fits in them. */
	nlh->nlmsg_len = full + 2;
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "past the end of the message");
}

/* An attribute cut inside its nest: the nest's own length says less than the attributes in it. */
static void test_nested_attribute_truncated_inside_its_nest_is_rejected(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, 9);
	mnl_attr_nest_end(nlh, n);
	n->nla_len -= 2; /* the weight's last 2 bytes outside its nest, the message still whole */
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "uplink attribute: an attribute runs past the end of its nest");

	/* The same in an event, and in counters. */
	nlh = start(WB_CTL_CMD_EVENT);
	n = nest_start(nlh, WB_CTL_A_EVENT);
	mnl_attr_put_u32(nlh, WB_CTL_E_TYPE, WB_CTL_EV_FAILOVER);
	mnl_attr_nest_end(nlh, n);
	n->nla_len -= 1;
	reject(nlh, WB_CTL_REPLY, -EINVAL, "event attribute: an attribute runs past the end of its nest");

	nlh = start(WB_CTL_CMD_GET_BOND);
	n = nest_start(nlh, WB_CTL_A_COUNTERS);
	mnl_attr_put_u64(nlh, 1, 1);
	mnl_attr_put_u64(nlh, 2, 2);
	mnl_attr_nest_end(nlh, n);
	n->nla_len -= 2;
	reject(nlh, WB_CTL_REPLY, -EINVAL, "counters: an attribute runs past the end of the nest");
}

/* A nest of 1 to 3 bytes holds not even an attribute header. */
static void test_nest_too_short_for_an_attribute_is_rejected(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	nlh = start(WB_CTL_CMD_GET_UPLINKS);
	mnl_attr_put(nlh, WB_CTL_A_UPLINK, 2, "ab");
	reject(nlh, WB_CTL_REPLY, -EINVAL, "attribute 18: wrong type or length");
}

/* ---- rejections: what requests ask for ------------------------------------------------------ */

static void test_set_sched_with_nothing_is_rejected(void **state)
{
	(void)state;
	reject(start(WB_CTL_CMD_SET_SCHED), WB_CTL_REQUEST, -EINVAL, "nothing to set");
}

static void test_set_sched_unknown_rule_bits_are_rejected(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, 0x200 | WB_SCHED_RULE_PENALISE);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "unknown rule bits 0x200");
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_OFF, 0x80000000u);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "unknown rule bits 0x80000000");
}

static void test_set_sched_same_rule_on_and_off_is_rejected(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, WB_SCHED_RULE_PENALISE | WB_SCHED_RULE_REINJECT);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_OFF, WB_SCHED_RULE_REINJECT);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "rule bits 0x4 both on and off");
}

static void test_set_sched_unknown_policy_is_rejected(void **state)
{
	struct nlmsghdr *nlh;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "fastest");
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "no policy 'fastest'");
	/* Names are exact. */
	nlh = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "First");
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "no policy");
}

static void test_set_uplink_without_a_name_is_rejected(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	reject(start(WB_CTL_CMD_SET_UPLINK), WB_CTL_REQUEST, -EINVAL, "name is missing");
	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, 10);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "name is missing");
	/* An empty nest. */
	nlh = start(WB_CTL_CMD_SET_UPLINK);
	mnl_attr_nest_end(nlh, nest_start(nlh, WB_CTL_A_UPLINK));
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "name is missing");
}

static void test_set_uplink_with_nothing_to_change_is_rejected(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "nothing to change");
}

static void test_set_uplink_weight_range(void **state)
{
	struct wb_ctl_msg m;

	(void)state;
	reject(set_uplink(0), WB_CTL_REQUEST, -EINVAL, "weight 0 out of range 1..1000");
	reject(set_uplink(1001), WB_CTL_REQUEST, -EINVAL, "weight 1001 out of range");
	reject(set_uplink(UINT32_MAX), WB_CTL_REQUEST, -EINVAL, "out of range");
	accept_msg(set_uplink(1), WB_CTL_REQUEST, &m);
	assert_int_equal(mnl_attr_get_u32(m.u[WB_CTL_U_WEIGHT]), 1);
	accept_msg(set_uplink(1000), WB_CTL_REQUEST, &m);
	assert_int_equal(mnl_attr_get_u32(m.u[WB_CTL_U_WEIGHT]), 1000);
}

/* What the daemon measures or knows (state, RTT, its slot, counters) is not the operator's to set. */
static void test_set_uplink_attribute_that_cannot_be_set_is_rejected(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	nlh = set_uplink(5);
	n = (struct nlattr *)((uint8_t *)nlh + MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct wb_ctl_hdr)));
	mnl_attr_put_u64(nlh, WB_CTL_U_SRTT, 1000);
	n->nla_len = (uint16_t)((uint8_t *)mnl_nlmsg_get_payload_tail(nlh) - (uint8_t *)n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "uplink attribute 10 cannot be set");

	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_put_strz(nlh, WB_CTL_U_STATE, "up");
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "uplink attribute 3 cannot be set");

	nlh = start(WB_CTL_CMD_SET_UPLINK);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 1);
	mnl_attr_nest_end(nlh, nest_start(nlh, WB_CTL_U_COUNTERS));
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REQUEST, -EINVAL, "uplink attribute 17 cannot be set");
}

/* ---- rejections: counters -------------------------------------------------------------------- */

static void test_counter_of_wrong_size_is_rejected(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;
	char want[64];

	(void)state;
	nlh = start(WB_CTL_CMD_GET_BOND);
	n = nest_start(nlh, WB_CTL_A_COUNTERS);
	mnl_attr_put_u64(nlh, 1, 1);
	mnl_attr_put_u32(nlh, 2, 2);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REPLY, -EINVAL, "counter 2: a u64 expected");

	/* In an uplink's counters, by the uplink table's size. */
	nlh = start(WB_CTL_CMD_GET_UPLINKS);
	n = nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	{
		struct nlattr *c = nest_start(nlh, WB_CTL_U_COUNTERS);

		mnl_attr_put_u8(nlh, WB_CTL_N_UPLINK_COUNTERS, 1);
		mnl_attr_nest_end(nlh, c);
	}
	mnl_attr_nest_end(nlh, n);
	snprintf(want, sizeof(want), "counter %d: a u64 expected", WB_CTL_N_UPLINK_COUNTERS);
	reject(nlh, WB_CTL_REPLY, -EINVAL, want);
}

static void test_counter_given_twice_is_rejected(void **state)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	nlh = start(WB_CTL_CMD_GET_BOND);
	n = nest_start(nlh, WB_CTL_A_COUNTERS);
	mnl_attr_put_u64(nlh, 3, 1);
	mnl_attr_put_u64(nlh, 4, 1);
	mnl_attr_put_u64(nlh, 3, 2);
	mnl_attr_nest_end(nlh, n);
	reject(nlh, WB_CTL_REPLY, -EINVAL, "counter 3 given twice");
}

/* ---- every truncation ----------------------------------------------------------------------- */

/*
 * Every prefix of valid messages, with its header's length made to match or
 * left as it was: accepted or rejected with one of the three codes, never a
 * read past the copy (ASan), and a rejection always says something.
 */
static void test_every_truncation_is_clean(void **state)
{
	struct wb_bond_counters bc;
	struct wb_uplink_counters uc;
	uint8_t whole[WB_CTL_MSG_MAX];
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	fill_bond_counters(&bc);
	fill_uplink_counters(&uc);
	for (int which = 0; which < 3; which++) {
		uint32_t full;

		if (which == 0) {
			nlh = start(WB_CTL_CMD_GET_BOND);
			mnl_attr_put_strz(nlh, WB_CTL_A_BOND_NAME, "home");
			mnl_attr_put_u8(nlh, WB_CTL_A_SESSION, 1);
			wb_ctl_put_bond_counters(nlh, WB_CTL_A_COUNTERS, &bc);
		} else if (which == 1) {
			nlh = start(WB_CTL_CMD_GET_UPLINKS);
			n = nest_start(nlh, WB_CTL_A_UPLINK);
			mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
			mnl_attr_put_u64(nlh, WB_CTL_U_SRTT, 5);
			wb_ctl_put_uplink_counters(nlh, WB_CTL_U_COUNTERS, &uc);
			mnl_attr_nest_end(nlh, n);
		} else {
			nlh = start(WB_CTL_CMD_SET_UPLINK);
			n = nest_start(nlh, WB_CTL_A_UPLINK);
			mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
			mnl_attr_put_u8(nlh, WB_CTL_U_ENABLED, 1);
			mnl_attr_nest_end(nlh, n);
		}
		full = nlh->nlmsg_len;
		memcpy(whole, tx.b, full);
		for (uint32_t len = 0; len < full; len++) {
			for (int fix = 0; fix < 2; fix++) {
				struct wb_ctl_msg m;
				int rc;

				memcpy(tx.b, whole, full);
				if (fix)
					tx.h.nlmsg_len = len;
				for (int dir = WB_CTL_REQUEST; dir <= WB_CTL_REPLY; dir++) {
					rc = parse_len(len, (enum wb_ctl_dir)dir, &m);
					assert_true(rc == 0 || rc == -EINVAL || rc == -EPROTO || rc == -EOPNOTSUPP);
					if (rc)
						assert_true(err[0] != '\0');
					if (!fix)
						assert_int_not_equal(rc, 0); /* the header says more than len */
				}
			}
		}
	}
}

/* ---- errors and acks -------------------------------------------------------------------------- */

/* Reads an error message from a heap copy of exactly len bytes. */
static int read_error_len(const void *p, size_t len, int *error, const char **msg)
{
	free(copy);
	copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, p, len);
	return wb_ctl_read_error((const struct nlmsghdr *)copy, len, error, msg);
}

static void test_ack_round_trips(void **state)
{
	union {
		struct nlmsghdr h;
		uint8_t b[WB_CTL_MSG_MAX];
	} out;
	struct nlmsghdr *req, *e;
	const char *msg = NULL;
	int error = 12345;

	(void)state;
	req = start(WB_CTL_CMD_RESET_COUNTERS);
	e = wb_ctl_error(out.b, req, 0, NULL);
	assert_int_equal(e->nlmsg_type, NLMSG_ERROR);
	assert_int_equal(e->nlmsg_seq, SEQ);
	assert_int_equal(read_error_len(e, e->nlmsg_len, &error, &msg), 0);
	assert_int_equal(error, 0);
	assert_non_null(msg);
	assert_string_equal(msg, "");
	/* An empty message is no message. */
	e = wb_ctl_error(out.b, req, 0, "");
	assert_int_equal(read_error_len(e, e->nlmsg_len, &error, &msg), 0);
	assert_int_equal(error, 0);
	assert_string_equal(msg, "");
	/* Without a request (one too short to have a header): sequence 0. */
	e = wb_ctl_error(out.b, NULL, 0, NULL);
	assert_int_equal(e->nlmsg_seq, 0);
	assert_int_equal(read_error_len(e, e->nlmsg_len, &error, &msg), 0);
	assert_int_equal(error, 0);
}

static void test_error_with_message_round_trips(void **state)
{
	union {
		struct nlmsghdr h;
		uint8_t b[WB_CTL_MSG_MAX];
	} out;
	struct nlmsghdr *req, *e;
	const char *msg = NULL;
	int error = 0;

	(void)state;
	req = start(WB_CTL_CMD_SET_UPLINK);
	e = wb_ctl_error(out.b, req, EPERM, "set-uplink: only the socket's owner may change uplinks");
	assert_int_equal(e->nlmsg_seq, SEQ);
	assert_true(e->nlmsg_flags & NLM_F_ACK_TLVS);
	assert_int_equal(read_error_len(e, e->nlmsg_len, &error, &msg), 0);
	assert_int_equal(error, -EPERM);
	assert_string_equal(msg, "set-uplink: only the socket's owner may change uplinks");
	/* The message points into the message read, not elsewhere. */
	assert_true((const uint8_t *)msg > copy && (const uint8_t *)msg < copy + e->nlmsg_len);
}

/* The kernel's form: the request echoed whole (not capped), the extended ack after it. */
static void test_error_after_an_echoed_request_is_read(void **state)
{
	union {
		struct nlmsghdr h;
		uint8_t b[WB_CTL_MSG_MAX];
	} out;
	struct nlmsghdr *req, *e;
	struct nlmsgerr *ne;
	const char *msg = NULL;
	int error = 0;

	(void)state;
	req = start(WB_CTL_CMD_SET_SCHED);
	mnl_attr_put_strz(req, WB_CTL_A_SCHED_POLICY, "first"); /* 20 + 12 bytes */
	e = mnl_nlmsg_put_header(out.b);
	e->nlmsg_type = NLMSG_ERROR;
	e->nlmsg_flags = NLM_F_ACK_TLVS;
	ne = mnl_nlmsg_put_extra_header(e, sizeof(*ne) + req->nlmsg_len - sizeof(*req));
	ne->error = -ENOENT;
	memcpy(&ne->msg, req, req->nlmsg_len);
	mnl_attr_put_strz(e, NLMSGERR_ATTR_MSG, "no such thing");
	assert_int_equal(read_error_len(e, e->nlmsg_len, &error, &msg), 0);
	assert_int_equal(error, -ENOENT);
	assert_string_equal(msg, "no such thing");
	/* An echoed header shorter than a header: malformed. */
	ne->msg.nlmsg_len = 4;
	assert_int_equal(read_error_len(e, e->nlmsg_len, &error, &msg), -EINVAL);
}

static void test_malformed_error_is_einval(void **state)
{
	union {
		struct nlmsghdr h;
		uint8_t b[WB_CTL_MSG_MAX];
	} out;
	struct nlmsghdr *e;
	const char *msg;
	int error;

	(void)state;
	e = wb_ctl_error(out.b, start(WB_CTL_CMD_GET_BOND), ENOENT, NULL);
	/* Too short for the nlmsgerr, with the header's length matching or not. */
	for (size_t len = 0; len < sizeof(struct nlmsghdr) + sizeof(struct nlmsgerr); len++) {
		assert_int_equal(read_error_len(e, len, &error, &msg), -EINVAL);
		e->nlmsg_len = (uint32_t)len;
		assert_int_equal(read_error_len(e, len, &error, &msg), -EINVAL);
		e->nlmsg_len = sizeof(struct nlmsghdr) + sizeof(struct nlmsgerr);
	}
	/* Not an error message at all. */
	e = wb_ctl_error(out.b, NULL, ENOENT, NULL);
	e->nlmsg_type = WB_CTL_MSG_TYPE;
	assert_int_equal(read_error_len(e, e->nlmsg_len, &error, &msg), -EINVAL);
}

/*
 * The extended ack's message must lie inside the message read. Here the
 * header's length is 3 bytes short of the end of the last attribute (its
 * header's own nla_len reaching into the alignment padding): the walk of
 * libmnl goes up to MNL_ALIGN(nlmsg_len), so the string's NUL would be read
 * from past the end of the message. The bytes past it are set so the
 * "string" ends there: a parser that looks at them returns "xyz".
 */
static void test_error_message_past_the_end_is_rejected(void **state)
{
	union {
		struct nlmsghdr h;
		uint8_t b[WB_CTL_MSG_MAX];
	} out;
	struct nlmsghdr *e;
	const char *msg = NULL;
	uint32_t len;
	int error = 0, rc;

	(void)state;
	memset(&out, 0, sizeof(out));
	e = wb_ctl_error(out.b, NULL, EPERM, "xyz"); /* an attribute of 4 + 4 bytes, the last */
	assert_int_equal(e->nlmsg_len, sizeof(struct nlmsghdr) + sizeof(struct nlmsgerr) + 8);
	len = e->nlmsg_len - 3; /* only the 'x' is in the message */
	e->nlmsg_len = len;
	/* A heap copy with the 3 bytes after it, as a receive buffer has them. */
	free(copy);
	copy = malloc(len + 3);
	assert_non_null(copy);
	memcpy(copy, out.b, len + 3);
	rc = wb_ctl_read_error((const struct nlmsghdr *)copy, len, &error, &msg);
	if (rc == 0) {
		/* Accepting it is fine only if the message read lies within len bytes. */
		assert_non_null(msg);
		if (msg[0] && !((const uint8_t *)msg >= copy && memchr(msg, 0, (size_t)(copy + len - (const uint8_t *)msg))))
			fail_msg("wb_ctl_read_error: message \"%s\" read from past the end of the %u bytes given", msg, len);
	} else {
		assert_int_equal(rc, -EINVAL);
	}
}

/* ---- names -------------------------------------------------------------------------------------- */

static void test_command_names(void **state)
{
	(void)state;
	assert_null(wb_ctl_cmd_name(WB_CTL_CMD_UNSPEC));
	assert_string_equal(wb_ctl_cmd_name(WB_CTL_CMD_GET_BOND), "get-bond");
	assert_string_equal(wb_ctl_cmd_name(WB_CTL_CMD_GET_UPLINKS), "get-uplinks");
	assert_string_equal(wb_ctl_cmd_name(WB_CTL_CMD_RESET_COUNTERS), "reset-counters");
	assert_string_equal(wb_ctl_cmd_name(WB_CTL_CMD_SET_SCHED), "set-sched");
	assert_string_equal(wb_ctl_cmd_name(WB_CTL_CMD_SET_UPLINK), "set-uplink");
	assert_string_equal(wb_ctl_cmd_name(WB_CTL_CMD_MONITOR), "monitor");
	assert_string_equal(wb_ctl_cmd_name(WB_CTL_CMD_EVENT), "event");
	assert_null(wb_ctl_cmd_name(WB_CTL_CMD_COUNT));
	assert_null(wb_ctl_cmd_name(255));
	assert_null(wb_ctl_cmd_name(~0u));
}

static void test_event_names(void **state)
{
	(void)state;
	assert_null(wb_ctl_event_name(0));
	/* Every event has a name, and no two alike. */
	for (unsigned ev = WB_CTL_EV_UPLINK_UP; ev < WB_CTL_EV_COUNT; ev++) {
		assert_non_null(wb_ctl_event_name(ev));
		for (unsigned other = WB_CTL_EV_UPLINK_UP; other < ev; other++)
			assert_string_not_equal(wb_ctl_event_name(ev), wb_ctl_event_name(other));
	}
	assert_string_equal(wb_ctl_event_name(WB_CTL_EV_UPLINK_UP), "uplink-up");
	assert_string_equal(wb_ctl_event_name(WB_CTL_EV_REORDER_SKIP), "reorder-skip");
	assert_null(wb_ctl_event_name(WB_CTL_EV_COUNT));
	assert_null(wb_ctl_event_name(~0u));
}

static void check_counter_names(const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_non_null(names[i]);
		assert_true(names[i][0] != '\0');
		for (size_t j = 0; j < i; j++)
			if (!strcmp(names[i], names[j]))
				fail_msg("counter name \"%s\" twice (%zu and %zu)", names[i], j, i);
	}
}

static void test_counter_names(void **state)
{
	(void)state;
	assert_int_equal(ARRAY_LEN(wb_ctl_bond_counter_names), WB_CTL_N_BOND_COUNTERS);
	assert_int_equal(ARRAY_LEN(wb_ctl_uplink_counter_names), WB_CTL_N_UPLINK_COUNTERS);
	check_counter_names(wb_ctl_bond_counter_names, WB_CTL_N_BOND_COUNTERS);
	check_counter_names(wb_ctl_uplink_counter_names, WB_CTL_N_UPLINK_COUNTERS);
	/* The names are the fields', in attribute order: the JSON keys. */
	assert_string_equal(wb_ctl_bond_counter_names[0], "tun_rx_packets");
	/* New ones go at the end: a counter's number never changes. */
	assert_string_equal(wb_ctl_bond_counter_names[29], "closes_received");
	assert_string_equal(wb_ctl_bond_counter_names[31], "restart_drops");
	assert_string_equal(wb_ctl_bond_counter_names[32], "too_big_drops");
	assert_string_equal(wb_ctl_bond_counter_names[33], "pool_bytes");
	assert_string_equal(wb_ctl_bond_counter_names[36], "pool_full_drops");
	assert_string_equal(wb_ctl_bond_counter_names[37], "measure_copies");
	assert_string_equal(wb_ctl_bond_counter_names[38], "measure_copy_bytes");
	assert_string_equal(wb_ctl_bond_counter_names[39], "interactive_tx_packets");
	assert_string_equal(wb_ctl_bond_counter_names[44], "interactive_rx_early");
	assert_string_equal(wb_ctl_bond_counter_names[WB_CTL_N_BOND_COUNTERS - 1], "fec_repaired");
	assert_string_equal(wb_ctl_uplink_counter_names[0], "tx_packets");
	assert_string_equal(wb_ctl_uplink_counter_names[14], "penalties");
	assert_string_equal(wb_ctl_uplink_counter_names[15], "bad_acks");
	assert_string_equal(wb_ctl_uplink_counter_names[17], "pmtu_lowered");
	assert_string_equal(wb_ctl_uplink_counter_names[WB_CTL_N_UPLINK_COUNTERS - 1], "measure_copies");
}

static int free_copy(void **state)
{
	(void)state;
	free(copy);
	copy = NULL;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msg_start_writes_the_family_header),
		cmocka_unit_test(test_requests_without_attributes_round_trip),
		cmocka_unit_test(test_set_sched_request_round_trips),
		cmocka_unit_test(test_set_sched_request_with_one_thing_each),
		cmocka_unit_test(test_set_uplink_request_round_trips),
		cmocka_unit_test(test_set_uplink_request_with_one_change_each),
		cmocka_unit_test(test_uplink_name_length_boundary),
		cmocka_unit_test(test_bond_reply_round_trips_with_every_counter),
		cmocka_unit_test(test_counter_tables_cover_the_structures),
		cmocka_unit_test(test_uplink_reply_round_trips_with_its_counters),
		cmocka_unit_test(test_event_reply_round_trips),
		cmocka_unit_test(test_counters_absent_read_as_zero),
		cmocka_unit_test(test_reply_skips_attributes_of_a_newer_daemon),
		cmocka_unit_test(test_request_rejects_unknown_attributes_by_number),
		cmocka_unit_test(test_add_and_del_uplink_requests),
		cmocka_unit_test(test_length_not_matching_the_header_is_rejected),
		cmocka_unit_test(test_shorter_than_the_header_is_rejected),
		cmocka_unit_test(test_wrong_message_type_is_rejected),
		cmocka_unit_test(test_payload_shorter_than_the_generic_header_is_rejected),
		cmocka_unit_test(test_wrong_version_is_eproto),
		cmocka_unit_test(test_unknown_command_is_eopnotsupp),
		cmocka_unit_test(test_event_as_a_request_is_eopnotsupp),
		cmocka_unit_test(test_error_text_is_cut_to_its_buffer),
		cmocka_unit_test(test_u32_of_wrong_size_is_rejected),
		cmocka_unit_test(test_string_without_nul_is_rejected),
		cmocka_unit_test(test_string_with_nul_inside_is_rejected),
		cmocka_unit_test(test_string_too_long_is_rejected),
		cmocka_unit_test(test_empty_string_is_rejected),
		cmocka_unit_test(test_boolean_other_than_0_or_1_is_rejected),
		cmocka_unit_test(test_attribute_given_twice_is_rejected),
		cmocka_unit_test(test_attribute_of_another_command_is_rejected),
		cmocka_unit_test(test_attribute_past_the_end_of_the_message_is_rejected),
		cmocka_unit_test(test_nested_attribute_truncated_inside_its_nest_is_rejected),
		cmocka_unit_test(test_nest_too_short_for_an_attribute_is_rejected),
		cmocka_unit_test(test_set_sched_with_nothing_is_rejected),
		cmocka_unit_test(test_set_sched_unknown_rule_bits_are_rejected),
		cmocka_unit_test(test_set_sched_same_rule_on_and_off_is_rejected),
		cmocka_unit_test(test_set_sched_unknown_policy_is_rejected),
		cmocka_unit_test(test_set_uplink_without_a_name_is_rejected),
		cmocka_unit_test(test_set_uplink_with_nothing_to_change_is_rejected),
		cmocka_unit_test(test_set_uplink_weight_range),
		cmocka_unit_test(test_set_uplink_attribute_that_cannot_be_set_is_rejected),
		cmocka_unit_test(test_counter_of_wrong_size_is_rejected),
		cmocka_unit_test(test_counter_given_twice_is_rejected),
		cmocka_unit_test(test_every_truncation_is_clean),
		cmocka_unit_test(test_ack_round_trips),
		cmocka_unit_test(test_error_with_message_round_trips),
		cmocka_unit_test(test_error_after_an_echoed_request_is_read),
		cmocka_unit_test(test_malformed_error_is_einval),
		cmocka_unit_test(test_error_message_past_the_end_is_rejected),
		cmocka_unit_test(test_command_names),
		cmocka_unit_test(test_event_names),
		cmocka_unit_test(test_counter_names),
	};

	return cmocka_run_group_tests(tests, NULL, free_copy);
}
