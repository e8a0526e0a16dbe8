// SPDX-License-Identifier: MIT
/*
 * The scenario format: one directive per line, words separated by blanks,
 * '#' starts a comment.
 *
 *   duration 10s                  simulated time (default 10 s)
 *   warmup 1s                     measurements start this late (default 1 s)
 *   seed 7                        every random choice follows from it
 *   link NAME [backup] [weight N] PARAM...   an uplink, with linkem's parameters
 *                                 (up = a2b, client to server; down = b2a)
 *   event TIME link NAME down|up  the link dies (everything in it lost) or returns
 *   event TIME link NAME mtu N    from then on its packets above N bytes vanish (a path MTU black hole)
 *   app bulk up|down [start T] [stop T]
 *   app rr [request SIZE] [size SIZE] [think T] [start T] [stop T]
 *   app cbr up|down size SIZE interval T [start T] [stop T]
 *   app tcp up|down [cc cubic|newreno|bbr] [path LINK] [rmem SIZE] [wmem SIZE] [start T] [stop T]
 *                                 path: a plain TCP over that link alone, not through the bond;
 *                                 rmem, wmem: its receive window's and send buffer's most
 *   app tcprr [request SIZE] [size SIZE] [think T] [cc ...] [start T] [stop T]
 *   bond KEY VALUE                cc, send_buffer, receive_window, send_queue,
 *                                 hold, aqm (on|off), mtu, scheduler, and the
 *                                 scheduler's rules (penalise on|off, ...)
 *   expect METRIC OP NUMBER       OP is >=, <= or ==; see sim.c for metrics
 *   verbose                       the devices' log lines on stderr
 *   report_every TIME             a line of goodput and link shares per interval, on stderr
 *   window NAME FROM TO           the inner TCP flows' goodput over [FROM, TO): window_NAME_DIR_mbit
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "sim.h"
#include "validate.h"
#include "units.h"

#define MAX_WORDS 64

struct line {
	const char *file;
	int no;
	char *w[MAX_WORDS];
	int n;
	char *err;
	size_t errlen;
};

static int fail(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!l->errlen)
		return -EINVAL;
	n = snprintf(l->err, l->errlen, "%s:%d: ", l->file, l->no);
	if (n < 0 || (size_t)n >= l->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int time_of(struct line *l, const char *w, uint64_t *ns)
{
	if (!w || units_parse_time(w, ns))
		return fail(l, "'%s' is not a time (e.g. 10s, 250ms)", w ? w : "");
	return 0;
}

static int size_of(struct line *l, const char *w, uint64_t *bytes)
{
	if (!w || units_parse_size(w, bytes))
		return fail(l, "'%s' is not a size (e.g. 1500b, 64kb, 6mb)", w ? w : "");
	return 0;
}

static int find_link(const struct sim_scenario *s, const char *name)
{
	for (int i = 0; i < s->n_links; i++)
		if (!strcmp(s->links[i].name, name))
			return i;
	return -1;
}

/* link NAME [backup] [weight N] PARAM...: the uplink's role, then linkem's own parser, with up/down for a2b/b2a. */
static int parse_link(struct sim_scenario *s, struct line *l)
{
	char *argv[MAX_WORDS + 3] = { "sim", "a", "b" };
	struct sim_link_conf *c;
	struct linkem_args a;
	char err[200];
	int argc = 3, first = 2;

	if (l->n < 2)
		return fail(l, "link: missing name");
	if (s->n_links == SIM_MAX_LINKS)
		return fail(l, "more than %d links", SIM_MAX_LINKS);
	if (find_link(s, l->w[1]) >= 0 || strlen(l->w[1]) >= sizeof(c->name))
		return fail(l, "link '%s': the name is taken or too long", l->w[1]);
	c = &s->links[s->n_links];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", l->w[1]);
	c->line = l->no;
	c->weight = WB_WEIGHT_DEFAULT;
	if (first < l->n && !strcmp(l->w[first], "backup")) {
		c->backup = true;
		first++;
	}
	if (first < l->n && !strcmp(l->w[first], "weight")) {
		char *end;
		unsigned long w = first + 1 < l->n ? strtoul(l->w[first + 1], &end, 10) : 0;

		if (first + 1 >= l->n || *end || w < WB_WEIGHT_MIN || w > WB_WEIGHT_MAX)
			return fail(l, "link '%s': weight: expected %d..%d", c->name, WB_WEIGHT_MIN, WB_WEIGHT_MAX);
		c->weight = (uint16_t)w;
		first += 2;
	}
	for (int i = first; i < l->n; i++)
		argv[argc++] = !strcmp(l->w[i], "up") ? "a2b" : !strcmp(l->w[i], "down") ? "b2a" : l->w[i];
	if (linkem_args_parse(&a, argc, argv, err, sizeof(err)))
		return fail(l, "link '%s': %s", c->name, err);
	c->dir[SIM_UP] = a.dir[DIR_A2B];
	c->dir[SIM_DOWN] = a.dir[DIR_B2A];
	/* The words go with the line: keep the trace paths. */
	for (int k = 0; k < 2; k++) {
		if (!c->dir[k].trace_path)
			continue;
		if (strlen(c->dir[k].trace_path) >= sizeof(c->trace_path[k]))
			return fail(l, "link '%s': the trace path is too long", c->name);
		snprintf(c->trace_path[k], sizeof(c->trace_path[k]), "%s", c->dir[k].trace_path);
		c->dir[k].trace_path = c->trace_path[k];
	}
	s->n_links++;
	return 0;
}

