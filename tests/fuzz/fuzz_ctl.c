// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the control family's codec (lib/ctl.c). The input is
 * one message as it comes off a bond's control socket: a request that any
 * local process allowed on the socket may send to the daemon, or a reply,
 * event or error the CLI reads back. It goes, from a heap copy of exactly
 * its length, through
 *
 *   1. wb_ctl_parse as a request and as a reply;
 *   2. wb_ctl_read_error;
 *   3. when it is rejected, wb_ctl_error with the rejection, read back.
 *
 * libmnl is not built with the sanitizers, so what it reads is not checked
 * by ASan: the harness checks by hand that every attribute handed back lies
 * inside the message. What must hold besides no crash:
 *
 *   - a rejection is -EINVAL, -EPROTO or -EOPNOTSUPP, says something, and
 *     leaves the result zeroed;
 *   - what is accepted has a command in range, its attributes filling the
 *     message (and each nest) exactly, each attribute in its slot,
 *     inside the message (nested ones inside their nest), of its type's
 *     size, strings of 1 byte or more ending at their only NUL, booleans 0
 *     or 1, and only the counters present that the nest had room for;
 *   - a request that parses holds to its command: only that command's
 *     attributes, SET_SCHED something to set with known rules and policy,
 *     SET_UPLINK a name, something to change and a weight of 1..1000; and it
 *     parses the same as a reply (replies are held to less, never to more);
 *   - an error read back lies inside the message too, and an error the
 *     daemon would send for a rejection reads back as that rejection.
 *
 * The seeds (gen_corpus.c) are valid messages of every command, requests
 * and replies, errors, and malformed ones.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>

