// SPDX-License-Identifier: MIT
/*
 * The simulator's engine: virtual time, the links between the two devices,
 * the applications, the invariants checked as it runs, and the report.
 *
 * Metrics an expectation may name (per direction, "down" or "up"):
 *   goodput_DIR_mbit     application bytes delivered per second, after the warmup
 *   goodput_DIR_ratio    that over the payload capacity of the non-backup links
 *   delivered_DIR        packets delivered to the application
 *   in_order_DIR         1 if every packet arrived in order and exactly once, else 0
 *   gaps_DIR, dups_DIR   packets that never arrived, and that arrived twice
 *   share_LINK_DIR       the link's share of the bytes that crossed the links (0..1)
 *   retransmit_ratio_DIR bytes sent again over bytes delivered
 *   skips, bond_timeouts, aqm_drops, reorder_max_kb
 *   rr_requests, rr_p50_ms, rr_p95_ms, cbr_loss, cbr_p50_ms, cbr_p95_ms
 *   tcp_goodput_DIR_mbit, tcp_retrans_DIR, tcp_spurious_DIR, tcp_ofo_DIR, tcp_rto_DIR,
 *   tcp_srtt_ms_DIR, tcp_in_order_DIR, tcprr_requests, tcprr_p50_ms, tcprr_p95_ms
 *                        the inner TCP flows whose data go DIR (tcp.h)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bond.h"
#include "crypto.h"
#include "sim.h"

#define T0 SIM_SEC /* the simulation starts at 1 s: no time is 0 */
#define APP_HEADER 24
#define MAX_SAMPLES 200000
#define TCP_PORT_BASE 50000 /* an inner TCP connection's client port: this plus its app's index */

struct sim;

struct sim_packet {
	uint32_t len;
	int link;
	enum sim_dir dir;
	int app; /* a plain TCP packet of this app (app tcp ... path), not a datagram of the tunnel: -1 */
	uint8_t data[];
};

struct sim_node {
	struct sim *sim;
	bool server;
	struct wb_device *dev;
	struct wb_bond *bond;
	struct prng rng;
};

struct sim_link {
	const struct sim_link_conf *conf;
	struct trace trace[2];
	struct linkdir dir[2];
	bool dead;
	struct wb_endpoint client_ep;
};

struct samples {
	uint64_t *v;
	size_t n;
};

struct app {
	const struct sim_app_conf *conf;
	struct sim *sim;
	uint64_t next_seq, expect_seq;
	uint64_t delivered, in_order, dups, gaps, bytes_measured, delivered_bytes;
	/* rr */
	uint32_t rr_id;
	uint64_t rr_sent_ns, rr_got, rr_next_ns, rr_to_send;
	bool rr_waiting;
	/* cbr */
	uint64_t cbr_next_ns, cbr_sent;
	struct samples latency;
	/* cbr: RFC 3550's interarrival jitter, from each packet's transit time and the one before's */
	double jitter_ns;
	uint64_t last_transit_ns;
	/* tcp, tcprr (with rr's fields for the client's side) */
	struct tcp_conn *tcp;
	uint64_t tcp_served; /* requests the server has answered */
};

struct sim {
	const struct sim_scenario *s;
	uint64_t now, end, measure_from;
	struct sim_node client, server;
	struct sim_link links[SIM_MAX_LINKS];
	struct app apps[SIM_MAX_APPS];
	int next_event;
	struct wb_endpoint server_ep;
	bool broken;
	char why[256];
	uint64_t max_held;
	uint64_t next_report_ns, reported_bytes[2], reported_link_bytes[SIM_MAX_LINKS][2];
	uint64_t window_bytes[SIM_MAX_WINDOWS][2][2]; /* per window, per direction: delivered at its start, its end */
	bool window_seen[SIM_MAX_WINDOWS][2];
};

/* ---- the devices' callbacks ---------------------------------------------------- */

static int link_of_endpoint(const struct sim *sim, const struct wb_endpoint *e)
{
	for (int k = 0; k < sim->s->n_links; k++)
		if (wb_endpoint_equal(&sim->links[k].client_ep, e))
			return k;
	return -1;
}

static void on_send(void *ctx, unsigned sock, const struct wb_endpoint *to, const uint8_t *data, size_t len,
		    uint8_t dscp)
{
	struct sim_node *node = ctx;
	struct sim *sim = node->sim;
	int k = node->server ? link_of_endpoint(sim, to) : (int)sock;
	enum sim_dir dir = node->server ? SIM_DOWN : SIM_UP;
	struct sim_packet *p;

	(void)dscp; /* a simulated link has one queue: the outer DSCP changes nothing on it */
	if (k < 0 || k >= sim->s->n_links || sim->links[k].dead)
		return;
	p = malloc(sizeof(*p) + len);
	if (!p)
		abort();
	p->len = (uint32_t)len;
	p->link = k;
	p->dir = dir;
	p->app = -1;
	memcpy(p->data, data, len);
	if (linkdir_enqueue(&sim->links[k].dir[dir], sim->now, (uint32_t)len + SIM_OUTER_HEADER, p) != LINKDIR_QUEUED)
		free(p);
}

static void samples_add(struct samples *s, uint64_t v)
{
	if (s->n < MAX_SAMPLES)
		s->v[s->n++] = v;
}

static struct app *app_of(struct sim *sim, const uint8_t *ip, size_t len)
{
	return len >= APP_HEADER && ip[3] < sim->s->n_apps ? &sim->apps[ip[3]] : NULL;
}

static void count_stream(struct sim *sim, struct app *a, uint64_t seq, size_t len)
{
	a->delivered++;
	a->delivered_bytes += len;
	if (sim->now >= sim->measure_from)
		a->bytes_measured += len;
	if (seq == a->expect_seq) {
		a->in_order++;
		a->expect_seq++;
	} else if (seq < a->expect_seq) {
		a->dups++;
	} else {
		a->gaps += seq - a->expect_seq;
		a->expect_seq = seq + 1;
	}
}

/* A stream packet's one-way delay: a sample, and the jitter J += (|D| - J) / 16 (RFC 3550, 6.4.1). */
static void cbr_arrival(struct app *a, uint64_t transit)
{
	if (a->latency.n) {
		double d = (double)transit - (double)a->last_transit_ns;

		a->jitter_ns += ((d < 0 ? -d : d) - a->jitter_ns) / 16;
	}
	a->last_transit_ns = transit;
	samples_add(&a->latency, transit);
}

static void rr_response(struct sim *sim, struct app *a, const uint8_t *ip, size_t len)
{
	uint32_t id;

	memcpy(&id, ip + 20, 4);
	if (id != a->rr_id || !a->rr_waiting)
		return;
	a->rr_got += len;
	if (a->rr_got >= a->conf->size) {
		samples_add(&a->latency, sim->now - a->rr_sent_ns);
		a->rr_waiting = false;
		a->rr_next_ns = sim->now + a->conf->interval_ns;
	}
}