static int parse_event(struct sim_scenario *s, struct line *l)
{
	struct sim_event *e = &s->events[s->n_events];
	int rc;

	if (s->n_events == SIM_MAX_EVENTS)
		return fail(l, "more than %d events", SIM_MAX_EVENTS);
	bool mtu = l->n == 6 && !strcmp(l->w[4], "mtu");

	if (!mtu && (l->n != 5 || strcmp(l->w[2], "link") || (strcmp(l->w[4], "down") && strcmp(l->w[4], "up"))))
		return fail(l, "event: expected 'event TIME link NAME down|up' or 'event TIME link NAME mtu N'");
	if ((rc = time_of(l, l->w[1], &e->at)))
		return rc;
	e->link = find_link(s, l->w[3]);
	if (e->link < 0)
		return fail(l, "event: no link '%s' (links come first)", l->w[3]);
	e->up = !strcmp(l->w[4], "up");
	if (mtu) {
		char *end;
		unsigned long n = strtoul(l->w[5], &end, 10);

		if (*end || n < 68 || n > 65535)
			return fail(l, "event: mtu '%s' is not a packet size from 68 to 65535", l->w[5]);
		e->mtu = (uint32_t)n;
	}
	s->n_events++;
	return 0;
}

static int read_dscp(struct line *l, const char *v, uint8_t *out)
{
	int dscp = v ? wb_dscp_parse(v) : -1;

	if (dscp < 0)
		return fail(l, "app: dscp '%s' is no DSCP name (EF, AF41...) or 0..63", v ? v : "");
	*out = (uint8_t)dscp;
	return 0;
}

