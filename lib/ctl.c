// SPDX-License-Identifier: MIT
/*
 * The control family's codec (ctl.h). A request is held to its command's
 * attributes: anything else is an error that names the attribute, so a
 * malformed or mistaken request changes nothing. A reply may carry
 * attributes this side does not know (a newer daemon): they are skipped.
 */
#include "ctl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <linux/netlink.h>

#include "validate.h"
#include "wanbond.h"
#include "wire.h"

#define NAME_MAX_LEN 32  /* bond names; uplink names are shorter */
#define TEXT_MAX_LEN 256 /* free text of events and socket states */

#define NAME_OF(f) #f,
const char *const wb_ctl_bond_counter_names[WB_CTL_N_BOND_COUNTERS] = { WB_CTL_BOND_COUNTERS(NAME_OF) };
const char *const wb_ctl_uplink_counter_names[WB_CTL_N_UPLINK_COUNTERS] = { WB_CTL_UPLINK_COUNTERS(NAME_OF) };
const char *const wb_ctl_device_counter_names[WB_CTL_N_DEVICE_COUNTERS] = { WB_CTL_DEVICE_COUNTERS(NAME_OF) };

/* What an attribute must be: its type and, for strings, the longest text. */
struct attr_rule {
	enum mnl_attr_data_type type;
	uint16_t max_len;
};

static const struct attr_rule top_rules[WB_CTL_A_COUNT] = {
	[WB_CTL_A_BOND_NAME] = { MNL_TYPE_NUL_STRING, NAME_MAX_LEN },
	[WB_CTL_A_ROLE] = { MNL_TYPE_NUL_STRING, 16 },
	[WB_CTL_A_TUN] = { MNL_TYPE_NUL_STRING, 16 },
	[WB_CTL_A_PEER] = { MNL_TYPE_NUL_STRING, 64 },
	[WB_CTL_A_SESSION] = { MNL_TYPE_U8, 0 },
	[WB_CTL_A_HANDSHAKE_AGO] = { MNL_TYPE_U64, 0 },
	[WB_CTL_A_SCHED_POLICY] = { MNL_TYPE_NUL_STRING, 16 },
	[WB_CTL_A_SCHED_OFF] = { MNL_TYPE_U32, 0 },
	[WB_CTL_A_SCHED_SET_ON] = { MNL_TYPE_U32, 0 },
	[WB_CTL_A_SCHED_SET_OFF] = { MNL_TYPE_U32, 0 },
	[WB_CTL_A_MTU] = { MNL_TYPE_U32, 0 },
	[WB_CTL_A_SEND_BUFFER] = { MNL_TYPE_U64, 0 },
	[WB_CTL_A_RECEIVE_WINDOW] = { MNL_TYPE_U64, 0 },
	[WB_CTL_A_SEND_QUEUE] = { MNL_TYPE_U64, 0 },
	[WB_CTL_A_MEMORY] = { MNL_TYPE_U64, 0 },
	[WB_CTL_A_UPTIME] = { MNL_TYPE_U64, 0 },
	[WB_CTL_A_COUNTERS] = { MNL_TYPE_NESTED, 0 },
	[WB_CTL_A_UPLINK] = { MNL_TYPE_NESTED, 0 },
	[WB_CTL_A_EVENT] = { MNL_TYPE_NESTED, 0 },
	[WB_CTL_A_DEVICE_COUNTERS] = { MNL_TYPE_NESTED, 0 },
};

