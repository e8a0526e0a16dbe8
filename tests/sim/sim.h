/* SPDX-License-Identifier: MIT */
/*
 * The deterministic simulator: two wanbond devices (a client and a server,
 * the real lib/) joined by simulated uplinks in virtual time, with
 * applications at both ends. Links use linkem's model (tools/linkem), so an
 * uplink here behaves as one in the namespace bench. A scenario is a small
 * text file (scenario.c, docs/simulator.md); the same scenario and seed give
 * the same output, bit for bit.
 */
#ifndef WB_SIM_H
#define WB_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "linkdir.h"
#include "prng.h"
#include "tcp.h"
#include "trace.h"
#include "wanbond.h"

#define SIM_MAX_LINKS WB_MAX_UPLINKS
#define SIM_MAX_EVENTS 64
#define SIM_MAX_APPS 8
#define SIM_MAX_EXPECT 32
#define SIM_MAX_WINDOWS 8
#define SIM_OUTER_HEADER 28 /* IPv4 and UDP around each datagram on a link */
#define SIM_MS 1000000ULL
#define SIM_SEC 1000000000ULL

enum sim_dir { SIM_UP, SIM_DOWN }; /* up: client to server (a2b), down: server to client (b2a) */

struct sim_link_conf {
	char name[32];
	struct linkem_dir_args dir[2]; /* [SIM_UP] = a2b, [SIM_DOWN] = b2a */
	char trace_path[2][256];       /* dir[k].trace_path points here */
	bool backup;
	uint16_t weight; /* 1 unless the line says weight N */
	int line;
};

struct sim_event {
	uint64_t at;
	int link;
	bool up;      /* the link comes back (true) or dies (false) */
	uint32_t mtu; /* set: instead, its packets above this size vanish from now on, both ways */
};

enum sim_app_kind { APP_BULK, APP_RR, APP_CBR, APP_TCP, APP_TCPRR }; /* tcp, tcprr: over the inner TCP model (tcp.h) */

struct sim_app_conf {
	enum sim_app_kind kind;
	enum sim_dir dir;        /* bulk, cbr, tcp: which way the data flows; rr, tcprr: the response's way */
	uint32_t size;           /* cbr: packet size; rr: response bytes */
	uint32_t request_size;   /* rr */
	uint64_t interval_ns;    /* cbr: between packets; rr: think time after a response */
	uint64_t start_ns, stop_ns;
	enum tcp_cc cc;          /* tcp, tcprr: the inner TCP's congestion control */
	int path;                /* tcp: -1 through the bond; else a plain TCP over this link alone, beside the tunnel */
	uint64_t rmem, wmem;     /* tcp: the receive window's and the send buffer's most (0: the model's default) */
	uint8_t dscp;            /* bulk, cbr: the DSCP its packets carry (the traffic classes read it) */
};

enum sim_op { OP_GE, OP_LE, OP_EQ };

struct sim_expect {
	char metric[64];
	enum sim_op op;
	double value;
	int line;
};

/* window NAME FROM TO: the inner TCP flows' goodput over [FROM, TO), as a metric of its own. */
struct sim_window {
	char name[32];
	uint64_t from_ns, to_ns;
};

struct sim_scenario {
	char path[256];
	uint64_t duration_ns, warmup_ns;
	uint64_t seed;
	int n_links;
	struct sim_link_conf links[SIM_MAX_LINKS];
	int n_events;
	struct sim_event events[SIM_MAX_EVENTS];
	int n_apps;
	struct sim_app_conf apps[SIM_MAX_APPS];
	int n_expect;
	struct sim_expect expect[SIM_MAX_EXPECT];
	int n_windows;
	struct sim_window windows[SIM_MAX_WINDOWS];
	struct wb_bond_tuning tuning;
	struct wb_timers timers;
	bool verbose;
	uint64_t report_every_ns; /* a line of goodput per interval, on stderr (0: none) */
	bool print_metrics;       /* every metric as "metric NAME VALUE" after the report */
};

/* Parses a scenario; on error -EINVAL with "FILE:LINE: what" in err. Traces are loaded by the caller. */
int sim_scenario_parse(struct sim_scenario *s, const char *text, const char *name, char *err, size_t errlen);

/* Runs a parsed scenario, prints its report to out; returns 0 if every expectation held. */
int sim_run(const struct sim_scenario *s, FILE *out);

#endif