static int parse_app_option(const struct sim_scenario *s, struct line *l, int *i, struct sim_app_conf *a)
{
	const char *k = l->w[*i], *v = *i + 1 < l->n ? l->w[*i + 1] : NULL;
	uint64_t x;
	int rc = 0;

	(*i)++;
	if (!strcmp(k, "start"))
		rc = time_of(l, v, &a->start_ns);
	else if (!strcmp(k, "stop"))
		rc = time_of(l, v, &a->stop_ns);
	else if (!strcmp(k, "think") || !strcmp(k, "interval"))
		rc = time_of(l, v, &a->interval_ns);
	else if (!strcmp(k, "dscp") && (a->kind == APP_CBR || a->kind == APP_BULK))
		rc = read_dscp(l, v, &a->dscp);
	else if (!strcmp(k, "path") && a->kind == APP_TCP)
		rc = v && (a->path = find_link(s, v)) >= 0 ? 0 : fail(l, "app: path: no link '%s' (links come first)", v ? v : "");
	else if ((!strcmp(k, "rmem") || !strcmp(k, "wmem")) && (a->kind == APP_TCP || a->kind == APP_TCPRR)) {
		rc = size_of(l, v, &x);
		if (!rc && (x < 65536 || x > 1ULL << 30))
			rc = fail(l, "app: %s must be 64 KiB to 1 GiB", k);
		if (!rc)
			*(k[0] == 'r' ? &a->rmem : &a->wmem) = x;
	} else if (!strcmp(k, "cc") && (a->kind == APP_TCP || a->kind == APP_TCPRR))
		rc = v && !tcp_cc_by_name(v, &a->cc) ? 0 : fail(l, "app: cc '%s' is none of cubic, newreno, bbr", v ? v : "");
	else if (!strcmp(k, "size") || !strcmp(k, "request")) {
		rc = size_of(l, v, &x);
		if (!rc && (!x || x > 1ULL << 30))
			rc = fail(l, "app: %s must be 1 byte to 1 GiB", k);
		if (!rc)
			*(!strcmp(k, "size") ? &a->size : &a->request_size) = (uint32_t)x;
	} else
		return fail(l, "app: unknown option '%s'", k);
	(*i)++;
	return rc;
}

static int parse_app(struct sim_scenario *s, struct line *l)
{
	struct sim_app_conf *a = &s->apps[s->n_apps];
	int i = 2, rc;

	if (s->n_apps == SIM_MAX_APPS)
		return fail(l, "more than %d apps", SIM_MAX_APPS);
	if (l->n < 2)
		return fail(l, "app: expected bulk, rr, cbr, tcp or tcprr");
	memset(a, 0, sizeof(*a));
	a->dir = SIM_DOWN;
	a->cc = TCP_CC_CUBIC;
	a->path = -1;
	if (!strcmp(l->w[1], "bulk") || !strcmp(l->w[1], "cbr") || !strcmp(l->w[1], "tcp")) {
		a->kind = l->w[1][0] == 'b' ? APP_BULK : l->w[1][0] == 'c' ? APP_CBR : APP_TCP;
		if (l->n < 3 || (strcmp(l->w[2], "up") && strcmp(l->w[2], "down")))
			return fail(l, "app %s: expected up or down", l->w[1]);
		a->dir = !strcmp(l->w[2], "up") ? SIM_UP : SIM_DOWN;
		i = 3;
	} else if (!strcmp(l->w[1], "rr") || !strcmp(l->w[1], "tcprr")) {
		a->kind = l->w[1][0] == 'r' ? APP_RR : APP_TCPRR;
		a->size = 1 << 20;
		a->request_size = 100;
		a->interval_ns = 100 * SIM_MS;
	} else {
		return fail(l, "app: '%s' is none of bulk, rr, cbr, tcp, tcprr", l->w[1]);
	}
	while (i < l->n)
		if ((rc = parse_app_option(s, l, &i, a)))
			return rc;
	if (a->kind == APP_CBR && (!a->size || !a->interval_ns))
		return fail(l, "app cbr: needs size and interval");
	s->n_apps++;
	return 0;
}