/* An inner TCP packet, to its connection's end on this side. */
static bool tcp_deliver(struct sim *sim, const struct sim_node *node, const uint8_t *ip, size_t len)
{
	int port = tcp_client_port(ip, len), i = port - TCP_PORT_BASE;

	if (port < 0)
		return false;
	if (i >= 0 && i < sim->s->n_apps && sim->apps[i].tcp)
		tcp_input(sim->apps[i].tcp, node->server ? TCP_SERVER : TCP_CLIENT, sim->now, ip, len);
	return true;
}

static void on_deliver(void *ctx, struct wb_bond *b, const uint8_t *ip, size_t len)
{
	struct sim_node *node = ctx;
	struct sim *sim = node->sim;
	struct app *a;
	uint64_t seq, sent;

	(void)b;
	if (tcp_deliver(sim, node, ip, len) || !(a = app_of(sim, ip, len)))
		return;
	memcpy(&seq, ip + 4, 8);
	memcpy(&sent, ip + 12, 8);
	switch (ip[2]) {
	case 'D': /* bulk data, an rr response or a cbr packet: all are streams */
		count_stream(sim, a, seq, len);
		if (a->conf->kind == APP_CBR)
			cbr_arrival(a, sim->now - sent);
		if (a->conf->kind == APP_RR)
			rr_response(sim, a, ip, len);
		break;
	case 'R': /* a request, at the server: the response goes out as space allows */
		memcpy(&a->rr_id, ip + 20, 4);
		a->rr_to_send = a->conf->size;
		break;
	}
}

static void on_random(void *ctx, void *buf, size_t len)
{
	struct sim_node *node = ctx;

	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)prng_next(&node->rng);
}

static void on_log(void *ctx, enum wb_log_level level, const char *bond, const char *uplink, const char *msg)
{
	struct sim_node *node = ctx;

	if (node->sim->s->verbose && level <= WB_LOG_INFO)
		fprintf(stderr, "%10.6f %s %s%s%s: %s\n", (double)(node->sim->now - T0) / 1e9,
			node->server ? "server" : "client", bond, uplink ? "/" : "", uplink ? uplink : "", msg);
}

/* The simulation's wall clock: its virtual time, from an epoch in 2023. */
static uint64_t on_wall_clock(void *ctx)
{
	const struct sim_node *n = ctx;

	return 1700000000ULL * SIM_SEC + n->sim->now;
}

static const struct wb_device_ops sim_ops = {
	.send = on_send, .deliver = on_deliver, .random = on_random, .log = on_log, .wall_clock = on_wall_clock,
};

/* ---- set-up ----------------------------------------------------------------------- */