static const struct attr_rule uplink_rules[WB_CTL_U_COUNT] = {
	[WB_CTL_U_NAME] = { MNL_TYPE_NUL_STRING, WB_UPLINK_NAME_MAX },
	[WB_CTL_U_ID] = { MNL_TYPE_U32, 0 },
	[WB_CTL_U_STATE] = { MNL_TYPE_NUL_STRING, 16 },
	[WB_CTL_U_BACKUP] = { MNL_TYPE_U8, 0 },
	[WB_CTL_U_ENABLED] = { MNL_TYPE_U8, 0 },
	[WB_CTL_U_WEIGHT] = { MNL_TYPE_U32, 0 },
	[WB_CTL_U_DEVICE] = { MNL_TYPE_NUL_STRING, 16 },
	[WB_CTL_U_ENDPOINT] = { MNL_TYPE_NUL_STRING, 64 },
	[WB_CTL_U_SOCKET] = { MNL_TYPE_NUL_STRING, TEXT_MAX_LEN },
	[WB_CTL_U_SRTT] = { MNL_TYPE_U64, 0 },
	[WB_CTL_U_MIN_RTT] = { MNL_TYPE_U64, 0 },
	[WB_CTL_U_RTTVAR] = { MNL_TYPE_U64, 0 },
	[WB_CTL_U_LOSS_PPM] = { MNL_TYPE_U32, 0 },
	[WB_CTL_U_CWND] = { MNL_TYPE_U64, 0 },
	[WB_CTL_U_IN_FLIGHT] = { MNL_TYPE_U64, 0 },
	[WB_CTL_U_PACING_RATE] = { MNL_TYPE_U64, 0 },
	[WB_CTL_U_COUNTERS] = { MNL_TYPE_NESTED, 0 },
	[WB_CTL_U_SOURCE] = { MNL_TYPE_NUL_STRING, 64 },
	[WB_CTL_U_FWMARK] = { MNL_TYPE_U32, 0 },
	[WB_CTL_U_PMTU] = { MNL_TYPE_U32, 0 },
	[WB_CTL_U_PMTU_SEARCHING] = { MNL_TYPE_U8, 0 },
	[WB_CTL_U_STATE_WHY] = { MNL_TYPE_NUL_STRING, WB_STATE_WHY_MAX },
	[WB_CTL_U_STATE_AGE] = { MNL_TYPE_U64, 0 },
	[WB_CTL_U_IFACE_UP] = { MNL_TYPE_U8, 0 },
};

static const struct attr_rule event_rules[WB_CTL_E_MAX_ATTR] = {
	[WB_CTL_E_TYPE] = { MNL_TYPE_U32, 0 },
	[WB_CTL_E_UPLINK] = { MNL_TYPE_NUL_STRING, WB_UPLINK_NAME_MAX },
	[WB_CTL_E_COUNT] = { MNL_TYPE_U64, 0 },
	[WB_CTL_E_TEXT] = { MNL_TYPE_NUL_STRING, TEXT_MAX_LEN },
};

/* The attributes a request of each command may carry (bits by type); replies are not held to these. */
#define BIT(a) (1ull << (a))
static const uint64_t request_attrs[WB_CTL_CMD_COUNT] = {
	[WB_CTL_CMD_SET_SCHED] = BIT(WB_CTL_A_SCHED_POLICY) | BIT(WB_CTL_A_SCHED_SET_ON) | BIT(WB_CTL_A_SCHED_SET_OFF),
	[WB_CTL_CMD_SET_UPLINK] = BIT(WB_CTL_A_UPLINK),
	[WB_CTL_CMD_ADD_UPLINK] = BIT(WB_CTL_A_UPLINK),
	[WB_CTL_CMD_DEL_UPLINK] = BIT(WB_CTL_A_UPLINK),
};
/* The uplink attributes each of those may carry; the name always. */
static const uint64_t request_uplink_attrs[WB_CTL_CMD_COUNT] = {
	[WB_CTL_CMD_SET_UPLINK] = BIT(WB_CTL_U_NAME) | BIT(WB_CTL_U_BACKUP) | BIT(WB_CTL_U_ENABLED) | BIT(WB_CTL_U_WEIGHT) |
				   BIT(WB_CTL_U_IFACE_UP),
	[WB_CTL_CMD_ADD_UPLINK] = BIT(WB_CTL_U_NAME) | BIT(WB_CTL_U_DEVICE) | BIT(WB_CTL_U_SOURCE) |
				  BIT(WB_CTL_U_FWMARK) | BIT(WB_CTL_U_BACKUP) | BIT(WB_CTL_U_WEIGHT),
	[WB_CTL_CMD_DEL_UPLINK] = BIT(WB_CTL_U_NAME),
};