static int parse_bond(struct sim_scenario *s, struct line *l)
{
	struct wb_bond_tuning *t = &s->tuning;
	const char *k = l->w[1], *v = l->w[2];
	uint64_t x;

	if (l->n != 3)
		return fail(l, "bond: expected 'bond KEY VALUE'");
	if (!strcmp(k, "cc")) {
		if (strcmp(v, "bbr") && strcmp(v, "newreno"))
			return fail(l, "bond cc: '%s' is none of bbr, newreno", v);
		snprintf(t->cc, sizeof(t->cc), "%s", v);
	} else if (!strcmp(k, "aqm")) {
		if (strcmp(v, "on") && strcmp(v, "off"))
			return fail(l, "bond aqm: on or off");
		t->no_aqm = !strcmp(v, "off");
	} else if (!strcmp(k, "hold")) {
		return time_of(l, v, &t->hold_ns);
	} else if (!strcmp(k, "scheduler")) {
		if (!wb_sched_exists(v))
			return fail(l, "bond scheduler: '%s' is none of default, roundrobin, redundant, first", v);
		snprintf(t->scheduler, sizeof(t->scheduler), "%s", v);
	} else if (wb_sched_rule_by_name(k)) {
		if (strcmp(v, "on") && strcmp(v, "off"))
			return fail(l, "bond %s: on or off", k);
		if (!strcmp(v, "off"))
			t->sched_off |= wb_sched_rule_by_name(k);
		else
			t->sched_off &= ~wb_sched_rule_by_name(k);
	} else if (!strcmp(k, "classes")) {
		if (strcmp(v, "on") && strcmp(v, "off"))
			return fail(l, "bond classes: on or off");
		wb_class_rules_default(&t->classes.rules);
		t->classes.rules.enabled = !strcmp(v, "on");
		t->classes.fec = true;
	} else if (!strcmp(k, "class_policy")) {
		if (!strcmp(v, "duplicate") || !strcmp(v, "redundant") || !strcmp(v, "bonded"))
			t->classes.policy = v[0] == 'd' ? WB_CLASS_POLICY_DUPLICATE :
					    v[0] == 'r' ? WB_CLASS_POLICY_REDUNDANT : WB_CLASS_POLICY_BONDED;
		else
			return fail(l, "bond class_policy: '%s' is none of duplicate, redundant, bonded", v);
	} else if (!strcmp(k, "fec") || !strcmp(k, "ordered") || !strcmp(k, "outer_dscp")) {
		if (strcmp(v, "on") && strcmp(v, "off"))
			return fail(l, "bond %s: on or off", k);
		*(k[0] == 'f' ? &t->classes.fec : k[0] == 'o' && k[1] == 'r' ? &t->classes.ordered : &t->outer_dscp) =
			!strcmp(v, "on");
	} else if (!strcmp(k, "mtu")) {
		if (units_parse_uint(v, 9000, &x) || x < 576)
			return fail(l, "bond mtu: 576 to 9000");
		t->mtu = (uint32_t)x;
	} else if (!strcmp(k, "send_buffer") || !strcmp(k, "receive_window") || !strcmp(k, "send_queue")) {
		if (size_of(l, v, &x))
			return -EINVAL;
		if (x < 16384)
			return fail(l, "bond %s: at least 16kb", k);
		*(k[5] == 'b' ? &t->send_buffer : k[5] == 'q' ? &t->send_queue : &t->receive_window) = x;
	} else {
		return fail(l, "bond: unknown key '%s'", k);
	}
	return 0;
}

static int parse_expect(struct sim_scenario *s, struct line *l)
{
	struct sim_expect *e = &s->expect[s->n_expect];
	char *end;

	if (s->n_expect == SIM_MAX_EXPECT)
		return fail(l, "more than %d expectations", SIM_MAX_EXPECT);
	if (l->n != 4 || strlen(l->w[1]) >= sizeof(e->metric))
		return fail(l, "expect: expected 'expect METRIC OP NUMBER'");
	snprintf(e->metric, sizeof(e->metric), "%s", l->w[1]);
	if (!strcmp(l->w[2], ">="))
		e->op = OP_GE;
	else if (!strcmp(l->w[2], "<="))
		e->op = OP_LE;
	else if (!strcmp(l->w[2], "=="))
		e->op = OP_EQ;
	else
		return fail(l, "expect: '%s' is none of >=, <=, ==", l->w[2]);
	e->value = strtod(l->w[3], &end);
	if (*end || end == l->w[3])
		return fail(l, "expect: '%s' is not a number", l->w[3]);
	e->line = l->no;
	s->n_expect++;
	return 0;
}