static int load_trace(struct trace *t, const char *path, char *why, size_t whylen)
{
	char err[160];
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long size;
	int rc = -1;

	if (f && !fseek(f, 0, SEEK_END) && (size = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (text = malloc((size_t)size + 1)) && fread(text, 1, (size_t)size, f) == (size_t)size)
		rc = trace_parse(t, text, (size_t)size, err, sizeof(err)) ? -1 : 0;
	if (rc)
		snprintf(why, whylen, "trace %s: %s", path, f ? err : "cannot open");
	free(text);
	if (f)
		fclose(f);
	return rc;
}

static int start_links(struct sim *sim)
{
	for (int k = 0; k < sim->s->n_links; k++) {
		struct sim_link *l = &sim->links[k];

		l->conf = &sim->s->links[k];
		l->client_ep = (struct wb_endpoint){ .family = 4, .port = (uint16_t)(40000 + k),
						     .addr = { 10, 100, (uint8_t)k, 1 } };
		for (int d = 0; d < 2; d++) {
			struct linkdir_params p = l->conf->dir[d].link;

			if (l->conf->dir[d].trace_path) {
				if (load_trace(&l->trace[d], l->conf->dir[d].trace_path, sim->why, sizeof(sim->why)))
					return -1;
				p.trace = &l->trace[d];
			}
			if (linkdir_init(&l->dir[d], &p, sim->s->seed * 131 + (uint64_t)k * 2 + (uint64_t)d, T0))
				return -1;
		}
	}
	return 0;
}

static void key_of(struct prng *rng, uint8_t key[WB_KEY_LEN])
{
	for (int i = 0; i < WB_KEY_LEN; i++)
		key[i] = (uint8_t)prng_next(rng);
	wb_x25519_clamp(key);
}

static int start_node(struct sim *sim, struct sim_node *n, bool server, const uint8_t priv[WB_KEY_LEN],
		      const uint8_t peer_priv[WB_KEY_LEN])
{
	struct wb_device_params dp = { .server = server, .cipher = WB_CIPHER_CHACHA20_POLY1305,
				       .timers = sim->s->timers };
	struct wb_bond_params bp = { .name = "sim", .tuning = sim->s->tuning, .server = sim->server_ep };

	n->sim = sim;
	n->server = server;
	prng_seed(&n->rng, sim->s->seed * 7 + server);
	memcpy(dp.private_key, priv, WB_KEY_LEN);
	wb_x25519_public(bp.public_key, peer_priv);
	if (!server) {
		bp.n_uplinks = sim->s->n_links;
		for (int k = 0; k < sim->s->n_links; k++) {
			snprintf(bp.uplinks[k].name, sizeof(bp.uplinks[k].name), "%s", sim->s->links[k].name);
			bp.uplinks[k].backup = sim->s->links[k].backup;
			bp.uplinks[k].weight = sim->s->links[k].weight;
		}
	}
	if (wb_device_new(&n->dev, &dp, &sim_ops, n) || wb_device_add_bond(n->dev, &bp, &n->bond)) {
		snprintf(sim->why, sizeof(sim->why), "cannot create the %s device", server ? "server" : "client");
		return -1;
	}
	return 0;
}

static int start(struct sim *sim, const struct sim_scenario *s)
{
	uint8_t ck[WB_KEY_LEN], sk[WB_KEY_LEN];
	struct prng rng;

	memset(sim, 0, sizeof(*sim));
	sim->s = s;
	sim->now = T0;
	sim->end = T0 + s->duration_ns;
	sim->measure_from = T0 + s->warmup_ns;
	sim->server_ep = (struct wb_endpoint){ .family = 4, .port = 51820, .addr = { 10, 200, 0, 1 } };
	prng_seed(&rng, s->seed);
	key_of(&rng, ck);
	key_of(&rng, sk);
	for (int i = 0; i < s->n_apps; i++) {
		sim->apps[i].conf = &s->apps[i];
		sim->apps[i].sim = sim;
		sim->apps[i].latency.v = calloc(MAX_SAMPLES, sizeof(uint64_t));
		if (!sim->apps[i].latency.v)
			return -1;
	}
	if (start_links(sim) || start_node(sim, &sim->client, false, ck, sk) ||
	    start_node(sim, &sim->server, true, sk, ck))
		return -1;
	for (int k = 0; k < s->n_links; k++)
		wb_bond_set_uplink_available(sim->client.bond, (unsigned)k, true, sim->now, NULL);
	return 0;
}

static void stop(struct sim *sim)
{
	for (int k = 0; k < sim->s->n_links; k++) {
		for (int d = 0; d < 2; d++) {
			void *p;

			while ((p = linkdir_drain(&sim->links[k].dir[d])))
				free(p);
			linkdir_free(&sim->links[k].dir[d]);
			trace_free(&sim->links[k].trace[d]);
		}
	}
	wb_device_free(sim->client.dev);
	wb_device_free(sim->server.dev);
	for (int i = 0; i < sim->s->n_apps; i++) {
		free(sim->apps[i].latency.v);
		tcp_conn_free(sim->apps[i].tcp);
	}
}

/* ---- applications ------------------------------------------------------------------- */

static struct sim_node *sender_of(struct sim *sim, enum sim_dir dir)
{
	return dir == SIM_UP ? &sim->client : &sim->server;
}

static struct sim_node *receiver_of(struct sim *sim, enum sim_dir dir)
{
	return dir == SIM_UP ? &sim->server : &sim->client;
}

/* An application packet: marker, app, type, sequence, time sent, request id. */
static bool app_send(struct sim *sim, struct app *a, enum sim_dir dir, char type, uint32_t len, uint32_t id)
{
	static uint8_t pkt[9000]; /* only its header is ever written: the rest is whatever, as payload */
	struct sim_node *n = sender_of(sim, dir);

	pkt[0] = 0x45;
	if (len < APP_HEADER)
		len = APP_HEADER;
	if (len > n->bond->tuning.mtu)
		len = n->bond->tuning.mtu;
	pkt[1] = (uint8_t)(a->conf->dscp << 2); /* the TOS: its DSCP, for the traffic classes */
	if (!wb_bond_can_queue(n->bond, pkt, len))
		return false;
	pkt[2] = (uint8_t)type;
	pkt[3] = (uint8_t)(a - sim->apps);
	if (type == 'D')
		memcpy(pkt + 4, &(uint64_t){ a->next_seq++ }, 8);
	memcpy(pkt + 12, &sim->now, 8);
	memcpy(pkt + 20, &id, 4);
	return wb_bond_send_ip(n->bond, sim->now, pkt, len) == 0;
}

static bool active(const struct sim *sim, const struct app *a)
{
	return sim->now >= T0 + a->conf->start_ns && (!a->conf->stop_ns || sim->now < T0 + a->conf->stop_ns);
}

static void run_rr(struct sim *sim, struct app *a)
{
	enum sim_dir req_dir = a->conf->dir == SIM_DOWN ? SIM_UP : SIM_DOWN;
	uint32_t mtu = sender_of(sim, a->conf->dir)->bond->tuning.mtu;

	/* The responder sends what it owes as room appears. */
	while (a->rr_to_send) {
		uint32_t n = a->rr_to_send < mtu ? (uint32_t)a->rr_to_send : mtu;

		if (!app_send(sim, a, a->conf->dir, 'D', n, a->rr_id))
			break;
		a->rr_to_send -= n;
	}
	if (!a->rr_waiting && active(sim, a) && sim->now >= a->rr_next_ns &&
	    app_send(sim, a, req_dir, 'R', a->conf->request_size, a->rr_id + 1)) {
		a->rr_id++;
		a->rr_waiting = true;
		a->rr_got = 0;
		a->rr_sent_ns = sim->now;
	}
}

/* The inner TCP's packets enter the bond as the TUN device's would; one the bond refuses is lost. */
static bool tcp_xmit(void *ctx, enum tcp_end from, const uint8_t *ip, size_t len)
{
	struct sim *sim = ctx;
	struct sim_node *n = from == TCP_CLIENT ? &sim->client : &sim->server;

	return wb_bond_send_ip(n->bond, sim->now, ip, len) == 0;
}

/*
 * A plain TCP's packets (app tcp ... path LINK) go straight onto the link,
 * beside the tunnel's datagrams: traffic of other hosts on the uplink, or
 * the uplink alone as the benchmarks measure it. Its queue's drops are the
 * network's: the host sent the packet.
 */
static bool path_xmit(void *ctx, enum tcp_end from, const uint8_t *ip, size_t len)
{
	struct app *a = ctx;
	struct sim *sim = a->sim;
	enum sim_dir dir = from == TCP_CLIENT ? SIM_UP : SIM_DOWN;
	struct sim_link *l = &sim->links[a->conf->path];
	struct sim_packet *p;

	if (l->dead)
		return true;
	p = malloc(sizeof(*p) + len);
	if (!p)
		abort();
	*p = (struct sim_packet){ .len = (uint32_t)len, .link = a->conf->path, .dir = dir, .app = (int)(a - sim->apps) };
	memcpy(p->data, ip, len);
	if (linkdir_enqueue(&l->dir[dir], sim->now, (uint32_t)len, p) != LINKDIR_QUEUED)
		free(p);
	return true;
}

/* Whether a is a plain TCP over one link, beside the tunnel. */
static bool on_path(const struct app *a)
{
	return a->conf->kind == APP_TCP && a->conf->path >= 0;
}

/* The MTU of a plain path: Ethernet's. */
#define PATH_MTU 1500

/* The connection opens once the app starts and the tunnel is up: a real one could not before. */
static bool tcp_open(struct sim *sim, struct app *a)
{
	int i = (int)(a - sim->apps);
	struct tcp_params p = { .cc = a->conf->cc, .mtu = sim->client.bond->tuning.mtu,
				.measure_from = sim->measure_from, .client_port = (uint16_t)(TCP_PORT_BASE + i),
				.seed = sim->s->seed * 31 + (uint64_t)i, .xmit = tcp_xmit, .ctx = sim,
				.rmem_max = a->conf->rmem, .wmem_max = a->conf->wmem };

	if (a->tcp)
		return true;
	if (on_path(a)) {
		p.mtu = PATH_MTU;
		p.xmit = path_xmit;
		p.ctx = a;
	}
	if (!active(sim, a) || (!on_path(a) && (!sim->client.bond->current || !sim->server.bond->current)))
		return false;
	a->tcp = tcp_conn_new(&p, sim->now);
	if (!a->tcp)
		abort();
	return true;
}

static enum tcp_end tcp_data_sender(const struct app *a)
{
	return a->conf->dir == SIM_UP ? TCP_CLIENT : TCP_SERVER;
}

static enum tcp_end tcp_data_receiver(const struct app *a)
{
	return a->conf->dir == SIM_UP ? TCP_SERVER : TCP_CLIENT;
}

static bool is_tcp(const struct app *a)
{
	return a->conf->kind == APP_TCP || a->conf->kind == APP_TCPRR;
}

/* Bulk over TCP: the sender's buffer is kept full while the app is active. */
static void run_tcp(struct sim *sim, struct app *a)
{
	enum tcp_end from = tcp_data_sender(a);

	if (!tcp_open(sim, a))
		return;
	if (active(sim, a))
		tcp_write(a->tcp, from, tcp_writable(a->tcp, from));
	tcp_run(a->tcp, sim->now);
	a->delivered_bytes = tcp_received(a->tcp, tcp_data_receiver(a));
}

/* Requests over one persistent connection: the server answers each once it has all of it. */
static void run_tcprr(struct sim *sim, struct app *a)
{
	const struct sim_app_conf *c = a->conf;

	if (!tcp_open(sim, a))
		return;
	while (tcp_received(a->tcp, TCP_SERVER) >= (a->tcp_served + 1) * c->request_size) {
		tcp_write(a->tcp, TCP_SERVER, c->size);
		a->tcp_served++;
	}
	if (a->rr_waiting && tcp_received(a->tcp, TCP_CLIENT) >= (uint64_t)a->rr_id * c->size) {
		samples_add(&a->latency, sim->now - a->rr_sent_ns);
		a->rr_waiting = false;
		a->rr_next_ns = sim->now + c->interval_ns;
	}
	if (!a->rr_waiting && active(sim, a) && sim->now >= a->rr_next_ns) {
		tcp_write(a->tcp, TCP_CLIENT, c->request_size);
		a->rr_id++;
		a->rr_waiting = true;
		a->rr_sent_ns = sim->now;
	}
	tcp_run(a->tcp, sim->now);
	a->delivered_bytes = tcp_received(a->tcp, TCP_CLIENT);
}

static void run_apps(struct sim *sim)
{
	for (int i = 0; i < sim->s->n_apps; i++) {
		struct app *a = &sim->apps[i];

		switch (a->conf->kind) {
		case APP_BULK:
			while (active(sim, a) && app_send(sim, a, a->conf->dir, 'D', 100000, 0))
				;
			break;
		case APP_RR:
			run_rr(sim, a);
			break;
		case APP_CBR:
			while (active(sim, a) && sim->now >= a->cbr_next_ns) {
				a->cbr_sent++;
				app_send(sim, a, a->conf->dir, 'D', a->conf->size, 0);
				a->cbr_next_ns = (a->cbr_next_ns ? a->cbr_next_ns : sim->now) + a->conf->interval_ns;
			}
			break;
		case APP_TCP:
			run_tcp(sim, a);
			break;
		case APP_TCPRR:
			run_tcprr(sim, a);
			break;
		}
	}
}

static uint64_t apps_deadline(const struct sim *sim)
{
	uint64_t due = UINT64_MAX;

	for (int i = 0; i < sim->s->n_apps; i++) {
		const struct app *a = &sim->apps[i];
		uint64_t t = UINT64_MAX;

		if (sim->now < T0 + a->conf->start_ns)
			t = T0 + a->conf->start_ns;
		else if (a->conf->kind == APP_CBR && active(sim, a))
			t = a->cbr_next_ns; /* stopped, it sends no more: its next time never comes */
		else if (a->conf->kind == APP_RR && !a->rr_waiting && a->rr_next_ns > sim->now)
			t = a->rr_next_ns; /* past it, the request waits for the bond to take it: the bond's events wake it */
		if (a->tcp) { /* before it opens, the tunnel's own events wake it */
			uint64_t tt = tcp_next_deadline(a->tcp);

			if (a->conf->kind == APP_TCPRR && !a->rr_waiting && a->rr_next_ns > sim->now && a->rr_next_ns < tt)
				tt = a->rr_next_ns;
			t = tt < t ? tt : t;
		}
		if (t < due)
			due = t;
	}
	return due;
}

/* ---- the loop ------------------------------------------------------------------------ */

static void deliver_links(struct sim *sim)
{
	for (int k = 0; k < sim->s->n_links; k++) {
		for (int d = 0; d < 2; d++) {
			struct sim_packet *p;

			while ((p = linkdir_pop_due(&sim->links[k].dir[d], sim->now))) {
				if (p->app >= 0)
					tcp_input(sim->apps[p->app].tcp, d == SIM_UP ? TCP_SERVER : TCP_CLIENT, sim->now,
						  p->data, p->len);
				else if (d == SIM_UP)
					wb_device_receive(sim->server.dev, sim->now, 0, &sim->links[k].client_ep, p->data,
							  p->len);
				else
					wb_device_receive(sim->client.dev, sim->now, (unsigned)k, &sim->server_ep, p->data,
							  p->len);
				free(p);
			}
		}
	}
}

static void run_events(struct sim *sim)
{
	while (sim->next_event < sim->s->n_events && T0 + sim->s->events[sim->next_event].at <= sim->now) {
		const struct sim_event *e = &sim->s->events[sim->next_event++];
		struct sim_link *l = &sim->links[e->link];

		if (e->mtu) {
			l->dir[0].params.mtu = l->dir[1].params.mtu = e->mtu;
			continue;
		}
		l->dead = !e->up;
		/* A dead link loses what it carried. */
		for (int d = 0; !e->up && d < 2; d++) {
			void *p;

			while ((p = linkdir_drain(&l->dir[d])))
				free(p);
		}
	}
}

static void check_invariants(struct sim *sim)
{
	const struct wb_bond *bonds[2] = { sim->client.bond, sim->server.bond };

	for (int i = 0; i < 2; i++) {
		const struct wb_reorder *r = &bonds[i]->rcv;

		if (r->held_bytes > sim->max_held)
			sim->max_held = r->held_bytes;
		if (r->held_bytes > r->capacity && !sim->broken) {
			sim->broken = true;
			snprintf(sim->why, sizeof(sim->why), "reorder buffer held %" PRIu64 " above its bound %" PRIu64,
				 r->held_bytes, r->capacity);
		}
	}
}

/* Under the interval's line, each sender's uplinks: window, in flight, pacing, RTT. */
static void sender_state(const struct sim *sim)
{
	for (int d = 0; d < 2; d++) {
		const struct sim_node *node = d == SIM_DOWN ? &sim->server : &sim->client;
		bool sends = false;

		for (int i = 0; i < sim->s->n_apps; i++)
			sends |= sim->apps[i].conf->dir == (enum sim_dir)d;
		if (!sends || !node->bond)
			continue;
		fprintf(stderr, "         %s sender:", d ? "down" : "up");
		for (int k = 0; k < sim->s->n_links; k++) {
			const struct wb_uplink *u = wb_bond_uplink(node->bond, (unsigned)k);

			if (!u || !u->rec)
				continue;
			fprintf(stderr, " | %s cwnd %.0fK flight %.0fK pace %.1f srtt %.1f", u->name, (double)u->cc.cwnd / 1024,
				(double)u->rec->bytes_in_flight / 1024, (double)u->cc.pacing_rate * 8 / 1e6,
				(double)u->rtt.srtt_ns / 1e6);
			if (u->cc.ops == &wb_cc_bbr)
				fprintf(stderr, " bw %.1f%s", (double)u->cc.bbr.btl_bw * 8 / 1e6,
					u->cc.bbr.filled_pipe ? "" : " startup");
		}
		fputc('\n', stderr);
	}
	for (int i = 0; i < sim->s->n_apps; i++) {
		const struct app *a = &sim->apps[i];
		struct tcp_stats st;

		if (!a->tcp)
			continue;
		tcp_get_stats(a->tcp, tcp_data_sender(a), &st);
		fprintf(stderr, "         inner %s %s: cwnd %u ssthresh %u srtt %.1f resent %" PRIu64 " timeouts %" PRIu64
				" peer rwnd %.0fK\n",
			a->conf->dir ? "down" : "up", tcp_cc_name(a->conf->cc), st.cwnd, st.ssthresh, st.srtt_ms,
			st.retransmits, st.rto, (double)st.peer_rwnd / 1024);
	}
}

/* The bytes the inner TCP flows of a direction (through the bond) delivered so far. */
static uint64_t tcp_delivered(const struct sim *sim, enum sim_dir dir)
{
	uint64_t bytes = 0;

	for (int i = 0; i < sim->s->n_apps; i++) {
		const struct app *a = &sim->apps[i];

		if (a->tcp && is_tcp(a) && !on_path(a) && a->conf->dir == dir)
			bytes += tcp_received(a->tcp, tcp_data_receiver(a));
	}
	return bytes;
}

/* At a window's bounds, what the flows delivered so far. */
static void note_windows(struct sim *sim)
{
	for (int w = 0; w < sim->s->n_windows; w++)
		for (int edge = 0; edge < 2; edge++) {
			uint64_t at = T0 + (edge ? sim->s->windows[w].to_ns : sim->s->windows[w].from_ns);

			if (sim->now >= at && !sim->window_seen[w][edge]) {
				sim->window_seen[w][edge] = true;
				for (int d = 0; d < 2; d++)
					sim->window_bytes[w][d][edge] = tcp_delivered(sim, (enum sim_dir)d);
			}
		}
}

/* A line per interval on stderr: goodput each way, and how the links shared it; each sender's uplinks. */
static void interval_report(struct sim *sim)
{
	uint64_t every = sim->s->report_every_ns;

	if (!every || sim->now < sim->next_report_ns)
		return;
	if (sim->next_report_ns) {
		fprintf(stderr, "%7.3f", (double)(sim->now - T0) / 1e9);
		for (int d = 0; d < 2; d++) {
			uint64_t bytes = 0;

			for (int i = 0; i < sim->s->n_apps; i++)
				if (sim->apps[i].conf->dir == (enum sim_dir)d && !on_path(&sim->apps[i]))
					bytes += sim->apps[i].delivered_bytes;
			fprintf(stderr, "  %s %7.2f Mbit/s [", d ? "down" : "up", (double)(bytes - sim->reported_bytes[d]) * 8e9 / (double)every / 1e6);
			sim->reported_bytes[d] = bytes;
			for (int k = 0; k < sim->s->n_links; k++) {
				uint64_t lb = sim->links[k].dir[d].stats.out_bytes;

				fprintf(stderr, " %s %.1f", sim->s->links[k].name,
					(double)(lb - sim->reported_link_bytes[k][d]) * 8e9 / (double)every / 1e6);
				sim->reported_link_bytes[k][d] = lb;
			}
			fprintf(stderr, " ]");
		}
		fputc('\n', stderr);
		sender_state(sim);
	}
	sim->next_report_ns = (sim->next_report_ns ? sim->next_report_ns : sim->now) + every;
}

static uint64_t next_time(const struct sim *sim)
{
	uint64_t due = wb_device_next_deadline(sim->client.dev);
	uint64_t t = wb_device_next_deadline(sim->server.dev);

	if (t < due)
		due = t;
	for (int k = 0; k < sim->s->n_links; k++)
		for (int d = 0; d < 2; d++)
			if ((t = linkdir_next_due(&sim->links[k].dir[d])) < due)
				due = t;
	if (sim->next_event < sim->s->n_events && (t = T0 + sim->s->events[sim->next_event].at) < due)
		due = t;
	if ((t = apps_deadline(sim)) < due)
		due = t;
	if (sim->s->report_every_ns && sim->next_report_ns < due)
		due = sim->next_report_ns;
	for (int w = 0; w < sim->s->n_windows; w++) {
		if (!sim->window_seen[w][0] && (t = T0 + sim->s->windows[w].from_ns) < due)
			due = t;
		if (!sim->window_seen[w][1] && (t = T0 + sim->s->windows[w].to_ns) < due)
			due = t;
	}
	return due;
}

static int loop(struct sim *sim)
{
	uint64_t spins = 0;

	while (sim->now < sim->end && !sim->broken) {
		uint64_t next;

		deliver_links(sim);
		run_events(sim);
		if (wb_device_next_deadline(sim->client.dev) <= sim->now)
			wb_device_tick(sim->client.dev, sim->now);
		if (wb_device_next_deadline(sim->server.dev) <= sim->now)
			wb_device_tick(sim->server.dev, sim->now);
		run_apps(sim);
		check_invariants(sim);
		note_windows(sim);
		interval_report(sim);
		next = next_time(sim);
		if (next > sim->now) {
			sim->now = next < sim->end ? next : sim->end;
			spins = 0;
		} else if (++spins > 100000) {
			snprintf(sim->why, sizeof(sim->why), "stuck at %.6f s: a deadline that never passes",
				 (double)(sim->now - T0) / 1e9);
			return -1;
		}
	}
	return sim->broken ? -1 : 0;
}

/* ---- the report ------------------------------------------------------------------------ */

struct metric {
	char name[64];
	double value;
};

struct report {
	struct metric m[192];
	int n;
	FILE *out;
};

static void metric(struct report *r, const char *name, double v)
{
	if (r->n < (int)(sizeof(r->m) / sizeof(r->m[0]))) {
		snprintf(r->m[r->n].name, sizeof(r->m[0].name), "%s", name);
		r->m[r->n++].value = v;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double percentile_ms(struct samples *s, double p)
{
	if (!s->n)
		return 0;
	qsort(s->v, s->n, sizeof(uint64_t), cmp_u64);
	return (double)s->v[(size_t)(p * (double)(s->n - 1))] / 1e6;
}

/* Payload bytes per second the non-backup links carry: rate times the share an MTU-sized packet leaves for the payload. */
static double capacity_bps(const struct sim *sim, enum sim_dir dir)
{
	uint32_t mtu = sim->client.bond->tuning.mtu;
	double share = (double)mtu / (mtu + WB_FRAME_DATA_HEADER + 32 + SIM_OUTER_HEADER), sum = 0;

	for (int k = 0; k < sim->s->n_links; k++)
		if (!sim->s->links[k].backup)
			sum += (double)shaper_mean_rate(&sim->links[k].dir[dir].shaper);
	return sum * share;
}

/* What the sender's scheduler did: copies onto idle uplinks (over the bytes it sent), penalties, measure copies. */
static void report_scheduler(struct report *r, const struct wb_bond_counters *c, const struct wb_bond_counters *rx,
			     const char *dir)
{
	double ratio = c->tun_rx_bytes ? (double)c->opp_reinject_bytes / (double)c->tun_rx_bytes : 0;
	char name[64];

	fprintf(r->out, "      scheduler: reinjected %" PRIu64 " packets in %" PRIu64 " times, %.2f%% of the bytes;"
			" penalised %" PRIu64 "; redundant copies %" PRIu64 "; measure copies %" PRIu64
			"; duplicates received %" PRIu64 "\n",
		c->opp_reinject, c->opp_reinject_events, 100 * ratio, c->penalised, c->redundant_copies,
		c->measure_copies, rx->rx_duplicates);
	snprintf(name, sizeof(name), "reinject_ratio_%s", dir);
	metric(r, name, ratio);
	snprintf(name, sizeof(name), "penalised_%s", dir);
	metric(r, name, (double)c->penalised);
}

/* IP packets (first copies, resends, reinjections, measure copies) the node sent on link k: a backup must show none. */
static uint64_t ip_packets_on(const struct sim_node *node, int k)
{
	const struct wb_uplink *u = wb_bond_uplink(node->bond, (unsigned)k);

	return u ? u->c.tx_ip_packets + u->c.retransmits + u->c.reinjected + u->c.measure_copies : 0;
}

static void report_direction(struct sim *sim, struct report *r, enum sim_dir dir)
{
	static const char *const names[2] = { "up", "down" };
	uint64_t bytes = 0, delivered = 0, in_order = 0, dups = 0, gaps = 0, link_bytes = 0, ip_packets = 0;
	uint64_t seconds_ns = sim->end - sim->measure_from;
	double goodput, cap = capacity_bps(sim, dir);
	const struct wb_bond_counters *c = wb_bond_counters(sender_of(sim, dir)->bond);
	char name[64];
	bool any = false;

	for (int i = 0; i < sim->s->n_apps; i++) {
		const struct app *a = &sim->apps[i];

		if (a->conf->dir != dir || on_path(a))
			continue;
		any = true;
		if (is_tcp(a)) { /* its data packets, checked by the model's own numbers */
			struct tcp_stats st = { 0 };

			if (a->tcp)
				tcp_get_stats(a->tcp, tcp_data_receiver(a), &st);
			bytes += st.measured_bytes;
			delivered += st.wire_in_order + st.wire_late;
			in_order += st.wire_in_order;
			dups += st.wire_late;
			gaps += st.wire_gaps;
			continue;
		}
		bytes += a->bytes_measured;
		delivered += a->delivered;
		in_order += a->in_order;
		dups += a->dups;
		gaps += a->gaps;
	}
	if (!any)
		return;
	goodput = (double)bytes * 8e9 / (double)seconds_ns;
	fprintf(r->out, "%-5s goodput %8.3f Mbit/s = %.3f of %.3f (payload capacity); delivered %" PRIu64
			", in order %" PRIu64 ", duplicates %" PRIu64 ", gaps %" PRIu64 "; resent %.2f%%\n",
		names[dir], goodput / 1e6, cap > 0 ? goodput / cap : 0, cap / 1e6, delivered, in_order, dups, gaps,
		delivered ? 100.0 * (double)c->retransmits / (double)delivered : 0);
	snprintf(name, sizeof(name), "goodput_%s_mbit", names[dir]);
	metric(r, name, goodput / 1e6);
	snprintf(name, sizeof(name), "goodput_%s_ratio", names[dir]);
	metric(r, name, cap > 0 ? goodput / cap : 0);
	snprintf(name, sizeof(name), "delivered_%s", names[dir]);
	metric(r, name, (double)delivered);
	snprintf(name, sizeof(name), "in_order_%s", names[dir]);
	metric(r, name, delivered && in_order == delivered && !gaps && !dups);
	snprintf(name, sizeof(name), "gaps_%s", names[dir]);
	metric(r, name, (double)gaps);
	snprintf(name, sizeof(name), "dups_%s", names[dir]);
	metric(r, name, (double)dups);
	snprintf(name, sizeof(name), "retransmit_ratio_%s", names[dir]);
	metric(r, name, delivered ? (double)c->retransmits / (double)delivered : 0);
	report_scheduler(r, c, wb_bond_counters(receiver_of(sim, dir)->bond), names[dir]);
	for (int k = 0; k < sim->s->n_links; k++) {
		link_bytes += sim->links[k].dir[dir].stats.out_bytes;
		ip_packets += ip_packets_on(sender_of(sim, dir), k);
	}
	for (int k = 0; k < sim->s->n_links; k++) {
		double share = link_bytes ? (double)sim->links[k].dir[dir].stats.out_bytes / (double)link_bytes : 0;
		uint64_t ip = ip_packets_on(sender_of(sim, dir), k);

		snprintf(name, sizeof(name), "share_%s_%s", sim->s->links[k].name, names[dir]);
		metric(r, name, share);
		snprintf(name, sizeof(name), "ip_packets_%s_%s", sim->s->links[k].name, names[dir]);
		metric(r, name, (double)ip);
		snprintf(name, sizeof(name), "ip_share_%s_%s", sim->s->links[k].name, names[dir]);
		metric(r, name, ip_packets ? (double)ip / (double)ip_packets : 0);
		fprintf(r->out, "      link %-10s share %5.1f%%, %" PRIu64 " IP packets\n", sim->s->links[k].name,
			100 * share, ip);
	}
}

/* Each end's path MTU of the link: the datagram size its search found, and how often a search found less than it had. */
static void report_pmtu(struct report *r, const char *link, const struct wb_uplink *cu, const struct wb_uplink *su)
{
	char name[64];

	fprintf(r->out, "      path mtu: datagrams of %u bytes up, %u down; lowered %" PRIu64 " up, %" PRIu64
			" down\n",
		cu->pmtu.size, su ? su->pmtu.size : 0, cu->c.pmtu_lowered, su ? su->c.pmtu_lowered : 0);
	snprintf(name, sizeof(name), "pmtu_%s_up", link);
	metric(r, name, cu->pmtu.size);
	snprintf(name, sizeof(name), "pmtu_%s_down", link);
	metric(r, name, su ? su->pmtu.size : 0);
	snprintf(name, sizeof(name), "pmtu_lowered_%s", link);
	metric(r, name, (double)(cu->c.pmtu_lowered + (su ? su->c.pmtu_lowered : 0)));
}

static void report_uplinks(struct sim *sim, struct report *r)
{
	const struct wb_bond_counters *c = wb_bond_counters(sim->client.bond);
	const struct wb_bond_counters *s = wb_bond_counters(sim->server.bond);

	metric(r, "too_big_drops", (double)(c->too_big_drops + s->too_big_drops));
	for (int k = 0; k < sim->s->n_links; k++) {
		const struct wb_uplink *cu = wb_bond_uplink(sim->client.bond, (unsigned)k);
		const struct wb_uplink *su = wb_bond_uplink(sim->server.bond, (unsigned)k);

		fprintf(r->out, "uplink %-10s rtt %.1f ms (min %.1f); lost up %" PRIu64 " down %" PRIu64
				" (spurious %" PRIu64 ", %" PRIu64 "), resent up %" PRIu64 " down %" PRIu64
				", timeouts up %" PRIu64 " down %" PRIu64 "\n",
			sim->s->links[k].name, cu->rtt.srtt_ns / 1e6, cu->rtt.min_ns / 1e6, cu->rec->lost_packets,
			su ? su->rec->lost_packets : 0, cu->rec->spurious, su ? su->rec->spurious : 0, cu->c.retransmits,
			su ? su->c.retransmits : 0, cu->rec->timeouts, su ? su->rec->timeouts : 0);
		report_pmtu(r, sim->s->links[k].name, cu, su);
		if (sim->s->verbose && su)
			fprintf(r->out, "       %s: client %s cwnd %" PRIu64 " in flight %" PRIu64 " pacing %.1f Mbit/s pto %u;"
					" server %s cwnd %" PRIu64 " in flight %" PRIu64 " pacing %.1f Mbit/s pto %u\n",
				sim->s->links[k].name, wb_uplink_state_name(cu->state), cu->cc.cwnd,
				cu->rec->bytes_in_flight, cu->cc.pacing_rate * 8 / 1e6, cu->rec->pto_count,
				wb_uplink_state_name(su->state), su->cc.cwnd, su->rec->bytes_in_flight,
				su->cc.pacing_rate * 8 / 1e6, su->rec->pto_count);
	}
}

/* Verbose: each bond's sending and receiving state at the end, to see what a stall waits for. */
static void report_state(const struct sim_node *n, FILE *out)
{
	const struct wb_bond *b = n->bond;
	const struct wb_sndbuf_entry *e = wb_sndbuf_get(&b->snd, b->snd.una);

	fprintf(out, "      %s: send una %" PRIu64 " nxt %" PRIu64 " bytes %" PRIu64 " peer window %" PRIu64
		     " resends queued %" PRIu32 " reinjecting %d; snd_una holders %#x lost on %#x flags %#x sends %u;"
		     " receive nxt %" PRIu64 " held %" PRIu32 " (%" PRIu64 " B)\n",
		n->server ? "server" : "client", b->snd.una, b->snd.nxt, b->snd.bytes, b->peer_rwnd, b->snd.retx_n,
		b->reinj.active, e ? e->holders : 0, e ? e->lost_on : 0, e ? e->flags : 0, e ? e->sends : 0, b->rcv.nxt,
		b->rcv.held, b->rcv.held_bytes);
}

static void report_bond(struct sim *sim, struct report *r)
{
	const struct wb_bond_counters *c = wb_bond_counters(sim->client.bond);
	const struct wb_bond_counters *s = wb_bond_counters(sim->server.bond);

	fprintf(r->out, "bond  reorder max %.1f KB of %.1f KB; skips %" PRIu64 "; beyond the window %" PRIu64
			"; bond timeouts %" PRIu64 "; aqm drops %" PRIu64 "; memory client %.1f KB server %.1f KB\n",
		sim->max_held / 1024.0, sim->client.bond->rcv.capacity / 1024.0, c->reorder_skips + s->reorder_skips,
		c->rx_beyond_window + s->rx_beyond_window, c->bond_timeouts + s->bond_timeouts, c->aqm_drops + s->aqm_drops,
		wb_bond_memory(sim->client.bond) / 1024.0, wb_bond_memory(sim->server.bond) / 1024.0);
	if (sim->s->verbose) {
		report_state(&sim->client, r->out);
		report_state(&sim->server, r->out);
	}
	metric(r, "skips", (double)(c->reorder_skips + s->reorder_skips));
	metric(r, "bond_timeouts", (double)(c->bond_timeouts + s->bond_timeouts));
	metric(r, "aqm_drops", (double)(c->aqm_drops + s->aqm_drops));
	metric(r, "reorder_max_kb", sim->max_held / 1024.0);
}

/* Sums over the inner TCP flows of one direction. */
struct tcp_sum {
	uint64_t bytes, retrans, spurious, rto, ofo;
	double srtt;
	int flows;
	bool late;
};

/* One flow: its sender's and receiver's counters, and what the bond did to its packets each way. */
static void report_tcp_flow(struct report *r, const struct app *a, const char *dir, struct tcp_sum *sum)
{
	struct tcp_stats snd, rcv;

	tcp_get_stats(a->tcp, tcp_data_sender(a), &snd);
	tcp_get_stats(a->tcp, tcp_data_receiver(a), &rcv);
	fprintf(r->out, "%-5s %s %s: delivered %.1f MB; resent %" PRIu64 " (loss probes %" PRIu64 ", spurious %" PRIu64
			"), timeouts %" PRIu64 ", recoveries %" PRIu64 " (undone %" PRIu64 "), out of order %" PRIu64
			", srtt %.1f ms (min %.1f), cwnd %u, rwnd %.0f KB, refused by the bond %" PRIu64 "\n",
		a->conf->kind == APP_TCP ? "tcp" : "tcprr", dir, tcp_cc_name(a->conf->cc), (double)rcv.delivered_bytes / 1e6,
		snd.retransmits, snd.tlp, snd.spurious, snd.rto, snd.recoveries, snd.undo, rcv.ofo_segments,
		snd.srtt_mean_ms, snd.min_rtt_ms, snd.cwnd, (double)rcv.rwnd / 1024, snd.local_drops);
	fprintf(r->out, "      through the bond: data %" PRIu64 " in order, %" PRIu64 " late or twice, %" PRIu64
			" never; acks %" PRIu64 " in order, %" PRIu64 " late or twice, %" PRIu64 " never\n",
		rcv.wire_in_order, rcv.wire_late, rcv.wire_gaps, snd.wire_in_order, snd.wire_late, snd.wire_gaps);
	sum->bytes += rcv.measured_bytes;
	sum->retrans += snd.retransmits;
	sum->spurious += snd.spurious;
	sum->rto += snd.rto;
	sum->ofo += rcv.ofo_segments;
	sum->srtt += snd.srtt_mean_ms;
	sum->flows++;
	sum->late |= rcv.wire_late || snd.wire_late || !rcv.wire_in_order;
}

/* One TCP flow's own goodput, app N_goodput_mbit (N counts the app lines from 1): a scenario with several measures each. */
static void app_goodput(struct sim *sim, struct report *r, int i)
{
	const struct app *a = &sim->apps[i];
	struct tcp_stats st = { 0 };
	char name[64];

	if (a->tcp)
		tcp_get_stats(a->tcp, tcp_data_receiver(a), &st);
	snprintf(name, sizeof(name), "app%d_goodput_mbit", i + 1);
	metric(r, name, (double)st.measured_bytes * 8e3 / (double)(sim->end - sim->measure_from));
}

/* The plain TCP flows over one link (app tcp ... path): what the link carries alone, or other hosts' traffic. */
static void report_path_flows(struct sim *sim, struct report *r, enum sim_dir dir)
{
	static const char *const names[2] = { "up", "down" };
	uint64_t bytes = 0;
	bool any = false;
	char name[64];

	for (int i = 0; i < sim->s->n_apps; i++) {
		const struct app *a = &sim->apps[i];
		struct tcp_stats snd, rcv;

		if (!on_path(a) || a->conf->dir != dir || !a->tcp)
			continue;
		any = true;
		tcp_get_stats(a->tcp, tcp_data_sender(a), &snd);
		tcp_get_stats(a->tcp, tcp_data_receiver(a), &rcv);
		fprintf(r->out, "path  %s %s over %s alone: delivered %.1f MB; resent %" PRIu64 ", timeouts %" PRIu64
				", min rtt %.1f ms\n",
			names[dir], tcp_cc_name(a->conf->cc), sim->s->links[a->conf->path].name,
			(double)rcv.delivered_bytes / 1e6, snd.retransmits, snd.rto, snd.min_rtt_ms);
		bytes += rcv.measured_bytes;
		app_goodput(sim, r, i);
	}
	if (!any)
		return;
	snprintf(name, sizeof(name), "path_goodput_%s_mbit", names[dir]);
	metric(r, name, (double)bytes * 8e3 / (double)(sim->end - sim->measure_from));
}

static void report_tcp(struct sim *sim, struct report *r, enum sim_dir dir)
{
	static const char *const names[2] = { "up", "down" };
	static const char *const keys[] = { "goodput", "retrans", "spurious", "rto", "ofo", "srtt_ms", "in_order" };
	struct tcp_sum sum = { 0 };
	double v[7];
	char name[64];
	bool any = false;

	for (int i = 0; i < sim->s->n_apps; i++) {
		const struct app *a = &sim->apps[i];

		if (!is_tcp(a) || on_path(a) || a->conf->dir != dir)
			continue;
		any = true;
		if (a->tcp)
			report_tcp_flow(r, a, names[dir], &sum);
		app_goodput(sim, r, i);
	}
	report_path_flows(sim, r, dir);
	if (!any)
		return;
	v[0] = (double)sum.bytes * 8e3 / (double)(sim->end - sim->measure_from);
	v[1] = (double)sum.retrans;
	v[2] = (double)sum.spurious;
	v[3] = (double)sum.rto;
	v[4] = (double)sum.ofo;
	v[5] = sum.flows ? sum.srtt / sum.flows : 0;
	v[6] = sum.flows && !sum.late;
	for (int k = 0; k < 7; k++) {
		snprintf(name, sizeof(name), "tcp_%s_%s%s", keys[k], names[dir], k ? "" : "_mbit");
		metric(r, name, v[k]);
	}
}

static void report_windows(struct sim *sim, struct report *r)
{
	static const char *const names[2] = { "up", "down" };

	for (int w = 0; w < sim->s->n_windows; w++) {
		const struct sim_window *win = &sim->s->windows[w];

		for (int d = 0; d < 2; d++) {
			char name[64];
			double mbit = (double)(sim->window_bytes[w][d][1] - sim->window_bytes[w][d][0]) * 8e3 /
				      (double)(win->to_ns - win->from_ns);

			snprintf(name, sizeof(name), "window_%.31s_%s_mbit", win->name, names[d]);
			metric(r, name, sim->window_seen[w][1] ? mbit : 0);
		}
	}
}

static void report_apps(struct sim *sim, struct report *r)
{
	for (int i = 0; i < sim->s->n_apps; i++) {
		struct app *a = &sim->apps[i];
		double p50 = percentile_ms(&a->latency, 0.5), p95 = percentile_ms(&a->latency, 0.95);

		if (a->conf->kind == APP_RR || a->conf->kind == APP_TCPRR) {
			const char *k = a->conf->kind == APP_RR ? "rr" : "tcprr";
			char name[64];

			fprintf(r->out, "%-5s requests %zu, per request p50 %.1f ms, p95 %.1f ms\n", k, a->latency.n, p50, p95);
			snprintf(name, sizeof(name), "%s_requests", k);
			metric(r, name, (double)a->latency.n);
			snprintf(name, sizeof(name), "%s_p50_ms", k);
			metric(r, name, p50);
			snprintf(name, sizeof(name), "%s_p95_ms", k);
			metric(r, name, p95);
		} else if (a->conf->kind == APP_CBR) {
			double loss = a->cbr_sent ? 1 - (double)a->delivered / (double)a->cbr_sent : 0;

			double p99 = percentile_ms(&a->latency, 0.99), jitter = a->jitter_ns / 1e6;

			fprintf(r->out,
				"cbr   sent %" PRIu64 ", lost %.2f%%, latency p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, jitter %.2f ms\n",
				a->cbr_sent, 100 * loss, p50, p95, p99, jitter);
			metric(r, "cbr_loss", loss);
			metric(r, "cbr_p50_ms", p50);
			metric(r, "cbr_p95_ms", p95);
			metric(r, "cbr_p99_ms", p99);
			metric(r, "cbr_jitter_ms", jitter);
		}
	}
}

static int check_expectations(const struct sim_scenario *s, struct report *r)
{
	int failed = 0;

	for (int i = 0; i < s->n_expect; i++) {
		const struct sim_expect *e = &s->expect[i];
		static const char *const ops[] = { ">=", "<=", "==" };
		const struct metric *m = NULL;
		bool ok;

		for (int k = 0; k < r->n && !m; k++)
			if (!strcmp(r->m[k].name, e->metric))
				m = &r->m[k];
		if (!m) {
			fprintf(r->out, "FAIL  %s:%d: no metric '%s' in this scenario\n", s->path, e->line, e->metric);
			failed++;
			continue;
		}
		ok = e->op == OP_GE ? m->value >= e->value : e->op == OP_LE ? m->value <= e->value : m->value == e->value;
		fprintf(r->out, "%-5s %s %s %g (is %.4f)\n", ok ? "ok" : "FAIL", e->metric, ops[e->op], e->value, m->value);
		failed += !ok;
	}
	return failed;
}

/* At the end: each uplink's count of send-buffer entries it holds matches the entries (reinjection reads it). */
static int holders_counted(struct sim *sim, const struct sim_node *n)
{
	const struct wb_bond *b = n->bond;

	for (int i = 0; b && i < WB_MAX_UPLINKS; i++) {
		uint32_t held = 0;

		for (uint64_t d = b->snd.una; d < b->snd.nxt; d++)
			held += !!(wb_sndbuf_get(&b->snd, d)->holders & (1u << i));
		if (held != b->uplinks[i].dsns_held) {
			snprintf(sim->why, sizeof(sim->why), "%s uplink %d holds %u send-buffer entries but counts %u",
				 n->server ? "server" : "client", i, held, b->uplinks[i].dsns_held);
			return -1;
		}
	}
	return 0;
}

int sim_run(const struct sim_scenario *s, FILE *out)
{
	static struct sim sim; /* large; one run at a time */
	struct report r = { .out = out };
	int rc = start(&sim, s);

	if (!rc)
		rc = loop(&sim);
	if (!rc)
		rc = holders_counted(&sim, &sim.client) || holders_counted(&sim, &sim.server) ? -1 : 0;
	fprintf(out, "scenario %s, seed %" PRIu64 ", %.3f s simulated\n", s->path, s->seed, (double)s->duration_ns / 1e9);
	if (rc) {
		fprintf(out, "FAIL  %s\n", sim.why[0] ? sim.why : "could not run");
	} else {
		report_direction(&sim, &r, SIM_DOWN);
		report_direction(&sim, &r, SIM_UP);
		report_tcp(&sim, &r, SIM_DOWN);
		report_tcp(&sim, &r, SIM_UP);
		report_uplinks(&sim, &r);
		report_bond(&sim, &r);
		report_apps(&sim, &r);
		report_windows(&sim, &r);
		rc = check_expectations(s, &r) ? 1 : 0;
		for (int i = 0; s->print_metrics && i < r.n; i++)
			fprintf(out, "metric %s %.6f\n", r.m[i].name, r.m[i].value);
	}
	stop(&sim);
	return rc;
}