static const char *const cmd_names[WB_CTL_CMD_COUNT] = {
	[WB_CTL_CMD_GET_BOND] = "get-bond",
	[WB_CTL_CMD_GET_UPLINKS] = "get-uplinks",
	[WB_CTL_CMD_RESET_COUNTERS] = "reset-counters",
	[WB_CTL_CMD_SET_SCHED] = "set-sched",
	[WB_CTL_CMD_SET_UPLINK] = "set-uplink",
	[WB_CTL_CMD_MONITOR] = "monitor",
	[WB_CTL_CMD_EVENT] = "event",
	[WB_CTL_CMD_ADD_UPLINK] = "add-uplink",
	[WB_CTL_CMD_DEL_UPLINK] = "del-uplink",
};

static const char *const event_names[WB_CTL_EV_COUNT] = {
	[WB_CTL_EV_UPLINK_UP] = "uplink-up",
	[WB_CTL_EV_UPLINK_DOWN] = "uplink-down",
	[WB_CTL_EV_UPLINK_STALE] = "uplink-stale",
	[WB_CTL_EV_ADDRESS_CHANGE] = "address-change",
	[WB_CTL_EV_FAILOVER] = "failover",
	[WB_CTL_EV_HANDSHAKE] = "handshake",
	[WB_CTL_EV_REINJECTION] = "reinjection",
	[WB_CTL_EV_PENALTY] = "penalty",
	[WB_CTL_EV_REORDER_SKIP] = "reorder-skip",
	[WB_CTL_EV_PEER_RESTART] = "peer-restart",
	[WB_CTL_EV_SESSION_ENDED] = "session-ended",
};

const char *wb_ctl_cmd_name(unsigned cmd)
{
	return cmd < WB_CTL_CMD_COUNT ? cmd_names[cmd] : NULL;
}

const char *wb_ctl_event_name(unsigned ev)
{
	return ev < WB_CTL_EV_COUNT ? event_names[ev] : NULL;
}

const char *wb_ctl_str(const struct nlattr *a, const char *def)
{
	return a ? mnl_attr_get_str(a) : def;
}

/* ---- building ------------------------------------------------------------------ */

struct nlmsghdr *wb_ctl_msg_start(void *buf, uint8_t cmd, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh;
	struct wb_ctl_hdr *h;

	/* libmnl before 1.0.5 leaves the padding of attributes as it finds it: nothing of ours must leak in it. */
	memset(buf, 0, WB_CTL_MSG_MAX);
	nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = WB_CTL_MSG_TYPE;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	h = mnl_nlmsg_put_extra_header(nlh, sizeof(*h));
	h->cmd = cmd;
	h->version = WB_CTL_VERSION;
	return nlh;
}

static bool put_counters(struct nlmsghdr *nlh, uint16_t type, const uint64_t *v, int n)
{
	struct nlattr *nest = mnl_attr_nest_start_check(nlh, WB_CTL_MSG_MAX, type);

	if (!nest)
		return false;
	for (int i = 0; i < n; i++) {
		if (!mnl_attr_put_u64_check(nlh, WB_CTL_MSG_MAX, (uint16_t)(i + 1), v[i])) {
			mnl_attr_nest_cancel(nlh, nest);
			return false;
		}
	}
	mnl_attr_nest_end(nlh, nest);
	return true;
}

void wb_ctl_bond_counter_values(const struct wb_bond_counters *c, uint64_t v[WB_CTL_N_BOND_COUNTERS])
{
	int i = 0;

#define WRITE_ONE(f) v[i++] = c->f;
	WB_CTL_BOND_COUNTERS(WRITE_ONE)
}

void wb_ctl_uplink_counter_values(const struct wb_uplink_counters *c, uint64_t v[WB_CTL_N_UPLINK_COUNTERS])
{
	int i = 0;

	WB_CTL_UPLINK_COUNTERS(WRITE_ONE)
}

void wb_ctl_device_counter_values(const struct wb_device_counters *c, uint64_t v[WB_CTL_N_DEVICE_COUNTERS])
{
	int i = 0;

	WB_CTL_DEVICE_COUNTERS(WRITE_ONE)
#undef WRITE_ONE
}

bool wb_ctl_put_bond_counters(struct nlmsghdr *nlh, uint16_t type, const struct wb_bond_counters *c)
{
	uint64_t v[WB_CTL_N_BOND_COUNTERS];

	wb_ctl_bond_counter_values(c, v);
	return put_counters(nlh, type, v, WB_CTL_N_BOND_COUNTERS);
}