#include "ctl.h"
#include "wanbond.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                            \
	do {                                                                                \
		if (!(c)) {                                                                 \
			fprintf(stderr, "fuzz_ctl: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                            \
		}                                                                           \
	} while (0)

/* The type of each attribute, from ctl.h's comments (an independent reading of the spec). */
enum kind { K_NONE, K_STR, K_U8, K_U32, K_U64, K_NEST };

static const enum kind top_kinds[WB_CTL_A_COUNT] = {
	[WB_CTL_A_BOND_NAME] = K_STR,      [WB_CTL_A_ROLE] = K_STR,           [WB_CTL_A_TUN] = K_STR,
	[WB_CTL_A_PEER] = K_STR,           [WB_CTL_A_SESSION] = K_U8,         [WB_CTL_A_HANDSHAKE_AGO] = K_U64,
	[WB_CTL_A_SCHED_POLICY] = K_STR,   [WB_CTL_A_SCHED_OFF] = K_U32,      [WB_CTL_A_SCHED_SET_ON] = K_U32,
	[WB_CTL_A_SCHED_SET_OFF] = K_U32,  [WB_CTL_A_MTU] = K_U32,            [WB_CTL_A_SEND_BUFFER] = K_U64,
	[WB_CTL_A_RECEIVE_WINDOW] = K_U64, [WB_CTL_A_SEND_QUEUE] = K_U64,     [WB_CTL_A_MEMORY] = K_U64,
	[WB_CTL_A_UPTIME] = K_U64,         [WB_CTL_A_COUNTERS] = K_NEST,      [WB_CTL_A_UPLINK] = K_NEST,
	[WB_CTL_A_EVENT] = K_NEST,         [WB_CTL_A_DEVICE_COUNTERS] = K_NEST,
};

static const enum kind uplink_kinds[WB_CTL_U_COUNT] = {
	[WB_CTL_U_NAME] = K_STR,      [WB_CTL_U_ID] = K_U32,         [WB_CTL_U_STATE] = K_STR,
	[WB_CTL_U_BACKUP] = K_U8,     [WB_CTL_U_ENABLED] = K_U8,     [WB_CTL_U_WEIGHT] = K_U32,
	[WB_CTL_U_DEVICE] = K_STR,    [WB_CTL_U_ENDPOINT] = K_STR,   [WB_CTL_U_SOCKET] = K_STR,
	[WB_CTL_U_SRTT] = K_U64,      [WB_CTL_U_MIN_RTT] = K_U64,    [WB_CTL_U_RTTVAR] = K_U64,
	[WB_CTL_U_LOSS_PPM] = K_U32,  [WB_CTL_U_CWND] = K_U64,       [WB_CTL_U_IN_FLIGHT] = K_U64,
	[WB_CTL_U_PACING_RATE] = K_U64, [WB_CTL_U_COUNTERS] = K_NEST,
	[WB_CTL_U_SOURCE] = K_STR,    [WB_CTL_U_FWMARK] = K_U32,
	[WB_CTL_U_PMTU] = K_U32,      [WB_CTL_U_PMTU_SEARCHING] = K_U8,
	[WB_CTL_U_STATE_WHY] = K_STR, [WB_CTL_U_STATE_AGE] = K_U64, [WB_CTL_U_IFACE_UP] = K_U8,
};

static const enum kind event_kinds[WB_CTL_E_MAX_ATTR] = {
	[WB_CTL_E_TYPE] = K_U32,
	[WB_CTL_E_UPLINK] = K_STR,
	[WB_CTL_E_COUNT] = K_U64,
	[WB_CTL_E_TEXT] = K_STR,
};

/* An attribute handed back: in its slot, inside [lo, hi), of its kind. */
static void check_attr(const struct nlattr *a, unsigned slot, enum kind k, const uint8_t *lo, const uint8_t *hi)
{
	const uint8_t *p = (const uint8_t *)a;
	uint16_t len;

	CHECK(k != K_NONE);
	CHECK(p >= lo && p + MNL_ATTR_HDRLEN <= hi);
	CHECK(((uintptr_t)p & (MNL_ALIGNTO - 1)) == 0);
	CHECK(a->nla_len >= MNL_ATTR_HDRLEN && p + a->nla_len <= hi);
	CHECK(mnl_attr_get_type(a) == slot);
	len = mnl_attr_get_payload_len(a);
	switch (k) {
	case K_STR: {
		const char *s = mnl_attr_get_payload(a);

		CHECK(len >= 2);
		CHECK(memchr(s, 0, len) == s + len - 1);
		CHECK(wb_ctl_str(a, NULL) == s);
		break;
	}
	case K_U8:
		CHECK(len == 1 && mnl_attr_get_u8(a) <= 1);
		break;
	case K_U32:
		CHECK(len == 4);
		break;
	case K_U64:
		CHECK(len == 8);
		break;
	case K_NEST:
		CHECK(len == 0 || len >= MNL_ATTR_HDRLEN);
		break;
	case K_NONE:
		break;
	}
}

static void check_table(const struct nlattr *const *tb, const enum kind *kinds, unsigned n, const uint8_t *lo,
			const uint8_t *hi)
{
	CHECK(tb[0] == NULL);
	for (unsigned t = 1; t < n; t++)
		if (tb[t])
			check_attr(tb[t], t, kinds[t], lo, hi);
}

static bool none(const struct nlattr *const *tb, unsigned n)
{
	for (unsigned t = 0; t < n; t++)
		if (tb[t])
			return false;
	return true;
}

/* The attributes in [p, end) fill it: none runs past it, none is left out (the last one's padding may be). */
static void check_tiled(const uint8_t *p, const uint8_t *end)
{
	while (end - p >= (long)MNL_ATTR_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;

		CHECK(a->nla_len >= MNL_ATTR_HDRLEN && a->nla_len <= (size_t)(end - p));
		p += MNL_ALIGN(a->nla_len);
	}
	CHECK(p >= end && p - end < MNL_ALIGNTO);
}

static const uint8_t *payload_end(const struct nlattr *a)
{
	return (const uint8_t *)a + a->nla_len;
}

/* A counter set: only those present have values, within the nest's numbers. */
static void check_counter_set(const struct wb_ctl_counters *c, unsigned n)
{
	CHECK(n >= 64 || (c->present >> n) == 0);
	for (unsigned i = 0; i < sizeof(c->v) / sizeof(c->v[0]); i++)
		CHECK((c->present >> i & 1) || c->v[i] == 0);
}

/* The bond's counters and an uplink's, each in its own set, read back into their structures. */
static void check_counters(const struct wb_ctl_msg *m)
{
	struct wb_bond_counters b;
	struct wb_uplink_counters u;
	struct wb_device_counters d;
	unsigned i;

	check_counter_set(&m->counters, m->a[WB_CTL_A_COUNTERS] ? WB_CTL_N_BOND_COUNTERS : 0);
	check_counter_set(&m->uplink_counters, m->u[WB_CTL_U_COUNTERS] ? WB_CTL_N_UPLINK_COUNTERS : 0);
	check_counter_set(&m->device_counters, m->a[WB_CTL_A_DEVICE_COUNTERS] ? WB_CTL_N_DEVICE_COUNTERS : 0);
	i = 0;
	wb_ctl_bond_counters_from(&m->counters, &b);
#define SAME(f) CHECK(b.f == m->counters.v[i]); i++;
	WB_CTL_BOND_COUNTERS(SAME)
#undef SAME
	i = 0;
	wb_ctl_uplink_counters_from(&m->uplink_counters, &u);
#define SAME(f) CHECK(u.f == m->uplink_counters.v[i]); i++;
	WB_CTL_UPLINK_COUNTERS(SAME)
#undef SAME
	i = 0;
	wb_ctl_device_counters_from(&m->device_counters, &d);
#define SAME(f) CHECK(d.f == m->device_counters.v[i]); i++;
	WB_CTL_DEVICE_COUNTERS(SAME)
#undef SAME
}

/* A nest's attributes: tiling it, each in its slot and inside it; none without the nest. */
static void check_nest(const struct nlattr *nest, const struct nlattr *const *tb, const enum kind *kinds, unsigned n)
{
	const uint8_t *lo, *hi;

	if (!nest) {
		CHECK(none(tb, n));
		return;
	}
	lo = mnl_attr_get_payload(nest);
	hi = payload_end(nest);
	check_tiled(lo, hi);
	check_table(tb, kinds, n, lo, hi);
}

/*
 * What is accepted: a command in range, the attributes tiling the message
 * and each nest, each attribute in its slot and inside the message (nested
 * ones inside their nest), and the counters.
 */
static void check_accepted(const struct wb_ctl_msg *m, const uint8_t *msg, size_t size, enum wb_ctl_dir dir)
{
	const uint8_t *attrs = msg + MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct wb_ctl_hdr)), *end = msg + size;

	CHECK(m->cmd > WB_CTL_CMD_UNSPEC && m->cmd < WB_CTL_CMD_COUNT);
	CHECK(dir == WB_CTL_REPLY || m->cmd != WB_CTL_CMD_EVENT);
	CHECK(attrs <= end);
	check_tiled(attrs, end);
	check_table(m->a, top_kinds, WB_CTL_A_COUNT, attrs, end);
	check_nest(m->a[WB_CTL_A_UPLINK], m->u, uplink_kinds, WB_CTL_U_COUNT);
	check_nest(m->a[WB_CTL_A_EVENT], m->e, event_kinds, WB_CTL_E_MAX_ATTR);
	if (m->a[WB_CTL_A_COUNTERS])
		check_tiled(mnl_attr_get_payload(m->a[WB_CTL_A_COUNTERS]), payload_end(m->a[WB_CTL_A_COUNTERS]));
	if (m->u[WB_CTL_U_COUNTERS])
		check_tiled(mnl_attr_get_payload(m->u[WB_CTL_U_COUNTERS]), payload_end(m->u[WB_CTL_U_COUNTERS]));
	if (m->a[WB_CTL_A_DEVICE_COUNTERS])
		check_tiled(mnl_attr_get_payload(m->a[WB_CTL_A_DEVICE_COUNTERS]),
			    payload_end(m->a[WB_CTL_A_DEVICE_COUNTERS]));
	check_counters(m);
}

static void check_request(const struct wb_ctl_msg *m)
{
	const struct nlattr *const *a = m->a, *const *u = m->u;

	CHECK(none(m->e, WB_CTL_E_MAX_ATTR));
	CHECK(m->counters.present == 0 && m->uplink_counters.present == 0 && m->device_counters.present == 0);
	switch (m->cmd) {
	case WB_CTL_CMD_SET_SCHED: {
		uint32_t on = a[WB_CTL_A_SCHED_SET_ON] ? mnl_attr_get_u32(a[WB_CTL_A_SCHED_SET_ON]) : 0;
		uint32_t off = a[WB_CTL_A_SCHED_SET_OFF] ? mnl_attr_get_u32(a[WB_CTL_A_SCHED_SET_OFF]) : 0;

		for (unsigned t = 0; t < WB_CTL_A_COUNT; t++)
			CHECK(!a[t] || t == WB_CTL_A_SCHED_POLICY || t == WB_CTL_A_SCHED_SET_ON ||
			      t == WB_CTL_A_SCHED_SET_OFF);
		CHECK(a[WB_CTL_A_SCHED_POLICY] || a[WB_CTL_A_SCHED_SET_ON] || a[WB_CTL_A_SCHED_SET_OFF]);
		for (uint32_t flag = 1; flag; flag <<= 1)
			CHECK(!((on | off) & flag) || wb_sched_rule_name(flag));
		CHECK((on & off) == 0);
		CHECK(!a[WB_CTL_A_SCHED_POLICY] || wb_sched_exists(mnl_attr_get_str(a[WB_CTL_A_SCHED_POLICY])));
		break;
	}
	case WB_CTL_CMD_SET_UPLINK:
		for (unsigned t = 0; t < WB_CTL_A_COUNT; t++)
			CHECK(!a[t] || t == WB_CTL_A_UPLINK);
		CHECK(a[WB_CTL_A_UPLINK] && u[WB_CTL_U_NAME]);
		CHECK(strlen(mnl_attr_get_str(u[WB_CTL_U_NAME])) <= WB_UPLINK_NAME_MAX);
		for (unsigned t = 0; t < WB_CTL_U_COUNT; t++)
			CHECK(!u[t] || t == WB_CTL_U_NAME || t == WB_CTL_U_BACKUP || t == WB_CTL_U_ENABLED ||
			      t == WB_CTL_U_WEIGHT || t == WB_CTL_U_IFACE_UP);
		CHECK(u[WB_CTL_U_BACKUP] || u[WB_CTL_U_ENABLED] || u[WB_CTL_U_WEIGHT] || u[WB_CTL_U_IFACE_UP]);
		CHECK(!u[WB_CTL_U_WEIGHT] ||
		      (mnl_attr_get_u32(u[WB_CTL_U_WEIGHT]) >= 1 && mnl_attr_get_u32(u[WB_CTL_U_WEIGHT]) <= 1000));
		break;
	case WB_CTL_CMD_ADD_UPLINK:
		for (unsigned t = 0; t < WB_CTL_A_COUNT; t++)
			CHECK(!a[t] || t == WB_CTL_A_UPLINK);
		CHECK(a[WB_CTL_A_UPLINK] && u[WB_CTL_U_NAME]);
		for (unsigned t = 0; t < WB_CTL_U_COUNT; t++)
			CHECK(!u[t] || t == WB_CTL_U_NAME || t == WB_CTL_U_DEVICE || t == WB_CTL_U_SOURCE ||
			      t == WB_CTL_U_FWMARK || t == WB_CTL_U_BACKUP || t == WB_CTL_U_WEIGHT);
		CHECK(u[WB_CTL_U_DEVICE] || u[WB_CTL_U_SOURCE] || u[WB_CTL_U_FWMARK]);
		CHECK(!u[WB_CTL_U_FWMARK] || mnl_attr_get_u32(u[WB_CTL_U_FWMARK]) != 0);
		CHECK(!u[WB_CTL_U_WEIGHT] ||
		      (mnl_attr_get_u32(u[WB_CTL_U_WEIGHT]) >= 1 && mnl_attr_get_u32(u[WB_CTL_U_WEIGHT]) <= 1000));
		break;
	case WB_CTL_CMD_DEL_UPLINK:
		for (unsigned t = 0; t < WB_CTL_A_COUNT; t++)
			CHECK(!a[t] || t == WB_CTL_A_UPLINK);
		for (unsigned t = 0; t < WB_CTL_U_COUNT; t++)
			CHECK(!u[t] || t == WB_CTL_U_NAME);
		CHECK(u[WB_CTL_U_NAME] != NULL);
		break;
	default:
		/* GET_BOND, GET_UPLINKS, RESET_COUNTERS, MONITOR carry nothing. */
		CHECK(none(a, WB_CTL_A_COUNT) && none(u, WB_CTL_U_COUNT));
		break;
	}
}

static void check_rejected(int rc, const struct wb_ctl_msg *m, const char *err)
{
	static const struct wb_ctl_msg zero;

	CHECK(rc == -EINVAL || rc == -EPROTO || rc == -EOPNOTSUPP);
	CHECK(err[0] != '\0' && memchr(err, 0, 256));
	CHECK(memcmp(m, &zero, sizeof(zero)) == 0);
}

/* An error read back: the message it carries lies inside the bytes given. */
static int read_error(const uint8_t *msg, size_t size, int *error, const char **text)
{
	int rc;

	*text = NULL;
	rc = wb_ctl_read_error((const struct nlmsghdr *)msg, size, error, text);
	CHECK(rc == 0 || rc == -EINVAL);
	if (rc == 0) {
		CHECK(*text != NULL);
		if ((*text)[0]) {
			const uint8_t *t = (const uint8_t *)*text;

			CHECK(t >= msg && t < msg + size);
			CHECK(memchr(t, 0, (size_t)(msg + size - t)) != NULL);
		}
	}
	return rc;
}

/* The error the daemon would answer a rejected request with: it reads back as the rejection. */
static void check_error_round_trip(const uint8_t *req, size_t size, int rc, const char *err)
{
	static union {
		struct nlmsghdr h;
		uint8_t b[WB_CTL_MSG_MAX];
	} out;
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)req;
	struct nlmsghdr *e;
	const char *text;
	int error = 0;

	e = wb_ctl_error(out.b, size >= sizeof(*nlh) ? nlh : NULL, -rc, err);
	CHECK(e->nlmsg_type == NLMSG_ERROR);
	CHECK(e->nlmsg_seq == (size >= sizeof(*nlh) ? nlh->nlmsg_seq : 0));
	CHECK(read_error(out.b, e->nlmsg_len, &error, &text) == 0);
	CHECK(error == rc);
	CHECK(strcmp(text, err) == 0);
}

