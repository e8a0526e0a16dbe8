// SPDX-License-Identifier: MIT
#include "args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

const char linkem_usage[] =
	"usage: linkem IF_A IF_B [seed N] [[both|a2b|b2a] PARAM...]...\n"
	"Forwards every frame between IF_A and IF_B, emulating a link in each direction.\n"
	"Parameters apply to both directions until a2b or b2a picks one; a later\n"
	"word wins over an earlier one (a trace replaces a rate, and back).\n"
	"  rate RATE              bottleneck rate: 10mbit, 500kbit, 1gbit, unlimited\n"
	"  delay TIME             one-way propagation delay: 20ms, 500us\n"
	"  jitter TIME            each packet's delay is uniform in delay +- jitter\n"
	"  reorder                let jitter reorder packets (default: keep order)\n"
	"  loss PERCENT           independent loss (also: loss random PERCENT)\n"
	"  loss gemodel P [R [1-H [1-K]]]\n"
	"                         Gilbert-Elliott bursty loss, as netem's gemodel\n"
	"  limit N p | SIZE | TIME\n"
	"                         drop-tail queue: 100p packets, 64kb bytes, 50ms of the rate\n"
	"  trace FILE             Mahimahi trace of delivery opportunities, looped\n"
	"  overhead BYTES         per-packet bytes added on the bottleneck (link framing)\n"
	"  mtu BYTES              larger IP packets vanish, without ICMP (an MTU black hole)\n"
	"  outage EVERY LENGTH    the link carries nothing for LENGTH at the end of every EVERY\n"
	"  seed N                 random seed (default: printed at start)\n"
	"Counters go to stdout on SIGUSR1 and on exit.\n";

struct cursor {
	int argc, i;
	char *const *argv;
	char *err;
	size_t errlen;
};