bool wb_ctl_put_uplink_counters(struct nlmsghdr *nlh, uint16_t type, const struct wb_uplink_counters *c)
{
	uint64_t v[WB_CTL_N_UPLINK_COUNTERS];

	wb_ctl_uplink_counter_values(c, v);
	return put_counters(nlh, type, v, WB_CTL_N_UPLINK_COUNTERS);
}

bool wb_ctl_put_device_counters(struct nlmsghdr *nlh, uint16_t type, const struct wb_device_counters *c)
{
	uint64_t v[WB_CTL_N_DEVICE_COUNTERS];

	wb_ctl_device_counter_values(c, v);
	return put_counters(nlh, type, v, WB_CTL_N_DEVICE_COUNTERS);
}

void wb_ctl_bond_counters_from(const struct wb_ctl_counters *in, struct wb_bond_counters *out)
{
	int i = 0;

	memset(out, 0, sizeof(*out));
#define READ_ONE(f) out->f = in->v[i++];
	WB_CTL_BOND_COUNTERS(READ_ONE)
}

void wb_ctl_uplink_counters_from(const struct wb_ctl_counters *in, struct wb_uplink_counters *out)
{
	int i = 0;

	memset(out, 0, sizeof(*out));
	WB_CTL_UPLINK_COUNTERS(READ_ONE)
}

void wb_ctl_device_counters_from(const struct wb_ctl_counters *in, struct wb_device_counters *out)
{
	int i = 0;

	memset(out, 0, sizeof(*out));
	WB_CTL_DEVICE_COUNTERS(READ_ONE)
#undef READ_ONE
}

struct nlmsghdr *wb_ctl_error(void *buf, const struct nlmsghdr *req, int error, const char *msg)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	memset(buf, 0, WB_CTL_MSG_MAX); /* as wb_ctl_msg_start */
	nlh = mnl_nlmsg_put_header(buf);
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED; /* the request is not echoed, only its header */
	nlh->nlmsg_seq = req ? req->nlmsg_seq : 0;
	e->error = -error;
	if (req)
		e->msg = *req;
	if (msg && *msg) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz_check(nlh, WB_CTL_MSG_MAX, NLMSGERR_ATTR_MSG, msg);
	}
	return nlh;
}

/* ---- reading -------------------------------------------------------------------- */

static int fail(char *err, size_t err_len, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t err_len, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return rc;
}

struct table_walk {
	const struct attr_rule *rules;
	unsigned n_rules;
	const struct nlattr **tb;
	bool strict;       /* a request: unknown attributes are errors */
	const char *where; /* for messages: "attribute", "uplink attribute" */
	char *err;
	size_t err_len;
	int rc;
};

static int check_attr(const struct nlattr *a, const struct attr_rule *r, struct table_walk *w, unsigned type)
{
	uint16_t len = mnl_attr_get_payload_len(a);

	if (mnl_attr_validate(a, r->type) < 0)
		return fail(w->err, w->err_len, -EINVAL, "%s %u: wrong type or length (%u bytes)", w->where, type, len);
	if (r->type == MNL_TYPE_NUL_STRING && (len < 2 || len - 1 > r->max_len))
		return fail(w->err, w->err_len, -EINVAL, "%s %u: a string of 1 to %u bytes expected", w->where, type,
			    r->max_len);
	if (r->type == MNL_TYPE_NUL_STRING && strlen(mnl_attr_get_str(a)) != (size_t)len - 1)
		return fail(w->err, w->err_len, -EINVAL, "%s %u: a NUL inside the string", w->where, type);
	if (r->type == MNL_TYPE_U8 && mnl_attr_get_u8(a) > 1)
		return fail(w->err, w->err_len, -EINVAL, "%s %u: 0 or 1 expected, got %u", w->where, type,
			    mnl_attr_get_u8(a));
	return 0;
}

static int table_cb(const struct nlattr *a, void *data)
{
	struct table_walk *w = data;
	unsigned type = mnl_attr_get_type(a);

	if (type >= w->n_rules || !w->rules[type].type) {
		if (!w->strict)
			return MNL_CB_OK; /* a newer peer's attribute */
		w->rc = fail(w->err, w->err_len, -EINVAL, "unknown %s %u", w->where, type);
		return MNL_CB_ERROR;
	}
	if (w->tb[type]) {
		w->rc = fail(w->err, w->err_len, -EINVAL, "%s %u given twice", w->where, type);
		return MNL_CB_ERROR;
	}
	w->rc = check_attr(a, &w->rules[type], w, type);
	if (w->rc)
		return MNL_CB_ERROR;
	w->tb[type] = a;
	return MNL_CB_OK;
}