/* What one pass over the input found. */
struct result {
	int rc_req, rc_rep, rc_err, error;
	struct wb_ctl_msg req;
	char err_req[256], err_rep[256], text[WB_CTL_MSG_MAX];
};

/* Everything on the size bytes at msg, checked; what came out in r (attribute pointers relative to msg). */
static void run(const uint8_t *msg, size_t size, struct result *r)
{
	struct wb_ctl_msg rep;
	const char *text;

	r->err_req[0] = r->err_rep[0] = r->text[0] = '\0';
	r->error = 0;
	r->rc_req = wb_ctl_parse((const struct nlmsghdr *)msg, size, WB_CTL_REQUEST, &r->req, r->err_req,
				 sizeof(r->err_req));
	r->rc_rep = wb_ctl_parse((const struct nlmsghdr *)msg, size, WB_CTL_REPLY, &rep, r->err_rep,
				 sizeof(r->err_rep));
	if (r->rc_req == 0) {
		check_accepted(&r->req, msg, size, WB_CTL_REQUEST);
		check_request(&r->req);
		/* Replies are held to less: the same message parses the same way as one. */
		CHECK(r->rc_rep == 0);
		CHECK(memcmp(&r->req, &rep, sizeof(rep)) == 0);
	} else {
		check_rejected(r->rc_req, &r->req, r->err_req);
		check_error_round_trip(msg, size, r->rc_req, r->err_req);
	}
	if (r->rc_rep == 0)
		check_accepted(&rep, msg, size, WB_CTL_REPLY);
	else
		check_rejected(r->rc_rep, &rep, r->err_rep);

	r->rc_err = read_error(msg, size, &r->error, &text);
	if (r->rc_err == 0) {
		CHECK(((const struct nlmsghdr *)msg)->nlmsg_type == NLMSG_ERROR &&
		      ((const struct nlmsghdr *)msg)->nlmsg_len == size);
		snprintf(r->text, sizeof(r->text), "%s", text);
	}
	/* Pointers into msg as offsets, to compare passes over copies at different addresses. */
	for (unsigned t = 0; t < WB_CTL_A_COUNT; t++)
		r->req.a[t] = r->req.a[t] ? (const struct nlattr *)((const uint8_t *)r->req.a[t] - msg) : NULL;
	for (unsigned t = 0; t < WB_CTL_U_COUNT; t++)
		r->req.u[t] = r->req.u[t] ? (const struct nlattr *)((const uint8_t *)r->req.u[t] - msg) : NULL;
	for (unsigned t = 0; t < WB_CTL_E_MAX_ATTR; t++)
		r->req.e[t] = r->req.e[t] ? (const struct nlattr *)((const uint8_t *)r->req.e[t] - msg) : NULL;
}