static int parse_line(struct sim_scenario *s, struct line *l)
{
	const char *k = l->w[0];

	if (!strcmp(k, "link"))
		return parse_link(s, l);
	if (!strcmp(k, "event"))
		return parse_event(s, l);
	if (!strcmp(k, "app"))
		return parse_app(s, l);
	if (!strcmp(k, "bond"))
		return parse_bond(s, l);
	if (!strcmp(k, "expect"))
		return parse_expect(s, l);
	if (!strcmp(k, "verbose") && l->n == 1) {
		s->verbose = true;
		return 0;
	}
	if (!strcmp(k, "window") && l->n == 4) {
		struct sim_window *w = &s->windows[s->n_windows];
		int rc;

		if (s->n_windows == SIM_MAX_WINDOWS || strlen(l->w[1]) >= sizeof(w->name))
			return fail(l, "window: more than %d, or a name too long", SIM_MAX_WINDOWS);
		snprintf(w->name, sizeof(w->name), "%s", l->w[1]);
		if ((rc = time_of(l, l->w[2], &w->from_ns)) || (rc = time_of(l, l->w[3], &w->to_ns)))
			return rc;
		if (w->to_ns <= w->from_ns)
			return fail(l, "window %s: it ends before it begins", w->name);
		s->n_windows++;
		return 0;
	}
	if (!strcmp(k, "report_every") && l->n == 2)
		return time_of(l, l->w[1], &s->report_every_ns);
	if ((!strcmp(k, "duration") || !strcmp(k, "warmup")) && l->n == 2)
		return time_of(l, l->w[1], k[0] == 'd' ? &s->duration_ns : &s->warmup_ns);
	if (!strcmp(k, "seed") && l->n == 2)
		return units_parse_uint(l->w[1], UINT64_MAX, &s->seed) ? fail(l, "seed: not a number") : 0;
	return fail(l, "unknown directive '%s' (or the wrong number of words)", k);
}

/* Splits a line into words in place; stops at '#'. */
static int split(struct line *l, char *text)
{
	l->n = 0;
	for (char *p = strtok(text, " \t\r"); p; p = strtok(NULL, " \t\r")) {
		if (*p == '#')
			break;
		if (l->n == MAX_WORDS)
			return fail(l, "more than %d words", MAX_WORDS);
		l->w[l->n++] = p;
	}
	return 0;
}

static int check(struct sim_scenario *s, struct line *l)
{
	if (!s->n_links)
		return fail(l, "no link");
	if (!s->n_apps)
		return fail(l, "no app");
	if (s->warmup_ns >= s->duration_ns)
		return fail(l, "the warmup (%llu ms) is not shorter than the duration",
			    (unsigned long long)(s->warmup_ns / SIM_MS));
	return 0;
}

int sim_scenario_parse(struct sim_scenario *s, const char *text, const char *name, char *err, size_t errlen)
{
	struct line l = { .file = name, .err = err, .errlen = errlen };
	char *copy = strdup(text), *p, *nl;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", name);
	s->duration_ns = 10 * SIM_SEC;
	s->warmup_ns = SIM_SEC;
	s->seed = 1;
	s->timers = WB_TIMERS_DEFAULT;
	if (!copy)
		return -ENOMEM;
	for (p = copy; !rc && p && *p; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = 0;
		l.no++;
		rc = split(&l, p);
		if (!rc && l.n)
			rc = parse_line(s, &l);
	}
	free(copy);
	return rc ? rc : check(s, &l);
}