static int fail(struct cursor *c, const char *fmt, ...)
{
	va_list ap;

	if (c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const char *peek(const struct cursor *c)
{
	return c->i < c->argc ? c->argv[c->i] : NULL;
}

/* The value after a keyword, or an error naming the keyword. */
static int value_of(struct cursor *c, const char *key, const char **v)
{
	*v = peek(c);
	if (!*v)
		return fail(c, "%s: missing value", key);
	c->i++;
	return 0;
}

static int parse_limit(const char *s, struct queue_limit *out)
{
	size_t n = strlen(s);
	uint64_t v;
	char num[32];

	for (const char *suf = "p\0pkt\0pkts\0"; *suf; suf += strlen(suf) + 1) {
		size_t k = strlen(suf);

		if (n > k && n - k < sizeof(num) && !strcmp(s + n - k, suf)) {
			memcpy(num, s, n - k);
			num[n - k] = 0;
			if (units_parse_uint(num, LINKDIR_MAX_PACKETS, &v) || !v)
				return -EINVAL;
			*out = (struct queue_limit){ LIMIT_PACKETS, v };
			return 0;
		}
	}
	if (!units_parse_time(s, &v) && v) {
		*out = (struct queue_limit){ LIMIT_TIME, v };
		return 0;
	}
	if (!units_parse_size(s, &v) && v) {
		*out = (struct queue_limit){ LIMIT_BYTES, v };
		return 0;
	}
	return -EINVAL;
}

/* loss PERCENT | loss random PERCENT | loss gemodel P [R [1-H [1-K]]] */
static int parse_loss(struct cursor *c, struct loss_params *lp)
{
	const char *v;
	double x[4];
	int n = 0;

	if (value_of(c, "loss", &v))
		return -EINVAL;
	if (!strcmp(v, "random") && value_of(c, "loss random", &v))
		return -EINVAL;
	if (strcmp(v, "gemodel")) {
		if (units_parse_percent(v, &x[0]))
			return fail(c, "loss: '%s' is not a percentage (e.g. 1%%)", v);
		*lp = (struct loss_params){ .kind = x[0] > 0 ? LOSS_BERNOULLI : LOSS_NONE, .p = x[0] };
		return 0;
	}
	while (n < 4 && peek(c) && !units_parse_percent(peek(c), &x[n])) {
		c->i++;
		n++;
	}
	if (!n)
		return fail(c, "loss gemodel: needs at least P, as a percentage");
	/* netem's defaults: R = 1 - P, all loss in the bad state. */
	*lp = (struct loss_params){
		.kind = LOSS_GILBERT_ELLIOTT,
		.p = x[0],
		.r = n > 1 ? x[1] : 1 - x[0],
		.loss_bad = n > 2 ? x[2] : 1,
		.loss_good = n > 3 ? x[3] : 0,
	};
	return 0;
}

/* One parsed PARAM, applied afterwards to every direction in scope. */
enum param_field { P_RATE, P_DELAY, P_JITTER, P_REORDER, P_LOSS, P_LIMIT, P_OVERHEAD, P_MTU, P_TRACE, P_OUTAGE };

struct param_value {
	enum param_field field;
	union {
		uint64_t u;
		struct loss_params loss;
		struct queue_limit limit;
		const char *path;
		uint64_t outage[2]; /* every, length */
	};
};

/* outage EVERY LENGTH: two times, LENGTH shorter than EVERY. */
static int parse_outage(struct cursor *c, uint64_t out[2])
{
	const char *v[2];

	for (int k = 0; k < 2; k++) {
		if (value_of(c, "outage", &v[k]))
			return fail(c, "outage: needs EVERY and LENGTH (e.g. outage 15s 1s)");
		if (units_parse_time(v[k], &out[k]) || !out[k])
			return fail(c, "outage: '%s' is not a time above 0 (e.g. 15s, 800ms)", v[k]);
	}
	if (out[1] >= out[0])
		return fail(c, "outage: the length %s is not shorter than the period %s", v[1], v[0]);
	return 0;
}

static int parse_valued(struct cursor *c, const char *key, const char *v, struct param_value *out)
{
	if (!strcmp(key, "rate")) {
		out->field = P_RATE;
		if (units_parse_rate(v, &out->u))
			return fail(c, "rate: '%s' is not a rate (e.g. 10mbit, 500kbit, unlimited)", v);
	} else if (!strcmp(key, "delay") || !strcmp(key, "jitter")) {
		out->field = key[0] == 'd' ? P_DELAY : P_JITTER;
		if (units_parse_time(v, &out->u))
			return fail(c, "%s: '%s' is not a time (e.g. 20ms, 500us)", key, v);
	} else if (!strcmp(key, "limit")) {
		out->field = P_LIMIT;
		if (parse_limit(v, &out->limit))
			return fail(c, "limit: '%s' is not a queue limit above 0 (e.g. 100p, 64kb, 50ms)", v);
	} else if (!strcmp(key, "overhead")) {
		out->field = P_OVERHEAD;
		if (units_parse_uint(v, 65535, &out->u))
			return fail(c, "overhead: '%s' is not a byte count from 0 to 65535", v);
	} else if (!strcmp(key, "mtu")) {
		out->field = P_MTU;
		if (units_parse_uint(v, 65535, &out->u) || out->u < 68)
			return fail(c, "mtu: '%s' is not a packet size from 68 to 65535", v);
	} else {
		out->field = P_TRACE;
		out->path = v;
	}
	return 0;
}

static int parse_param(struct cursor *c, const char *key, struct param_value *out)
{
	static const char *const valued[] = { "rate", "delay", "jitter", "limit", "overhead", "mtu", "trace", NULL };
	const char *v;

	if (!strcmp(key, "reorder")) {
		out->field = P_REORDER;
		return 0;
	}
	if (!strcmp(key, "loss")) {
		out->field = P_LOSS;
		return parse_loss(c, &out->loss);
	}
	if (!strcmp(key, "outage")) {
		out->field = P_OUTAGE;
		return parse_outage(c, out->outage);
	}
	for (int k = 0; valued[k]; k++)
		if (!strcmp(key, valued[k]))
			return value_of(c, key, &v) ? -EINVAL : parse_valued(c, key, v, out);
	return fail(c, "unknown parameter '%s' (see linkem -h)", key);
}

static void apply_param(struct linkem_dir_args *d, const struct param_value *v)
{
	switch (v->field) {
	case P_RATE: /* a rate replaces a trace given earlier, and the other way round */
		d->link.rate_bps = v->u;
		d->rate_set = true;
		d->trace_path = NULL;
		break;
	case P_DELAY:
		d->link.delay_ns = v->u;
		break;
	case P_JITTER:
		d->link.jitter_ns = v->u;
		break;
	case P_REORDER:
		d->link.reorder = true;
		break;
	case P_LOSS:
		d->link.loss = v->loss;
		break;
	case P_LIMIT:
		d->link.limit = v->limit;
		break;
	case P_OVERHEAD:
		d->link.overhead = (uint32_t)v->u;
		break;
	case P_MTU:
		d->link.mtu = (uint32_t)v->u;
		break;
	case P_OUTAGE:
		d->link.outage_every_ns = v->outage[0];
		d->link.outage_len_ns = v->outage[1];
		break;
	case P_TRACE:
		d->trace_path = v->path;
		d->rate_set = false;
		d->link.rate_bps = 0;
		break;
	}
}

static int parse_interfaces(struct cursor *c, struct linkem_args *a)
{
	for (int k = 0; k < DIR_COUNT; k++) {
		const char *name = peek(c);

		if (!name)
			return fail(c, "missing interface %s (see linkem -h)", k ? "IF_B" : "IF_A");
		if (!*name || strlen(name) >= LINKEM_IFNAMSIZ || strchr(name, '/'))
			return fail(c, "'%s' is not an interface name", name);
		a->if_name[k] = name;
		c->i++;
	}
	if (!strcmp(a->if_name[0], a->if_name[1]))
		return fail(c, "IF_A and IF_B are both '%s'", a->if_name[0]);
	return 0;
}

static void set_defaults(struct linkem_args *a)
{
	memset(a, 0, sizeof(*a));
	for (int k = 0; k < DIR_COUNT; k++)
		a->dir[k].link.limit = (struct queue_limit){ LIMIT_PACKETS, LINKEM_DEFAULT_LIMIT_PACKETS };
}

static int parse_options(struct cursor *c, struct linkem_args *a)
{
	for (const char *w; (w = peek(c)) && w[0] == '-'; c->i++) {
		if (!strcmp(w, "-h") || !strcmp(w, "--help"))
			a->help = true;
		else
			return fail(c, "unknown option '%s'", w);
	}
	return 0;
}

int linkem_args_parse(struct linkem_args *a, int argc, char *const argv[], char *err, size_t errlen)
{
	struct cursor c = { .argc = argc, .i = 1, .argv = argv, .err = err, .errlen = errlen };
	struct linkem_dir_args *scope[DIR_COUNT + 1] = { &a->dir[0], &a->dir[1], NULL };
	const char *w;

	set_defaults(a);
	if (parse_options(&c, a))
		return -EINVAL;
	if (a->help)
		return 0;
	if (parse_interfaces(&c, a))
		return -EINVAL;
	while ((w = peek(&c))) {
		c.i++;
		if (!strcmp(w, "both")) {
			scope[0] = &a->dir[0], scope[1] = &a->dir[1];
		} else if (!strcmp(w, "a2b") || !strcmp(w, "b2a")) {
			scope[0] = &a->dir[w[0] == 'a' ? DIR_A2B : DIR_B2A], scope[1] = NULL;
		} else if (!strcmp(w, "seed")) {
			if (value_of(&c, "seed", &w))
				return -EINVAL;
			if (units_parse_uint(w, UINT64_MAX, &a->seed))
				return fail(&c, "seed: '%s' is not a number", w);
			a->seed_set = true;
		} else {
			struct param_value v;

			if (parse_param(&c, w, &v))
				return -EINVAL;
			for (int k = 0; scope[k]; k++)
				apply_param(scope[k], &v);
		}
	}
	return 0;
}