/*
 * Two passes: over a copy of exactly the input's length (ASan sees a read
 * past it by our code), and over a copy followed by zeros up to the next
 * multiple of 4 as in an aligned receive buffer, which libmnl's walks reach
 * into and ASan does not see (libmnl is not instrumented). The bytes past the
 * message must change nothing; the zeros make a string that ends in them
 * look whole, so the checks above catch one handed back.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct result exact, padded;
	uint8_t *msg;

	if (size > 2 * WB_CTL_MSG_MAX)
		return 0;
	msg = malloc(size ? size : 1);
	if (!msg)
		abort();
	memcpy(msg, data, size);
	run(msg, size, &exact);
	free(msg);

	msg = calloc(1, MNL_ALIGN(size) + MNL_ALIGNTO);
	if (!msg)
		abort();
	memcpy(msg, data, size);
	run(msg, size, &padded);
	free(msg);

	CHECK(exact.rc_req == padded.rc_req && strcmp(exact.err_req, padded.err_req) == 0);
	CHECK(memcmp(&exact.req, &padded.req, sizeof(exact.req)) == 0);
	CHECK(exact.rc_rep == padded.rc_rep && strcmp(exact.err_rep, padded.err_rep) == 0);
	CHECK(exact.rc_err == padded.rc_err && exact.error == padded.error && strcmp(exact.text, padded.text) == 0);
	return 0;
}