/*
 * mnl's walk stops quietly at an attribute that runs past the end: the
 * attributes in len bytes at p must fill them exactly (the last one's
 * padding may be missing).
 */
static bool attrs_whole(const void *p, size_t len)
{
	const struct nlattr *a = p;
	long left = (long)len;

	while (left > 0 && mnl_attr_ok(a, (int)left)) {
		left -= (long)MNL_ALIGN(a->nla_len);
		a = mnl_attr_next(a);
	}
	return left <= 0 && left > -(long)MNL_ALIGNTO;
}

static int check_walk(int ret, struct table_walk *w, const char *what)
{
	if (w->rc)
		return w->rc;
	if (ret < 0)
		return fail(w->err, w->err_len, -EINVAL, "%s: malformed attributes", what);
	return 0;
}

static int parse_nested(const struct nlattr *nest, const struct attr_rule *rules, unsigned n_rules,
			const struct nlattr **tb, bool strict, const char *where, char *err, size_t err_len)
{
	struct table_walk w = { rules, n_rules, tb, strict, where, err, err_len, 0 };

	if (!attrs_whole(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest)))
		return fail(err, err_len, -EINVAL, "%s: an attribute runs past the end of its nest", where);
	return check_walk(mnl_attr_parse_nested(nest, table_cb, &w), &w, where);
}

struct counter_walk {
	struct wb_ctl_counters *c;
	unsigned n;
	char *err;
	size_t err_len;
	int rc;
};

static int counter_cb(const struct nlattr *a, void *data)
{
	struct counter_walk *w = data;
	unsigned type = mnl_attr_get_type(a);

	if (type == 0 || type > w->n)
		return MNL_CB_OK; /* a counter of a newer daemon */
	if (mnl_attr_validate(a, MNL_TYPE_U64) < 0) {
		w->rc = fail(w->err, w->err_len, -EINVAL, "counter %u: a u64 expected", type);
		return MNL_CB_ERROR;
	}
	if (w->c->present & (1ull << (type - 1))) {
		w->rc = fail(w->err, w->err_len, -EINVAL, "counter %u given twice", type);
		return MNL_CB_ERROR;
	}
	w->c->v[type - 1] = mnl_attr_get_u64(a);
	w->c->present |= 1ull << (type - 1);
	return MNL_CB_OK;
}

static int parse_counters(const struct nlattr *nest, unsigned n, struct wb_ctl_counters *c, char *err, size_t err_len)
{
	struct counter_walk w = { c, n, err, err_len, 0 };
	int ret;

	if (!attrs_whole(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest)))
		return fail(err, err_len, -EINVAL, "counters: an attribute runs past the end of the nest");
	ret = mnl_attr_parse_nested(nest, counter_cb, &w);
	if (w.rc)
		return w.rc;
	return ret < 0 ? fail(err, err_len, -EINVAL, "counters: attributes run past the end") : 0;
}

/* A request about one uplink: its name, only its command's attributes, each in range. */
static int check_uplink_request(const struct wb_ctl_msg *m, char *err, size_t err_len)
{
	const char *cmd = cmd_names[m->cmd];
	uint64_t have = 0;

	if (!m->a[WB_CTL_A_UPLINK] || !m->u[WB_CTL_U_NAME])
		return fail(err, err_len, -EINVAL, "%s: the uplink's name is missing", cmd);
	for (unsigned t = 1; t < WB_CTL_U_COUNT; t++)
		if (m->u[t]) {
			if (!(request_uplink_attrs[m->cmd] & BIT(t)))
				return fail(err, err_len, -EINVAL, "%s: uplink attribute %u cannot be set", cmd, t);
			have |= BIT(t);
		}
	if (m->cmd == WB_CTL_CMD_SET_UPLINK && have == BIT(WB_CTL_U_NAME))
		return fail(err, err_len, -EINVAL, "%s: nothing to change (backup, enabled, weight, iface-up)", cmd);
	if (m->cmd == WB_CTL_CMD_ADD_UPLINK && !(have & (BIT(WB_CTL_U_DEVICE) | BIT(WB_CTL_U_SOURCE) | BIT(WB_CTL_U_FWMARK))))
		return fail(err, err_len, -EINVAL, "%s: needs at least one of device, source and fwmark", cmd);
	if (m->u[WB_CTL_U_WEIGHT] && wb_validate_weight(mnl_attr_get_u32(m->u[WB_CTL_U_WEIGHT]), NULL, 0))
		return fail(err, err_len, -EINVAL, "%s: weight %u out of range %d..%d", cmd,
			    mnl_attr_get_u32(m->u[WB_CTL_U_WEIGHT]), WB_WEIGHT_MIN, WB_WEIGHT_MAX);
	if (m->u[WB_CTL_U_FWMARK] && wb_validate_fwmark(mnl_attr_get_u32(m->u[WB_CTL_U_FWMARK]), NULL, 0))
		return fail(err, err_len, -EINVAL, "%s: fwmark 0 is no mark", cmd);
	return 0;
}

/* What set-sched may turn on or off: every rule the scheduler names, so that a new rule needs no list here. */
static uint32_t sched_rules_all(void)
{
	uint32_t all = 0;

	for (uint32_t flag = 1; flag; flag <<= 1)
		if (wb_sched_rule_name(flag))
			all |= flag;
	return all;
}

/* The values a request may set, each in its range. */
static int check_request_values(struct wb_ctl_msg *m, char *err, size_t err_len)
{
	uint64_t have = 0;

	for (unsigned t = 1; t < WB_CTL_A_COUNT; t++)
		if (m->a[t]) {
			if (!(request_attrs[m->cmd] & BIT(t)))
				return fail(err, err_len, -EINVAL, "attribute %u is not one of %s's", t, cmd_names[m->cmd]);
			have |= BIT(t);
		}
	if (m->cmd == WB_CTL_CMD_SET_SCHED) {
		uint32_t on = m->a[WB_CTL_A_SCHED_SET_ON] ? mnl_attr_get_u32(m->a[WB_CTL_A_SCHED_SET_ON]) : 0;
		uint32_t off = m->a[WB_CTL_A_SCHED_SET_OFF] ? mnl_attr_get_u32(m->a[WB_CTL_A_SCHED_SET_OFF]) : 0;

		if (!have)
			return fail(err, err_len, -EINVAL, "set-sched: nothing to set (a policy or rules)");
		if ((on | off) & ~sched_rules_all())
			return fail(err, err_len, -EINVAL, "set-sched: unknown rule bits 0x%x", (on | off) & ~sched_rules_all());
		if (on & off)
			return fail(err, err_len, -EINVAL, "set-sched: rule bits 0x%x both on and off", on & off);
		if (m->a[WB_CTL_A_SCHED_POLICY] && !wb_sched_exists(mnl_attr_get_str(m->a[WB_CTL_A_SCHED_POLICY])))
			return fail(err, err_len, -EINVAL, "set-sched: no policy '%s' (default, roundrobin, redundant, first)",
				    mnl_attr_get_str(m->a[WB_CTL_A_SCHED_POLICY]));
	}
	if (request_uplink_attrs[m->cmd])
		return check_uplink_request(m, err, err_len);
	return 0;
}

static int parse_header(const struct nlmsghdr *nlh, size_t len, enum wb_ctl_dir dir, struct wb_ctl_msg *m, char *err,
			size_t err_len)
{
	const struct wb_ctl_hdr *h;

	if (len < sizeof(*nlh) || !mnl_nlmsg_ok(nlh, (int)len) || nlh->nlmsg_len != len)
		return fail(err, err_len, -EINVAL, "message length %zu does not match its header", len);
	if (nlh->nlmsg_type != WB_CTL_MSG_TYPE)
		return fail(err, err_len, -EINVAL, "message type %u is not the control family's", nlh->nlmsg_type);
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*h))
		return fail(err, err_len, -EINVAL, "message too short for its header");
	h = mnl_nlmsg_get_payload(nlh);
	if (h->version != WB_CTL_VERSION)
		return fail(err, err_len, -EPROTO, "version %u, this side speaks %u", h->version, WB_CTL_VERSION);
	if (h->cmd == WB_CTL_CMD_UNSPEC || h->cmd >= WB_CTL_CMD_COUNT ||
	    (dir == WB_CTL_REQUEST && h->cmd == WB_CTL_CMD_EVENT))
		return fail(err, err_len, -EOPNOTSUPP, "unknown command %u", h->cmd);
	m->cmd = h->cmd;
	return 0;
}

int wb_ctl_parse(const struct nlmsghdr *nlh, size_t len, enum wb_ctl_dir dir, struct wb_ctl_msg *m, char *err,
		 size_t err_len)
{
	bool strict = dir == WB_CTL_REQUEST;
	struct table_walk w;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = parse_header(nlh, len, dir, m, err, err_len);
	if (rc)
		return rc;
	w = (struct table_walk){ top_rules, WB_CTL_A_COUNT, m->a, strict, "attribute", err, err_len, 0 };
	if (!attrs_whole((const char *)mnl_nlmsg_get_payload(nlh) + sizeof(struct wb_ctl_hdr),
			 mnl_nlmsg_get_payload_len(nlh) - sizeof(struct wb_ctl_hdr)))
		rc = fail(err, err_len, -EINVAL, "an attribute runs past the end of the message");
	else
		rc = check_walk(mnl_attr_parse(nlh, sizeof(struct wb_ctl_hdr), table_cb, &w), &w, "message");
	if (!rc && m->a[WB_CTL_A_UPLINK])
		rc = parse_nested(m->a[WB_CTL_A_UPLINK], uplink_rules, WB_CTL_U_COUNT, m->u, strict, "uplink attribute", err,
				  err_len);
	if (!rc && m->a[WB_CTL_A_EVENT])
		rc = parse_nested(m->a[WB_CTL_A_EVENT], event_rules, WB_CTL_E_MAX_ATTR, m->e, strict, "event attribute", err,
				  err_len);
	if (!rc && m->a[WB_CTL_A_COUNTERS])
		rc = parse_counters(m->a[WB_CTL_A_COUNTERS], WB_CTL_N_BOND_COUNTERS, &m->counters, err, err_len);
	if (!rc && m->u[WB_CTL_U_COUNTERS])
		rc = parse_counters(m->u[WB_CTL_U_COUNTERS], WB_CTL_N_UPLINK_COUNTERS, &m->uplink_counters, err, err_len);
	if (!rc && m->a[WB_CTL_A_DEVICE_COUNTERS])
		rc = parse_counters(m->a[WB_CTL_A_DEVICE_COUNTERS], WB_CTL_N_DEVICE_COUNTERS, &m->device_counters, err,
				    err_len);
	if (!rc && strict)
		rc = check_request_values(m, err, err_len);
	if (rc)
		memset(m, 0, sizeof(*m));
	return rc;
}

struct extack_walk {
	const char *msg;
};

static int extack_cb(const struct nlattr *a, void *data)
{
	struct extack_walk *w = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		w->msg = mnl_attr_get_str(a);
	return MNL_CB_OK;
}

int wb_ctl_read_error(const struct nlmsghdr *nlh, size_t len, int *error, const char **msg)
{
	const struct nlmsgerr *e;
	struct extack_walk w = { "" };
	size_t off = sizeof(*e);

	if (len < sizeof(*nlh) || nlh->nlmsg_len != len || nlh->nlmsg_type != NLMSG_ERROR ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
		return -EINVAL;
	e = mnl_nlmsg_get_payload(nlh);
	*error = e->error;
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && !(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < sizeof(e->msg))
			return -EINVAL;
		off += e->msg.nlmsg_len - sizeof(e->msg);
	}
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		/* Only attributes wholly inside the message: mnl would walk up to its aligned length. */
		off = MNL_ALIGN(off);
		if (off > mnl_nlmsg_get_payload_len(nlh) ||
		    !attrs_whole((const char *)mnl_nlmsg_get_payload(nlh) + off, mnl_nlmsg_get_payload_len(nlh) - off) ||
		    mnl_attr_parse(nlh, (unsigned)off, extack_cb, &w) < 0)
			return -EINVAL;
	}
	*msg = w.msg;
	return 0;
}
