// SPDX-License-Identifier: MIT
/*
 * The inner TCP model (tcp.h), after Linux's TCP as of 5.x and 6.x kernels:
 * where Linux has a mechanism that changes how fast a flow goes over a bond
 * (RACK, PRR, tail loss probes, undo, delayed and compressed acks, receive
 * window autotuning), the model has it too, in Linux's terms, so a figure
 * here can be compared with one from the namespace bench.
 *
 * Sequence numbers are 64 bits inside, 32 on the wire. The sender keeps a
 * scoreboard of its segments in a ring, by serial number; segments are never
 * split or merged, so every SACK block ends on segment boundaries. Lengths
 * and windows are in bytes, cwnd and its kin in segments, as in Linux.
 *
 * Acks an input owes are queued and go out at the next tcp_run: the input
 * runs inside the bond's delivery, which must not be re-entered.
 *
 * Not modelled: the handshake (the flow starts established, with an
 * initial window of 10 and no RTT sample), F-RTO, ECN, BBR's long-term
 * bandwidth (policer) mode, SACK reneging, Nagle, TSO bursts, the receive
 * buffer's overhead (the window is the buffer), and window shrinking.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"
#include "tcp.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
#define NIL UINT64_MAX
#define ISN 1                 /* both directions' first sequence number */
#define WSCALE 10             /* window scale: up to 64 MB */
#define INIT_CWND 10
#define INF_SSTHRESH 0x7fffffffu
#define RTO_MIN (200 * MS)
#define RTO_MAX (120 * SEC)
#define RTO_INIT SEC
#define TIMEOUT_MIN (2 * MS)  /* two jiffies: Linux adds them to its short timers */
#define DELACK (40 * MS)
#define MAX_QUICKACKS 16
#define COMP_SACK_NR 44       /* tcp_comp_sack_nr */
#define COMP_SACK_DELAY MS    /* tcp_comp_sack_delay_ns */
#define DUPTHRESH 3
#define MAX_REORDERING 300
#define MAX_SACKS 3           /* blocks that fit beside the timestamps */
#define ACK_MAX (TCP_HEADERS + 4 + 8 * MAX_SACKS)

/* The scoreboard's flags, as Linux's TCPCB_* */
#define SEG_SACKED 0x01
#define SEG_LOST 0x02
#define SEG_RETRANS 0x04      /* a retransmission of it is in flight */
#define SEG_EVER_RETRANS 0x08
#define SEG_LISTED 0x10       /* on the time-sorted list RACK walks */

enum ca_state { CA_OPEN, CA_DISORDER, CA_RECOVERY, CA_LOSS };
enum timer_kind { TIMER_NONE, TIMER_RTO, TIMER_REO, TIMER_TLP };
enum bbr_mode { BBR_STARTUP, BBR_DRAIN, BBR_PROBE_BW, BBR_PROBE_RTT };

struct seg {
	uint64_t seq, xmit_ns;
	/* The delivery-rate state when it was sent (Linux's tcp_rate.c); tx_delivered_ns 0 once used. */
	uint64_t tx_delivered, tx_delivered_ns, tx_first_ns;
	uint64_t prev, next; /* the time-sorted list, by serial */
	uint32_t len, flags;
	bool tx_app_limited;
};

struct range {
	uint64_t start, end, stamp;
};

struct rate_sample {
	uint64_t prior_delivered, prior_ns, send_interval;
	int64_t delivered, interval_ns, rtt_ns; /* -1: none */
	uint32_t acked_sacked, losses, prior_in_flight;
	bool has_prior, is_app_limited;
};

/* What one ack's processing gathers for the RTT and the reordering estimates. */
struct ack_acc {
	uint64_t seq_xmit, sack_xmit, newest_xmit; /* send times of never-resent segments: first acked, first sacked, newest */
	uint64_t reord_low;                        /* the lowest never-resent segment delivered below the highest SACK */
};

struct cubic {
	uint32_t cnt, last_max_cwnd, last_cwnd, origin, tcp_cwnd, ack_cnt, sample_cnt;
	uint64_t last_time, epoch_start, delay_min, round_start, last_ack, end_seq, curr_rtt;
	double k;
	bool found;
};

/* A windowed maximum, Kathleen Nichols' way (Linux's win_minmax.c): the best three samples of the window. */
struct minmax {
	struct {
		uint64_t t;
		double v;
	} s[3];
};

struct bbr {
	enum bbr_mode mode;
	enum ca_state prev_ca_state;
	struct minmax bw; /* the delivery rate, segments per second, over 10 rounds */
	uint64_t round_count, next_rtt_delivered, min_rtt, min_rtt_stamp, probe_rtt_done, cycle_stamp;
	uint64_t ack_epoch_stamp;
	double pacing_gain, cwnd_gain, full_bw;
	uint32_t prior_cwnd, ack_epoch_acked, extra_acked[2];
	int cycle_idx, full_bw_cnt, extra_idx, extra_win_rtts;
	bool round_start, full_bw_reached, packet_conservation, probe_rtt_round_done, idle_restart, has_seen_rtt;
};

struct sender {
	uint64_t written, una, nxt, wnd_edge, fack; /* fack: the highest SACKed byte, at least una */
	struct seg *segs;
	uint64_t cap, una_s, nxt_s;                 /* the ring, and the serials of una and nxt */
	uint64_t ts_head, ts_tail, retx_hint;       /* no lost, unsent segment below the hint */
	uint32_t sacked_out, lost_out, retrans_out, lost_unsent;
	uint32_t cwnd, ssthresh, cwnd_cnt, prior_cwnd, prior_ssthresh, prr_delivered, prr_out;
	uint32_t max_packets_out;
	uint64_t max_packets_seq;
	bool is_cwnd_limited;
	enum ca_state state;
	uint64_t high_seq;
	/* RTT */
	uint64_t srtt, rttvar, rto, min_rtt;
	unsigned backoff;
	/* the one retransmission timer, as Linux's icsk_pending */
	enum timer_kind timer;
	uint64_t timer_at;
	/* pacing (BBR) */
	double pacing_rate; /* bytes per second */
	uint64_t pace_at;
	bool pace_blocked;
	/* RACK */
	uint64_t rack_xmit, rack_end, rack_rtt, rack_last_delivered;
	uint32_t reordering, reo_steps, reo_persist, reord_seen;
	bool rack_advanced, rack_dsack_seen;
	/* undo */
	bool undo_valid;
	int32_t undo_retrans;
	uint32_t retrans_stamp; /* timestamp of the first retransmission, 0 none */
	/* delivery rate */
	uint64_t delivered, delivered_ns, first_tx_ns, app_limited, lost_total;
	/* tail loss probe */
	uint64_t tlp_high_seq;
	bool tlp_retrans;
	uint64_t last_send_ns;
	uint64_t segs_out; /* data segments ever sent: pacing starts after ten */
	struct range cache[MAX_SACKS + 1];
	int n_cache;
	union {
		struct cubic cubic;
		struct bbr bbr;
	} cc;
	/* counters */
	uint64_t retransmits, rtos, tlps, spurious, undos, recoveries, local_drops;
	double srtt_sum;
	uint64_t srtt_n;
};

struct receiver {
	uint64_t nxt, wup, edge, clamp; /* wup: nxt when the last ack went; edge: the right edge offered */
	struct range *ooo;
	int n_ooo, cap_ooo;
	uint64_t ooo_bytes, stamps;
	struct range recent; /* the block last changed: the first an ack reports */
	bool dsack;
	uint64_t dsack_start, dsack_end;
	uint32_t quick, compressed, dup_acks, last_tsecr;
	uint64_t delack_at, comp_at, comp_nxt;
	uint64_t rtt_ns, space, space_seq, space_ns, last_rcv_ns;
	bool got_data;
	uint64_t delivered, measured;
	/* the check of what carried the packets */
	uint32_t wire_last;
	bool wire_any;
	uint64_t wire_in_order, wire_late, wire_gaps;
	uint64_t ofo_segments, dup_segments, acks_sent;
};

struct pending {
	uint8_t len;
	uint8_t b[ACK_MAX];
};

struct end {
	struct tcp_conn *c;
	enum tcp_end id;
	struct sender s;
	struct receiver r;
	uint32_t ts_recent; /* the peer's timestamp to echo */
	uint32_t wire_next; /* packets this end sent */
	uint16_t port, peer_port;
	uint8_t addr[4], peer_addr[4];
	bool in_input;      /* acks go to the queue */
	struct pending *q;
	size_t nq, capq;
};

struct cc_ops {
	void (*init)(struct end *e, uint64_t now);
	uint32_t (*ssthresh)(struct end *e);
	void (*cong_avoid)(struct end *e, uint64_t now, uint32_t acked);
	void (*pkts_acked)(struct end *e, uint64_t now, int64_t rtt_ns);
	void (*set_state)(struct end *e, enum ca_state st);
	void (*tx_start)(struct end *e, uint64_t now);
	uint32_t (*undo_cwnd)(struct end *e);
	/* BBR: sets cwnd and the pacing rate itself, from every ack's rate sample */
	void (*cong_control)(struct end *e, uint64_t now, const struct rate_sample *rs);
};

struct tcp_conn {
	struct tcp_params p;
	const struct cc_ops *cc;
	uint32_t mss;
	uint8_t *buf; /* one data segment being built */
	uint64_t now; /* of the call being served */
	struct prng rng;
	struct end ends[2];
};

static const struct cc_ops cubic_ops, newreno_ops, bbr_ops;

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint32_t ts_of(uint64_t now)
{
	return (uint32_t)(now / 1000); /* microseconds, as Linux's usec timestamps */
}

/* The 64-bit sequence number near ref that has these low 32 bits. */
static uint64_t unwrap(uint64_t ref, uint32_t low)
{
	return (uint64_t)((int64_t)ref + (int32_t)(low - (uint32_t)ref));
}

/* ---- the scoreboard ------------------------------------------------------------ */

static struct seg *seg_at(const struct sender *s, uint64_t sn)
{
	return &s->segs[sn & (s->cap - 1)];
}

static uint32_t packets_out(const struct sender *s)
{
	return (uint32_t)(s->nxt_s - s->una_s);
}

static uint32_t in_flight(const struct sender *s)
{
	return packets_out(s) - (s->sacked_out + s->lost_out) + s->retrans_out;
}

static bool lost_unsent(uint32_t f)
{
	return (f & (SEG_LOST | SEG_RETRANS | SEG_SACKED)) == SEG_LOST;
}

static void count(uint32_t *n, uint32_t was, uint32_t is, uint32_t flag)
{
	if ((was & flag) && !(is & flag))
		(*n)--;
	else if (!(was & flag) && (is & flag))
		(*n)++;
}

/* Every flag change goes here, so the counters always match the flags. */
static void seg_set(struct sender *s, uint64_t sn, uint32_t f)
{
	struct seg *g = seg_at(s, sn);
	uint32_t o = g->flags;

	f = (f & ~(uint32_t)SEG_LISTED) | (o & SEG_LISTED);
	count(&s->sacked_out, o, f, SEG_SACKED);
	count(&s->lost_out, o, f, SEG_LOST);
	count(&s->retrans_out, o, f, SEG_RETRANS);
	if (lost_unsent(o) != lost_unsent(f)) {
		if (lost_unsent(f))
			s->lost_unsent++;
		else
			s->lost_unsent--;
	}
	if (lost_unsent(f) && sn < s->retx_hint)
		s->retx_hint = sn;
	g->flags = f;
}

static void ts_unlink(struct sender *s, uint64_t sn)
{
	struct seg *g = seg_at(s, sn);

	if (!(g->flags & SEG_LISTED))
		return;
	if (g->prev != NIL)
		seg_at(s, g->prev)->next = g->next;
	else
		s->ts_head = g->next;
	if (g->next != NIL)
		seg_at(s, g->next)->prev = g->prev;
	else
		s->ts_tail = g->prev;
	g->flags &= ~(uint32_t)SEG_LISTED;
}

/* Sent just now: the newest on the time-sorted list. */
static void ts_append(struct sender *s, uint64_t sn)
{
	struct seg *g = seg_at(s, sn);

	ts_unlink(s, sn);
	g->prev = s->ts_tail;
	g->next = NIL;
	if (s->ts_tail != NIL)
		seg_at(s, s->ts_tail)->next = sn;
	else
		s->ts_head = sn;
	s->ts_tail = sn;
	g->flags |= SEG_LISTED;
}

/* Room for one more segment in the ring; serials keep their meaning. */
static void ring_reserve(struct sender *s)
{
	uint64_t cap = s->cap ? s->cap * 2 : 1024;
	struct seg *n;

	if (packets_out(s) < s->cap)
		return;
	n = calloc(cap, sizeof(*n));
	if (!n)
		abort();
	for (uint64_t sn = s->una_s; sn < s->nxt_s; sn++)
		n[sn & (cap - 1)] = *seg_at(s, sn);
	free(s->segs);
	s->segs = n;
	s->cap = cap;
}

/* The first segment at or above byte x. */
static uint64_t serial_at(const struct sender *s, uint64_t x)
{
	uint64_t lo = s->una_s, hi = s->nxt_s;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (seg_at(s, mid)->seq < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The lowest segment that is lost and not yet sent again. */
static uint64_t next_lost(struct sender *s)
{
	if (!s->lost_unsent)
		return NIL;
	for (; s->retx_hint < s->nxt_s; s->retx_hint++)
		if (lost_unsent(seg_at(s, s->retx_hint)->flags))
			return s->retx_hint;
	return NIL;
}

/* ---- the wire -------------------------------------------------------------------- */

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) << 16 | get16(p + 2);
}

static void ip_checksum(uint8_t *ip)
{
	uint32_t sum = 0;

	put16(ip + 10, 0);
	for (int i = 0; i < 20; i += 2)
		sum += get16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(ip + 10, ~sum & 0xffff);
}

/* The window to offer: what the buffer has left beyond the data held out of order; the edge never moves back. */
static uint64_t offer_window(struct receiver *r)
{
	uint64_t room = r->clamp > r->ooo_bytes ? r->clamp - r->ooo_bytes : 0;

	r->edge = max64(r->edge, r->nxt + room);
	return r->edge - r->nxt;
}

/* IPv4, TCP with the timestamps, SACK blocks if any; the payload is whatever the buffer holds. Returns the length. */
static size_t build(struct end *e, uint64_t now, uint8_t *b, uint64_t seq, uint32_t payload, const struct range *sack,
		    int n_sack)
{
	size_t opt = 12 + (n_sack ? 4 + 8 * (size_t)n_sack : 0), len = 40 + opt + payload;
	uint64_t wnd = offer_window(&e->r) >> WSCALE;
	uint8_t *t = b + 20;

	b[0] = 0x45;
	b[1] = 0;
	put16(b + 2, (uint32_t)len);
	put16(b + 6, 0x4000); /* don't fragment */
	b[8] = 64;
	b[9] = 6;
	memcpy(b + 12, e->addr, 4);
	memcpy(b + 16, e->peer_addr, 4);
	put16(t, e->port);
	put16(t + 2, e->peer_port);
	put32(t + 4, (uint32_t)seq);
	put32(t + 8, (uint32_t)e->r.nxt);
	t[12] = (uint8_t)((20 + opt) / 4 << 4);
	t[13] = payload ? 0x18 : 0x10; /* ACK, and PSH with data */
	put16(t + 14, (uint32_t)min64(wnd, 0xffff));
	put16(t + 16, 0); /* no one checks it on this path */
	memcpy(t + 20, (const uint8_t[]){ 1, 1, 8, 10 }, 4);
	put32(t + 24, ts_of(now));
	put32(t + 28, e->ts_recent);
	if (n_sack) {
		memcpy(t + 32, (const uint8_t[]){ 1, 1, 5, (uint8_t)(2 + 8 * n_sack) }, 4);
		for (int i = 0; i < n_sack; i++) {
			put32(t + 36 + 8 * i, (uint32_t)sack[i].start);
			put32(t + 40 + 8 * i, (uint32_t)sack[i].end);
		}
	}
	return len;
}

/* Out it goes, numbered now: the number says the order in which the end really sent. */
static void transmit(struct end *e, uint8_t *b, size_t len)
{
	uint32_t w = e->wire_next++;

	put16(b + 4, w & 0xffff); /* the IPv4 identification */
	put16(b + 38, w >> 16);   /* the urgent pointer, meaningless without URG */
	ip_checksum(b);
	if (!e->c->p.xmit(e->c->p.ctx, e->id, b, len))
		e->s.local_drops++;
}

static void flush(struct end *e)
{
	for (size_t i = 0; i < e->nq; i++)
		transmit(e, e->q[i].b, e->q[i].len);
	e->nq = 0;
}

struct in_seg {
	uint32_t seq, ack, tsval, tsecr, wire, len;
	uint64_t wnd;
	int n_sack;
	uint32_t sack[4][2];
};

static bool parse(const uint8_t *ip, size_t len, struct in_seg *in)
{
	const uint8_t *t = ip + 20;
	size_t total, doff;

	if (len < 40)
		return false;
	total = get16(ip + 2);
	doff = (size_t)(t[12] >> 4) * 4;
	if (total > len || doff < 20 || 20 + doff > total)
		return false;
	memset(in, 0, sizeof(*in));
	in->seq = get32(t + 4);
	in->ack = get32(t + 8);
	in->wnd = (uint64_t)get16(t + 14) << WSCALE;
	in->wire = get16(ip + 4) | get16(t + 18) << 16;
	in->len = (uint32_t)(total - 20 - doff);
	for (size_t i = 20; i < doff;) {
		size_t olen = t[i] <= 1 ? 1 : i + 1 < doff ? t[i + 1] : 0;

		if (!t[i] || olen < 1 || i + olen > doff)
			break;
		if (t[i] == 8 && olen == 10) {
			in->tsval = get32(t + i + 2);
			in->tsecr = get32(t + i + 6);
		} else if (t[i] == 5 && olen >= 10) {
			for (size_t k = 0; k < (olen - 2) / 8 && in->n_sack < 4; k++, in->n_sack++) {
				in->sack[in->n_sack][0] = get32(t + i + 2 + 8 * k);
				in->sack[in->n_sack][1] = get32(t + i + 6 + 8 * k);
			}
		}
		i += olen;
	}
	return true;
}

int tcp_client_port(const uint8_t *ip, size_t len)
{
	if (len < TCP_HEADERS || ip[0] != 0x45 || ip[9] != 6)
		return -1;
	if (get16(ip + 22) == TCP_SERVER_PORT)
		return (int)get16(ip + 20);
	if (get16(ip + 20) == TCP_SERVER_PORT)
		return (int)get16(ip + 22);
	return -1;
}

/* Whatever carries the packets must deliver them once each, in the order sent; losing some is allowed. */
static void wire_check(struct receiver *r, uint32_t w)
{
	int32_t d = (int32_t)(w - r->wire_last);

	if (r->wire_any && d <= 0) {
		r->wire_late++;
		return;
	}
	r->wire_gaps += r->wire_any ? (uint32_t)d - 1 : w;
	r->wire_any = true;
	r->wire_last = w;
	r->wire_in_order++;
}

/* ---- the receiver ------------------------------------------------------------------ */

/* The SACK blocks of an ack: the D-SACK first, then the blocks most recently changed (RFC 2018). */
static int pick_sacks(const struct receiver *r, struct range *out)
{
	uint64_t below = UINT64_MAX;
	int n = 0;

	if (r->dsack)
		out[n++] = (struct range){ r->dsack_start, r->dsack_end, 0 };
	while (n < MAX_SACKS) {
		const struct range *best = NULL;

		for (int i = 0; i < r->n_ooo; i++)
			if (r->ooo[i].stamp < below && (!best || r->ooo[i].stamp > best->stamp))
				best = &r->ooo[i];
		if (!best)
			break;
		out[n++] = *best;
		below = best->stamp;
	}
	return n;
}

/* Any segment this end sends acks what it has (Linux's tcp_event_ack_sent). */
static void ack_sent(struct receiver *r)
{
	r->wup = r->nxt;
	r->delack_at = 0;
	if (r->quick)
		r->quick--;
}

static void send_ack(struct end *e, uint64_t now)
{
	struct receiver *r = &e->r;
	struct range sack[MAX_SACKS];
	int n = pick_sacks(r, sack);
	struct pending *p;
	uint8_t b[ACK_MAX];
	size_t len = build(e, now, b, e->s.nxt, 0, sack, n);

	ack_sent(r);
	r->dsack = false;
	r->comp_at = 0;
	r->compressed = 0;
	r->acks_sent++;
	if (!e->in_input) {
		transmit(e, b, len);
		return;
	}
	if (e->nq == e->capq) {
		e->capq = e->capq ? e->capq * 2 : 64;
		e->q = realloc(e->q, e->capq * sizeof(*e->q));
		if (!e->q)
			abort();
	}
	p = &e->q[e->nq++];
	p->len = (uint8_t)len;
	memcpy(p->b, b, len);
}

static void set_dsack(struct receiver *r, uint64_t start, uint64_t end)
{
	r->dsack = true;
	r->dsack_start = start;
	r->dsack_end = end;
}

static void incr_quickack(struct end *e)
{
	uint64_t q = e->r.clamp / (2 * e->c->mss);

	q = q ? min64(q, MAX_QUICKACKS) : 2;
	if (q > e->r.quick)
		e->r.quick = (uint32_t)q;
}

/*
 * Ack now, later (every second full segment, or after 40 ms), or, while
 * data is missing, compressed: the first three duplicate acks at once, then
 * one per 44 segments or after min(1 ms, RTT/20) (Linux's SACK compression).
 */
static void ack_check(struct end *e, uint64_t now, bool at_once)
{
	struct receiver *r = &e->r;
	uint64_t rtt;

	if (r->nxt - r->wup > e->c->mss || r->quick || at_once) {
		send_ack(e, now);
		return;
	}
	if (!r->n_ooo) {
		if (!r->delack_at)
			r->delack_at = now + DELACK;
		return;
	}
	if (r->compressed >= COMP_SACK_NR) {
		send_ack(e, now);
		return;
	}
	if (r->comp_nxt != r->nxt) {
		r->comp_nxt = r->nxt;
		r->dup_acks = 0;
	}
	if (r->dup_acks < DUPTHRESH) {
		r->dup_acks++;
		send_ack(e, now);
		return;
	}
	r->compressed++;
	if (!r->comp_at) {
		rtt = r->rtt_ns;
		if (e->s.srtt && e->s.srtt < rtt)
			rtt = e->s.srtt;
		r->comp_at = now + min64(COMP_SACK_DELAY, rtt / 20);
	}
}

/* Data beyond a hole: held, merged with what touches it; returns false if all of it was there already. */
static bool ofo_insert(struct receiver *r, uint64_t start, uint64_t end)
{
	int lo = 0, hi = r->n_ooo, j;
	uint64_t removed = 0, s = start, e = end;

	while (lo < hi) { /* the first block that ends at or after start */
		int mid = (lo + hi) / 2;

		if (r->ooo[mid].end < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->n_ooo && r->ooo[lo].start <= start && r->ooo[lo].end >= end) {
		r->ooo[lo].stamp = ++r->stamps;
		r->recent = r->ooo[lo];
		return false;
	}
	for (j = lo; j < r->n_ooo && r->ooo[j].start <= end; j++) {
		s = min64(s, r->ooo[j].start);
		e = max64(e, r->ooo[j].end);
		removed += r->ooo[j].end - r->ooo[j].start;
	}
	if (j == lo) { /* a new block */
		if (r->n_ooo == r->cap_ooo) {
			r->cap_ooo = r->cap_ooo ? r->cap_ooo * 2 : 16;
			r->ooo = realloc(r->ooo, (size_t)r->cap_ooo * sizeof(*r->ooo));
			if (!r->ooo)
				abort();
		}
		memmove(r->ooo + lo + 1, r->ooo + lo, (size_t)(r->n_ooo - lo) * sizeof(*r->ooo));
		r->n_ooo++;
	} else if (j > lo + 1) {
		memmove(r->ooo + lo + 1, r->ooo + j, (size_t)(r->n_ooo - j) * sizeof(*r->ooo));
		r->n_ooo -= j - lo - 1;
	}
	r->ooo[lo] = r->recent = (struct range){ s, e, ++r->stamps };
	r->ooo_bytes += (e - s) - removed;
	return true;
}

/*
 * In-order data up to end: what it joins up with goes to the application too. True if that emptied
 * the out-of-order queue.
 */
static bool advance(struct end *e, uint64_t now, uint64_t end)
{
	struct receiver *r = &e->r;
	uint64_t old = r->nxt;
	bool had = r->n_ooo > 0;
	int k = 0;

	r->nxt = end;
	while (k < r->n_ooo && r->ooo[k].start <= r->nxt) {
		r->nxt = max64(r->nxt, r->ooo[k].end);
		r->ooo_bytes -= r->ooo[k].end - r->ooo[k].start;
		k++;
	}
	if (k) {
		memmove(r->ooo, r->ooo + k, (size_t)(r->n_ooo - k) * sizeof(*r->ooo));
		r->n_ooo -= k;
	}
	r->delivered += r->nxt - old;
	if (now >= e->c->p.measure_from)
		r->measured += r->nxt - old;
	return had && !r->n_ooo;
}

/* The receiver's RTT, from the echo of its own timestamps (tcp_rcv_rtt_measure_ts). */
static void rcv_rtt_measure(struct end *e, uint64_t now, uint32_t len, uint32_t tsecr)
{
	struct receiver *r = &e->r;
	int32_t delta = (int32_t)(ts_of(now) - tsecr);
	int64_t m;

	if (!tsecr || tsecr == r->last_tsecr)
		return;
	r->last_tsecr = tsecr;
	if (len < e->c->mss || delta <= 0)
		return;
	m = (int64_t)delta * 1000;
	if (!r->rtt_ns)
		r->rtt_ns = (uint64_t)m;
	else
		r->rtt_ns = (uint64_t)((int64_t)r->rtt_ns + (m - (int64_t)r->rtt_ns) / 8);
}

/*
 * Receive window autotuning (Linux's dynamic right-sizing): once per
 * receiver RTT, if the application got more than in the last one, the
 * window becomes twice that plus room for the sender's growth.
 */
static void space_adjust(struct end *e, uint64_t now)
{
	struct receiver *r = &e->r;
	uint64_t copied = r->nxt - r->space_seq;

	if (!r->rtt_ns || now - r->space_ns < r->rtt_ns)
		return;
	if (copied > r->space) {
		uint64_t win = 2 * copied + 16 * (uint64_t)e->c->mss;

		win += 2 * (win * (copied - r->space) / r->space);
		win = min64(win, e->c->p.rmem_max);
		r->clamp = max64(r->clamp, win);
		r->space = copied;
	}
	r->space_seq = r->nxt;
	r->space_ns = now;
}

/* The first data, or data after a silence longer than an RTO: ack quickly for a while (tcp_event_data_recv). */
static void data_recv_event(struct end *e, uint64_t now)
{
	struct receiver *r = &e->r;

	if (!r->got_data || now - r->last_rcv_ns > e->s.rto)
		incr_quickack(e);
	r->got_data = true;
	r->last_rcv_ns = now;
}

static void on_data(struct end *e, uint64_t now, uint64_t seq, uint32_t len, uint32_t tsecr)
{
	struct receiver *r = &e->r;
	uint64_t end = seq + len;
	bool at_once;


	if (end <= r->nxt) { /* all of it arrived before: a copy, or a retransmission that was not needed */
		r->dup_segments++;
		set_dsack(r, seq, end);
		incr_quickack(e);
		ack_check(e, now, true);
		return;
	}
	if (seq > r->nxt) {
		r->ofo_segments++;
		/*
		 * A compressed ack reports three blocks: before they change, the held one goes
		 * (tcp_sack_compress_send_ack).
		 */
		if (r->compressed && (seq > r->recent.end || end < r->recent.start))
			send_ack(e, now);
		if (!ofo_insert(r, seq, end)) {
			r->dup_segments++;
			set_dsack(r, seq, end);
		}
		ack_check(e, now, false);
		return;
	}
	data_recv_event(e, now);
	if (seq < r->nxt)
		set_dsack(r, seq, r->nxt);
	at_once = advance(e, now, end); /* RFC 5681: ack at once when a hole is filled */
	rcv_rtt_measure(e, now, len, tsecr);
	space_adjust(e, now);
	ack_check(e, now, at_once);
}

/* ---- the sender: timers ------------------------------------------------------------ */

static uint64_t rto_now(const struct sender *s)
{
	return min64(s->rto << min64(s->backoff, 20), RTO_MAX);
}

static void set_timer(struct sender *s, enum timer_kind kind, uint64_t at)
{
	s->timer = kind;
	s->timer_at = at;
}

/* RTO from now; or, replacing a probe or reordering timer, from when the oldest segment went (tcp_rearm_rto). */
static void rearm_rto(struct end *e, uint64_t now)
{
	struct sender *s = &e->s;
	uint64_t rto = rto_now(s);

	if (!packets_out(s)) {
		set_timer(s, TIMER_NONE, 0);
		return;
	}
	if (s->timer == TIMER_REO || s->timer == TIMER_TLP) {
		uint64_t due = seg_at(s, s->una_s)->xmit_ns + rto;

		rto = due > now ? due - now : 1;
	}
	set_timer(s, TIMER_RTO, now + rto);
}

/*
 * A tail loss probe two RTTs after the last send, in the open state and
 * when nothing else would go out (new data if the window allows, else the
 * last segment again), so a lost tail costs an RTT or two and not an RTO
 * (tcp_schedule_loss_probe).
 */
static bool schedule_loss_probe(struct end *e, uint64_t now, bool advancing_rto)
{
	struct sender *s = &e->s;
	uint64_t timeout, rto_delta;

	if (!packets_out(s) || s->state != CA_OPEN)
		return false;
	if (s->cwnd > in_flight(s) && s->written > s->nxt)
		return false;
	if (s->srtt)
		timeout = 2 * s->srtt + (packets_out(s) == 1 ? RTO_MIN : TIMEOUT_MIN);
	else
		timeout = RTO_INIT;
	if (advancing_rto) {
		rto_delta = rto_now(s);
	} else {
		uint64_t due = s->timer == TIMER_RTO ? s->timer_at : seg_at(s, s->una_s)->xmit_ns + rto_now(s);

		rto_delta = due > now ? due - now : 0;
	}
	if (rto_delta)
		timeout = min64(timeout, rto_delta);
	set_timer(s, TIMER_TLP, now + timeout);
	return true;
}

static void set_xmit_timer(struct end *e, uint64_t now)
{
	if (!schedule_loss_probe(e, now, true))
		rearm_rto(e, now);
}

/* ---- the sender: sending ----------------------------------------------------------- */

static bool paced(const struct end *e)
{
	return e->c->cc == &bbr_ops && e->s.pacing_rate > 0 && e->s.segs_out >= 10;
}

/* Linux's internal pacing: each segment pushes the next one's earliest time out by its payload at the rate. */
static void pace(struct end *e, uint64_t now, size_t len)
{
	struct sender *s = &e->s;
	uint64_t prior = s->pace_at, ns;

	if (!paced(e))
		return;
	ns = (uint64_t)((double)len * 1e9 / s->pacing_rate);
	s->pace_at = max64(s->pace_at, now);
	ns -= min64(ns / 2, s->pace_at - prior); /* a late start earns some credit */
	s->pace_at += ns;
}

/* What the delivery-rate sample of this transmission will be measured from (tcp_rate_skb_sent). */
static void rate_skb_sent(struct sender *s, struct seg *g, uint64_t now)
{
	if (!packets_out(s))
		s->first_tx_ns = s->delivered_ns = now;
	g->tx_first_ns = s->first_tx_ns;
	g->tx_delivered_ns = s->delivered_ns;
	g->tx_delivered = s->delivered;
	g->tx_app_limited = s->app_limited != 0;
}

static void send_segment(struct end *e, uint64_t now, const struct seg *g)
{
	struct sender *s = &e->s;
	size_t len = build(e, now, e->c->buf, g->seq, g->len, NULL, 0);

	ack_sent(&e->r);
	transmit(e, e->c->buf, len);
	s->segs_out++;
	s->last_send_ns = now;
	if (s->state == CA_RECOVERY)
		s->prr_out++;
	pace(e, now, g->len);
}

/* After an idle time longer than an RTO, the window shrinks back (tcp_cwnd_restart; BBR keeps its own). */
static void tx_start(struct end *e, uint64_t now)
{
	struct sender *s = &e->s;

	if (e->c->cc->tx_start)
		e->c->cc->tx_start(e, now);
	if (e->c->cc->cong_control || !s->last_send_ns || now - s->last_send_ns <= s->rto) {
		s->last_send_ns = now;
		return;
	}
	{
		uint32_t restart = s->cwnd < INIT_CWND ? s->cwnd : INIT_CWND, cwnd = s->cwnd;
		int64_t idle = (int64_t)(now - s->last_send_ns);

		if (s->state < CA_RECOVERY)
			s->ssthresh = (uint32_t)max64(s->ssthresh, (s->cwnd >> 1) + (s->cwnd >> 2));
		while ((idle -= (int64_t)s->rto) > 0 && cwnd > restart)
			cwnd >>= 1;
		s->cwnd = cwnd > restart ? cwnd : restart;
	}
}

static bool can_send_new(const struct end *e, uint32_t *len)
{
	const struct sender *s = &e->s;

	if (s->written <= s->nxt)
		return false;
	*len = (uint32_t)min64(e->c->mss, s->written - s->nxt);
	return s->nxt + *len <= s->wnd_edge && s->nxt + *len - s->una <= e->c->p.wmem_max;
}

static void send_new(struct end *e, uint64_t now, uint32_t len)
{
	struct sender *s = &e->s;
	uint32_t prior = packets_out(s);
	uint64_t sn;
	struct seg *g;

	if (!prior)
		tx_start(e, now);
	ring_reserve(s);
	sn = s->nxt_s;
	g = seg_at(s, sn);
	memset(g, 0, sizeof(*g));
	g->seq = s->nxt;
	g->len = len;
	g->xmit_ns = now;
	rate_skb_sent(s, g, now);
	s->nxt_s++;
	s->nxt += len;
	ts_append(s, sn);
	send_segment(e, now, g);
	if (!prior || s->timer == TIMER_TLP || s->timer == TIMER_NONE)
		rearm_rto(e, now);
}

static void retransmit(struct end *e, uint64_t now, uint64_t sn)
{
	struct sender *s = &e->s;
	struct seg *g = seg_at(s, sn);

	seg_set(s, sn, g->flags | SEG_RETRANS | SEG_EVER_RETRANS);
	g->xmit_ns = now;
	rate_skb_sent(s, g, now);
	ts_append(s, sn);
	s->retransmits++;
	if (!s->retrans_stamp)
		s->retrans_stamp = ts_of(now) ? ts_of(now) : 1;
	if (s->undo_retrans < 0)
		s->undo_retrans = 0;
	s->undo_retrans++;
	send_segment(e, now, g);
}

/*
 * Nothing to send and room in the window: rate samples from now on may be low for lack of data
 * (tcp_rate_check_app_limited).
 */
static void check_app_limited(struct end *e)
{
	struct sender *s = &e->s;

	if (s->written - s->nxt < e->c->mss && in_flight(s) < s->cwnd && s->lost_out <= s->retrans_out)
		s->app_limited = max64(s->delivered + in_flight(s), 1);
}

/* Whether the window was what limited sending in the last round trip (tcp_cwnd_validate, tcp_is_cwnd_limited). */
static void cwnd_validate(struct sender *s, bool limited)
{
	if (s->una >= s->max_packets_seq || packets_out(s) > s->max_packets_out || limited) {
		s->is_cwnd_limited = limited;
		s->max_packets_out = packets_out(s);
		s->max_packets_seq = s->nxt;
	}
}

static bool cwnd_limited(const struct sender *s)
{
	if (s->is_cwnd_limited)
		return true;
	return s->cwnd < s->ssthresh && s->cwnd < 2 * s->max_packets_out;
}

/* Lost segments first, then new data, while the window (and BBR's pacing) allow. */
static void push(struct end *e, uint64_t now)
{
	struct sender *s = &e->s;
	bool sent_new = false, limited = false;
	uint32_t sent = 0, len;

	s->pace_blocked = false;
	for (;;) {
		uint64_t sn;

		if (paced(e) && s->pace_at > now) {
			s->pace_blocked = s->lost_unsent || s->written > s->nxt;
			break;
		}
		if (in_flight(s) >= s->cwnd) {
			limited = true;
			break;
		}
		if ((sn = next_lost(s)) != NIL) {
			retransmit(e, now, sn);
		} else if (can_send_new(e, &len)) {
			send_new(e, now, len);
			sent_new = true;
		} else {
			check_app_limited(e);
			break;
		}
		sent++;
	}
	if (sent_new)
		schedule_loss_probe(e, now, false);
	limited |= in_flight(s) >= s->cwnd;
	if (sent || limited)
		cwnd_validate(s, limited);
}

/* ---- the sender: loss detection (RACK) ------------------------------------------------ */

/*
 * RACK's reordering window: none before any reordering was seen once three segments above are
 * SACKed (the DupThresh rule), else min_rtt/4, more after D-SACKs.
 */
static uint64_t rack_reo_wnd(const struct sender *s)
{
	if (!s->reord_seen && (s->state >= CA_RECOVERY || s->sacked_out >= s->reordering))
		return 0;
	if (s->min_rtt == UINT64_MAX)
		return 0;
	return min64(s->min_rtt / 4 * s->reo_steps, s->srtt);
}

static bool sent_after(uint64_t t1, uint64_t t2, uint64_t seq1, uint64_t seq2)
{
	return t1 > t2 || (t1 == t2 && seq1 > seq2);
}

static void rack_advance(struct sender *s, const struct seg *g, uint64_t now)
{
	uint64_t rtt = now - g->xmit_ns;

	/* A resent segment acked sooner than any RTT: the original got there. */
	if ((g->flags & SEG_EVER_RETRANS) && rtt < s->min_rtt)
		return;
	s->rack_advanced = true;
	s->rack_rtt = rtt;
	if (sent_after(g->xmit_ns, s->rack_xmit, g->seq + g->len, s->rack_end)) {
		s->rack_xmit = g->xmit_ns;
		s->rack_end = g->seq + g->len;
	}
}

static void mark_lost(struct sender *s, uint64_t sn)
{
	struct seg *g = seg_at(s, sn);

	if (g->flags & SEG_SACKED)
		return;
	if (g->flags & SEG_LOST)
		seg_set(s, sn, g->flags & ~(uint32_t)SEG_RETRANS); /* a retransmission lost again */
	else
		seg_set(s, sn, g->flags | SEG_LOST);
	s->lost_total++;
	ts_unlink(s, sn);
}

/*
 * Every segment sent a reordering window before the newest one delivered is lost; returns the time
 * the next one would be.
 */
static uint64_t rack_detect_loss(struct end *e, uint64_t now)
{
	struct sender *s = &e->s;
	uint64_t reo = rack_reo_wnd(s), timeout = 0;

	for (uint64_t sn = s->ts_head, next; sn != NIL; sn = next) {
		struct seg *g = seg_at(s, sn);
		int64_t remaining;

		next = g->next;
		if (!sent_after(s->rack_xmit, g->xmit_ns, s->rack_end, g->seq + g->len))
			break;
		remaining = (int64_t)(s->rack_rtt + reo) - (int64_t)(now - g->xmit_ns);
		if (remaining <= 0)
			mark_lost(s, sn);
		else if ((uint64_t)remaining > timeout)
			timeout = (uint64_t)remaining;
	}
	return timeout;
}

/* True if it set the reordering timer. */
static bool rack_mark_lost(struct end *e, uint64_t now)
{
	struct sender *s = &e->s;
	uint64_t timeout;

	if (!s->rack_advanced)
		return false;
	s->rack_advanced = false;
	timeout = rack_detect_loss(e, now);
	if (!timeout)
		return false;
	set_timer(s, TIMER_REO, now + timeout + TIMEOUT_MIN);
	return true;
}

/* D-SACKs widen the reordering window, once per round trip; sixteen recoveries without one narrow it again. */
static void rack_update_reo_wnd(struct sender *s, const struct rate_sample *rs)
{
	if (!rs->has_prior)
		return;
	if (rs->prior_delivered < s->rack_last_delivered)
		s->rack_dsack_seen = false;
	if (s->rack_dsack_seen) {
		s->reo_steps = s->reo_steps < 255 ? s->reo_steps + 1 : 255;
		s->rack_dsack_seen = false;
		s->rack_last_delivered = s->delivered;
		s->reo_persist = 16;
	} else if (!s->reo_persist) {
		s->reo_steps = 1;
	}
}

/* ---- the sender: acks ------------------------------------------------------------------ */

/* The rate sample comes from the most recently sent of the segments an ack delivers (tcp_rate_skb_delivered). */
static void rate_skb_delivered(struct sender *s, struct seg *g, struct rate_sample *rs)
{
	if (!g->tx_delivered_ns)
		return;
	if (!rs->has_prior || g->tx_delivered > rs->prior_delivered) {
		rs->has_prior = true;
		rs->prior_delivered = g->tx_delivered;
		rs->prior_ns = g->tx_delivered_ns;
		rs->is_app_limited = g->tx_app_limited;
		rs->send_interval = g->xmit_ns - g->tx_first_ns;
		s->first_tx_ns = g->xmit_ns;
	}
	g->tx_delivered_ns = 0;
}

static void delivered_one(struct sender *s, struct seg *g, uint64_t now, struct rate_sample *rs, struct ack_acc *acc)
{
	s->delivered++;
	rate_skb_delivered(s, g, rs);
	rack_advance(s, g, now);
	if (!(g->flags & SEG_EVER_RETRANS) && g->xmit_ns > acc->newest_xmit)
		acc->newest_xmit = g->xmit_ns;
}

static void sack_one(struct sender *s, uint64_t sn, uint64_t now, uint64_t prior_fack, struct rate_sample *rs,
		     struct ack_acc *acc)
{
	struct seg *g = seg_at(s, sn);

	if (g->flags & SEG_SACKED)
		return;
	if (!(g->flags & SEG_EVER_RETRANS)) {
		if (g->seq < prior_fack && g->seq < acc->reord_low)
			acc->reord_low = g->seq;
		if (!acc->sack_xmit)
			acc->sack_xmit = g->xmit_ns;
	}
	delivered_one(s, g, now, rs, acc);
	ts_unlink(s, sn);
	seg_set(s, sn, (g->flags | SEG_SACKED) & ~(uint32_t)(SEG_LOST | SEG_RETRANS));
	s->fack = max64(s->fack, g->seq + g->len);
}

/*
 * Marks [a, b), skipping what the last ack's blocks covered already (Linux's SACK cache): work in
 * proportion to what is new.
 */
static void tag_block(struct sender *s, uint64_t a, uint64_t b, uint64_t now, uint64_t prior_fack,
		      struct rate_sample *rs, struct ack_acc *acc)
{
	while (a < b) {
		uint64_t stop = b;
		bool covered = false;

		for (int k = 0; k < s->n_cache && !covered; k++) {
			const struct range *c = &s->cache[k];

			if (c->start <= a && a < c->end) {
				a = c->end;
				covered = true;
			} else if (c->start > a && c->start < stop) {
				stop = c->start;
			}
		}
		if (covered)
			continue;
		for (uint64_t sn = serial_at(s, a); sn < s->nxt_s; sn++) {
			const struct seg *g = seg_at(s, sn);

			if (g->seq >= stop || g->seq + g->len > b)
				break;
			sack_one(s, sn, now, prior_fack, rs, acc);
		}
		a = stop;
	}
}

/* A D-SACK: a segment arrived twice, so one send of it was not needed (RFC 2883). */
static void on_dsack(struct end *e, const struct range *d, uint64_t prior_una)
{
	struct sender *s = &e->s;
	uint32_t segs = (uint32_t)((d->end - d->start + e->c->mss - 1) / e->c->mss);

	s->spurious += segs;
	s->rack_dsack_seen = true;
	if (s->undo_valid && s->undo_retrans > 0 && d->end <= prior_una)
		s->undo_retrans = s->undo_retrans > (int32_t)segs ? s->undo_retrans - (int32_t)segs : 0;
}

/* Returns whether the ack carried a D-SACK. */
static bool sacktag(struct end *e, uint64_t now, uint64_t ack, const struct in_seg *in, uint64_t prior_fack,
		    struct rate_sample *rs, struct ack_acc *acc)
{
	struct sender *s = &e->s;
	struct range b[4];
	int first = 0, n = 0;
	bool dsack = false;

	for (int i = 0; i < in->n_sack; i++) {
		b[n].start = unwrap(s->una, in->sack[i][0]);
		b[n].end = unwrap(s->una, in->sack[i][1]);
		n += b[n].end > b[n].start;
	}
	if (n && (b[0].start < ack || (n > 1 && b[0].start >= b[1].start && b[0].end <= b[1].end))) {
		on_dsack(e, &b[0], s->una);
		dsack = true;
		first = 1;
	}
	for (int i = first; i < n; i++)
		tag_block(s, max64(b[i].start, s->una), min64(b[i].end, s->nxt), now, prior_fack, rs, acc);
	s->n_cache = 0;
	for (int i = first; i < n; i++)
		s->cache[s->n_cache++] = b[i];
	return dsack;
}

/* The cumulative ack: segments wholly below it leave the scoreboard. */
static void clean_acked(struct sender *s, uint64_t ack, uint64_t now, uint64_t prior_fack, struct rate_sample *rs,
			struct ack_acc *acc)
{
	while (s->una_s < s->nxt_s) {
		uint64_t sn = s->una_s;
		struct seg *g = seg_at(s, sn);

		if (g->seq + g->len > ack)
			break;
		if (!(g->flags & SEG_SACKED)) {
			if (!(g->flags & SEG_EVER_RETRANS)) {
				if (!acc->seq_xmit)
					acc->seq_xmit = g->xmit_ns;
				if (g->seq < prior_fack && g->seq < acc->reord_low)
					acc->reord_low = g->seq;
			}
			delivered_one(s, g, now, rs, acc);
			ts_unlink(s, sn);
		}
		seg_set(s, sn, 0);
		s->una_s++;
	}
	s->una = ack;
	s->fack = max64(s->fack, ack);
	s->retx_hint = max64(s->retx_hint, s->una_s);
}

/*
 * A segment delivered after later ones, never resent: the path reorders, by that many segments
 * (tcp_check_sack_reordering).
 */
static void check_reordering(struct end *e, uint64_t low, uint64_t fack)
{
	struct sender *s = &e->s;
	uint64_t metric;

	if (low >= fack)
		return;
	metric = fack - low;
	if (metric > (uint64_t)s->reordering * e->c->mss)
		s->reordering = (uint32_t)min64((metric + e->c->mss - 1) / e->c->mss, MAX_REORDERING);
	s->reord_seen++;
}

/* RFC 6298's estimator; the RTO as Linux computes it: srtt + max(4 rttvar, 200 ms). */
static void rtt_estimator(struct end *e, uint64_t now, uint64_t m)
{
	struct sender *s = &e->s;

	if (!s->srtt) {
		s->srtt = m;
		s->rttvar = m / 2;
	} else {
		uint64_t err = m > s->srtt ? m - s->srtt : s->srtt - m;

		s->rttvar = (3 * s->rttvar + err) / 4;
		s->srtt = (7 * s->srtt + m) / 8;
	}
	s->rto = min64(s->srtt + max64(4 * s->rttvar, RTO_MIN), RTO_MAX);
	s->backoff = 0;
	if (now >= e->c->p.measure_from) {
		s->srtt_sum += (double)s->srtt;
		s->srtt_n++;
	}
}

static void rtt_update(struct end *e, uint64_t now, const struct ack_acc *acc, uint32_t tsecr, bool acked,
		       struct rate_sample *rs)
{
	struct sender *s = &e->s;
	int64_t seq_rtt = acc->seq_xmit ? (int64_t)(now - acc->seq_xmit) : -1;
	int64_t ca_rtt = acc->newest_xmit ? (int64_t)(now - acc->newest_xmit) : -1;

	if (seq_rtt < 0 && acc->sack_xmit)
		seq_rtt = (int64_t)(now - acc->sack_xmit);
	if (seq_rtt < 0 && tsecr && acked) { /* only resent segments acked: the timestamp echo tells */
		int32_t d = (int32_t)(ts_of(now) - tsecr);

		if (d > 0)
			seq_rtt = ca_rtt = (int64_t)d * 1000;
	}
	rs->rtt_ns = ca_rtt;
	if (ca_rtt > 0 && (uint64_t)ca_rtt < s->min_rtt)
		s->min_rtt = (uint64_t)ca_rtt;
	if (seq_rtt > 0)
		rtt_estimator(e, now, (uint64_t)seq_rtt);
	if (acked && e->c->cc->pkts_acked)
		e->c->cc->pkts_acked(e, now, ca_rtt);
}

/* The delivery rate of this ack's sample (tcp_rate_gen). */
static void rate_gen(struct sender *s, uint64_t now, uint32_t delivered, uint32_t lost, struct rate_sample *rs)
{
	uint64_t ack_interval;

	if (s->app_limited && s->delivered > s->app_limited)
		s->app_limited = 0;
	if (delivered)
		s->delivered_ns = now;
	rs->acked_sacked = delivered;
	rs->losses = lost;
	if (!rs->has_prior) {
		rs->delivered = rs->interval_ns = -1;
		return;
	}
	rs->delivered = (int64_t)(s->delivered - rs->prior_delivered);
	ack_interval = now - rs->prior_ns;
	rs->interval_ns = (int64_t)max64(rs->send_interval, ack_interval);
	if (s->min_rtt != UINT64_MAX && (uint64_t)rs->interval_ns < s->min_rtt)
		rs->interval_ns = -1; /* shorter than an RTT: ack compression, not a rate */
}

/* ---- the sender: recovery ------------------------------------------------------------ */

static void set_state(struct end *e, enum ca_state st)
{
	if (e->c->cc->set_state)
		e->c->cc->set_state(e, st);
	e->s.state = st;
}

static uint32_t current_ssthresh(const struct sender *s)
{
	if (s->state == CA_RECOVERY)
		return s->ssthresh;
	return (uint32_t)max64(s->ssthresh, (s->cwnd >> 1) + (s->cwnd >> 2));
}

static void init_undo(struct sender *s)
{
	s->undo_valid = true;
	s->undo_retrans = s->retrans_out ? (int32_t)s->retrans_out : -1;
}

/* Fast recovery: one window reduction per episode, then PRR spreads the retransmissions over the acks. */
static void enter_recovery(struct end *e)
{
	struct sender *s = &e->s;

	s->recoveries++;
	s->prior_ssthresh = 0;
	init_undo(s);
	if (s->state != CA_RECOVERY) {
		s->prior_ssthresh = current_ssthresh(s);
		s->high_seq = s->nxt;
		s->tlp_high_seq = 0;
		s->cwnd_cnt = 0;
		s->prior_cwnd = s->cwnd;
		s->prr_delivered = s->prr_out = 0;
		s->ssthresh = e->c->cc->ssthresh(e);
	}
	set_state(e, CA_RECOVERY);
}

static bool any_retrans_done(const struct sender *s)
{
	return s->retrans_out || (packets_out(s) && (seg_at(s, s->una_s)->flags & SEG_EVER_RETRANS));
}

/* The resends were not needed: every one D-SACKed, or the ack echoes a timestamp older than the first resend. */
static bool may_undo(const struct sender *s, uint32_t tsecr)
{
	bool delayed = s->retrans_stamp && tsecr && (int32_t)(tsecr - s->retrans_stamp) < 0;

	return s->undo_valid && (s->undo_retrans == 0 || delayed);
}

static void undo_cwnd_reduction(struct end *e, bool unmark_loss)
{
	struct sender *s = &e->s;

	if (unmark_loss)
		for (uint64_t sn = s->una_s; sn < s->nxt_s; sn++)
			seg_set(s, sn, seg_at(s, sn)->flags & ~(uint32_t)SEG_LOST);
	if (s->prior_ssthresh) {
		s->cwnd = e->c->cc->undo_cwnd(e);
		s->ssthresh = (uint32_t)max64(s->ssthresh, s->prior_ssthresh);
	}
	s->undo_valid = false;
	s->rack_advanced = true; /* look at the losses again */
	s->undos++;
}

static void try_keep_open(struct end *e)
{
	struct sender *s = &e->s;
	enum ca_state st = s->sacked_out + s->lost_out || any_retrans_done(s) ? CA_DISORDER : CA_OPEN;

	if (!any_retrans_done(s))
		s->retrans_stamp = 0;
	if (s->state != st) {
		set_state(e, st);
		s->high_seq = s->nxt;
	}
}

/*
 * The recovery point is acked: undo if the episode was spurious, else the window is ssthresh
 * (tcp_try_undo_recovery, tcp_end_cwnd_reduction).
 */
static void end_recovery(struct end *e, uint32_t tsecr)
{
	struct sender *s = &e->s;
	bool was_recovery = s->state == CA_RECOVERY;

	if (may_undo(s, tsecr))
		undo_cwnd_reduction(e, false);
	else if (s->reo_persist)
		s->reo_persist--;
	if (was_recovery && s->undo_valid && !e->c->cc->cong_control && s->ssthresh < INF_SSTHRESH)
		s->cwnd = s->ssthresh;
	set_state(e, CA_OPEN);
}

static bool try_undo_dsack(struct end *e)
{
	if (!e->s.undo_valid || e->s.undo_retrans)
		return false;
	undo_cwnd_reduction(e, false);
	return true;
}

/* Linux's tcp_fastretrans_alert, for a SACK sender with RACK; returns whether RACK set its timer. */
static bool fastretrans_alert(struct end *e, uint64_t now, uint64_t prior_una, bool dsack, uint32_t tsecr)
{
	struct sender *s = &e->s;
	bool reo;

	if (s->state == CA_OPEN && !s->retrans_out)
		s->retrans_stamp = 0;
	else if (s->state == CA_RECOVERY && s->una >= s->high_seq)
		end_recovery(e, tsecr);
	switch (s->state) {
	case CA_RECOVERY:
		if (dsack && try_undo_dsack(e)) {
			try_keep_open(e);
			return false;
		}
		return rack_mark_lost(e, now);
	case CA_LOSS:
		if (s->una > prior_una && may_undo(s, tsecr)) { /* the timeout was spurious (Eifel) */
			undo_cwnd_reduction(e, true);
			set_state(e, CA_OPEN);
			return false;
		}
		if (s->una >= s->high_seq) {
			end_recovery(e, tsecr);
			return false;
		}
		return rack_mark_lost(e, now);
	default:
		if (dsack)
			try_undo_dsack(e);
		reo = rack_mark_lost(e, now);
		if (!s->lost_out)
			try_keep_open(e);
		else
			enter_recovery(e);
		return reo;
	}
}

/* Proportional rate reduction (RFC 6937, as tcp_cwnd_reduction). */
static void prr(struct sender *s, uint32_t acked_sacked, uint32_t newly_lost, bool una_advanced)
{
	int64_t sndcnt, delta = (int64_t)s->ssthresh - in_flight(s);

	if (!acked_sacked || !s->prior_cwnd)
		return;
	s->prr_delivered += acked_sacked;
	if (delta < 0) {
		uint64_t dividend = (uint64_t)s->ssthresh * s->prr_delivered + s->prior_cwnd - 1;

		sndcnt = (int64_t)(dividend / s->prior_cwnd) - s->prr_out;
	} else if (una_advanced && !newly_lost) {
		int64_t m = (int64_t)s->prr_delivered - s->prr_out;

		sndcnt = (m > acked_sacked ? m : acked_sacked) + 1;
		sndcnt = sndcnt < delta ? sndcnt : delta;
	} else {
		sndcnt = acked_sacked < delta ? acked_sacked : delta;
	}
	if (sndcnt < (s->prr_out ? 0 : 1))
		sndcnt = s->prr_out ? 0 : 1;
	s->cwnd = in_flight(s) + (uint32_t)sndcnt;
}

/* The probe's ack: if it repaired a loss, the window comes down once (tcp_process_tlp_ack). */
static void process_tlp_ack(struct end *e, uint64_t ack, bool dsack, bool progress)
{
	struct sender *s = &e->s;

	if (ack < s->tlp_high_seq)
		return;
	if (!s->tlp_retrans || dsack) {
		s->tlp_high_seq = 0;
	} else if (ack > s->tlp_high_seq) {
		s->tlp_high_seq = 0;
		if (!e->c->cc->cong_control) {
			s->ssthresh = e->c->cc->ssthresh(e);
			s->cwnd = s->ssthresh;
			s->cwnd_cnt = 0;
		}
	} else if (!progress) {
		s->tlp_high_seq = 0;
	}
}

static void cong_control(struct end *e, uint64_t now, const struct rate_sample *rs, bool una_advanced)
{
	struct sender *s = &e->s;

	if (e->c->cc->cong_control)
		e->c->cc->cong_control(e, now, rs);
	else if (s->state == CA_RECOVERY)
		prr(s, rs->acked_sacked, rs->losses, una_advanced);
	else if (rs->acked_sacked && (una_advanced || s->reordering > DUPTHRESH))
		e->c->cc->cong_avoid(e, now, rs->acked_sacked);
}

static void on_ack(struct end *e, uint64_t now, const struct in_seg *in)
{
	struct sender *s = &e->s;
	struct rate_sample rs = { .delivered = -1, .interval_ns = -1, .rtt_ns = -1 };
	struct ack_acc acc = { .reord_low = UINT64_MAX };
	uint64_t ack = unwrap(s->una, in->ack), prior_una = s->una, prior_fack = s->fack;
	uint64_t prior_delivered = s->delivered, prior_lost = s->lost_total;
	bool dsack = false, reo;

	if (ack < s->una || ack > s->nxt)
		return; /* the path keeps the order: this does not happen */
	s->wnd_edge = ack + in->wnd;
	if (!packets_out(s))
		return; /* nothing outstanding: only the window (Linux's no_queue) */
	rs.prior_in_flight = in_flight(s);
	if (in->n_sack)
		dsack = sacktag(e, now, ack, in, prior_fack, &rs, &acc);
	if (ack > s->una)
		clean_acked(s, ack, now, prior_fack, &rs, &acc);
	if (acc.reord_low != UINT64_MAX)
		check_reordering(e, acc.reord_low, prior_fack);
	rtt_update(e, now, &acc, in->tsecr, ack > prior_una, &rs);
	rack_update_reo_wnd(s, &rs);
	if (s->tlp_high_seq)
		process_tlp_ack(e, ack, dsack, ack > prior_una || s->delivered > prior_delivered);
	reo = fastretrans_alert(e, now, prior_una, dsack, in->tsecr);
	if (ack > prior_una && !reo)
		set_xmit_timer(e, now);
	rate_gen(s, now, (uint32_t)(s->delivered - prior_delivered), (uint32_t)(s->lost_total - prior_lost), &rs);
	cong_control(e, now, &rs, ack > prior_una);
	if (!packets_out(s))
		set_timer(s, TIMER_NONE, 0);
}

/* ---- the sender: timer expiry ----------------------------------------------------------- */

/* The retransmission timeout: everything not SACKed is lost, the window is one segment (tcp_enter_loss). */
static void retransmit_timeout(struct end *e, uint64_t now)
{
	struct sender *s = &e->s;

	s->rtos++;
	if (s->state <= CA_DISORDER || s->una >= s->high_seq || (s->state == CA_LOSS && !s->backoff)) {
		s->prior_ssthresh = current_ssthresh(s);
		s->prior_cwnd = s->cwnd;
		s->ssthresh = e->c->cc->ssthresh(e);
		init_undo(s);
	}
	for (uint64_t sn = s->una_s; sn < s->nxt_s; sn++) {
		uint32_t f = seg_at(s, sn)->flags;

		if (!(f & SEG_SACKED)) {
			if (!(f & SEG_LOST))
				s->lost_total++;
			seg_set(s, sn, (f | SEG_LOST) & ~(uint32_t)SEG_RETRANS);
			ts_unlink(s, sn);
		}
	}
	s->cwnd = in_flight(s) + 1;
	s->cwnd_cnt = 0;
	s->high_seq = s->nxt;
	s->tlp_high_seq = 0;
	set_state(e, CA_LOSS);
	retransmit(e, now, s->una_s);
	s->backoff++;
	set_timer(s, TIMER_RTO, now + rto_now(s));
}

/* RACK's timer: what it waited for is lost now (tcp_rack_reo_timeout). */
static void reo_timeout(struct end *e, uint64_t now)
{
	struct sender *s = &e->s;
	uint32_t prior = in_flight(s);
	uint64_t lost = s->lost_total;

	rack_detect_loss(e, now);
	if (prior != in_flight(s)) {
		if (s->state != CA_RECOVERY) {
			enter_recovery(e);
			if (!e->c->cc->cong_control)
				prr(s, 1, (uint32_t)(s->lost_total - lost), false);
		}
		push(e, now);
	}
	if (s->timer != TIMER_RTO)
		rearm_rto(e, now);
}

/* The tail loss probe: new data if the window allows, else the last segment again. */
static void loss_probe(struct end *e, uint64_t now)
{
	struct sender *s = &e->s;
	uint32_t len;

	if (s->tlp_high_seq) {
		rearm_rto(e, now);
		return;
	}
	s->tlp_retrans = false;
	if (can_send_new(e, &len)) {
		send_new(e, now, len);
	} else if (packets_out(s)) {
		retransmit(e, now, s->nxt_s - 1);
		s->tlp_retrans = true;
	} else {
		rearm_rto(e, now);
		return;
	}
	s->tlp_high_seq = s->nxt;
	s->tlps++;
	s->timer = TIMER_NONE;
	rearm_rto(e, now);
}

static void fire_timer(struct end *e, uint64_t now)
{
	struct sender *s = &e->s;
	enum timer_kind kind = s->timer;

	set_timer(s, TIMER_NONE, 0);
	if (!packets_out(s))
		return;
	if (kind == TIMER_RTO)
		retransmit_timeout(e, now);
	else if (kind == TIMER_REO)
		reo_timeout(e, now);
	else if (kind == TIMER_TLP)
		loss_probe(e, now);
}

/* ---- NewReno and CUBIC ------------------------------------------------------------------ */

/* Slow start: one segment per segment acked, up to ssthresh; returns the acks left over. */
static uint32_t slow_start(struct sender *s, uint32_t acked)
{
	uint32_t cwnd = (uint32_t)min64((uint64_t)s->cwnd + acked, s->ssthresh);

	acked -= cwnd - s->cwnd;
	s->cwnd = cwnd;
	return acked;
}

/* One segment more per w segments acked (tcp_cong_avoid_ai). */
static void cong_avoid_ai(struct sender *s, uint32_t w, uint32_t acked)
{
	if (s->cwnd_cnt >= w) {
		s->cwnd_cnt = 0;
		s->cwnd++;
	}
	s->cwnd_cnt += acked;
	if (s->cwnd_cnt >= w) {
		uint32_t delta = s->cwnd_cnt / w;

		s->cwnd_cnt -= delta * w;
		s->cwnd += delta;
	}
}

static void reno_init(struct end *e, uint64_t now)
{
	(void)e;
	(void)now;
}

static uint32_t reno_ssthresh(struct end *e)
{
	return (uint32_t)max64(e->s.cwnd >> 1, 2);
}

static void reno_cong_avoid(struct end *e, uint64_t now, uint32_t acked)
{
	struct sender *s = &e->s;

	(void)now;
	if (!cwnd_limited(s))
		return;
	if (s->cwnd < s->ssthresh && !(acked = slow_start(s, acked)))
		return;
	cong_avoid_ai(s, s->cwnd, acked);
}

static uint32_t reno_undo_cwnd(struct end *e)
{
	return (uint32_t)max64(e->s.cwnd, e->s.prior_cwnd);
}

static const struct cc_ops newreno_ops = {
	.init = reno_init, .ssthresh = reno_ssthresh, .cong_avoid = reno_cong_avoid, .undo_cwnd = reno_undo_cwnd,
};

#define CUBIC_BETA 0.7
#define CUBIC_C 0.4
#define CUBIC_BETA_SCALE 15 /* 8 (1 + beta) / 3 / (1 - beta), for the Reno-friendly estimate */
#define HYSTART_LOW_WINDOW 16
#define HYSTART_MIN_SAMPLES 8
#define HYSTART_ACK_DELTA (2 * MS)

static void hystart_reset(struct end *e, uint64_t now)
{
	struct cubic *ca = &e->s.cc.cubic;

	ca->round_start = ca->last_ack = now;
	ca->end_seq = e->s.nxt;
	ca->curr_rtt = UINT64_MAX;
	ca->sample_cnt = 0;
}

static void cubic_reset(struct end *e, uint64_t now)
{
	memset(&e->s.cc.cubic, 0, sizeof(e->s.cc.cubic));
	hystart_reset(e, now);
}

static void cubic_init(struct end *e, uint64_t now)
{
	cubic_reset(e, now);
}

static uint32_t cubic_ssthresh(struct end *e)
{
	struct cubic *ca = &e->s.cc.cubic;
	uint32_t cwnd = e->s.cwnd;

	ca->epoch_start = 0;
	/* fast convergence: below the last maximum, leave room for a newcomer */
	ca->last_max_cwnd = cwnd < ca->last_max_cwnd ? (uint32_t)(cwnd * (1 + CUBIC_BETA) / 2) : cwnd;
	return (uint32_t)max64((uint64_t)(cwnd * CUBIC_BETA), 2);
}

/* The window's target on the cubic curve one RTT ahead, as acks per segment of growth (bictcp_update). */
static void cubic_update(struct end *e, uint64_t now, uint32_t acked)
{
	struct cubic *ca = &e->s.cc.cubic;
	uint32_t cwnd = e->s.cwnd;
	uint64_t target;
	double t, offs, delta;

	ca->ack_cnt += acked;
	if (ca->last_cwnd == cwnd && now - ca->last_time <= SEC / 32)
		return;
	ca->last_cwnd = cwnd;
	ca->last_time = now;
	if (!ca->epoch_start) {
		ca->epoch_start = now;
		ca->ack_cnt = acked;
		ca->tcp_cwnd = cwnd;
		if (ca->last_max_cwnd <= cwnd) {
			ca->k = 0;
			ca->origin = cwnd;
		} else {
			ca->k = cbrt((ca->last_max_cwnd - cwnd) / CUBIC_C);
			ca->origin = ca->last_max_cwnd;
		}
	}
	t = (double)(now - ca->epoch_start + ca->delay_min) / 1e9;
	offs = t < ca->k ? ca->k - t : t - ca->k;
	delta = fmin(CUBIC_C * offs * offs * offs, 1e9); /* whole segments, as Linux's fixed point */
	target = t < ca->k ? (delta < ca->origin ? ca->origin - (uint64_t)delta : 0) : ca->origin + (uint64_t)delta;
	ca->cnt = target > cwnd ? (uint32_t)(cwnd / (target - cwnd)) : 100 * cwnd;
	if (!ca->last_max_cwnd && ca->cnt > 20)
		ca->cnt = 20; /* before any loss: at least 5% per RTT */
	{
		/* TCP-friendliness: never slower than Reno with the same beta would be */
		uint32_t step = (cwnd * CUBIC_BETA_SCALE) >> 3;

		while (step && ca->ack_cnt > step) {
			ca->ack_cnt -= step;
			ca->tcp_cwnd++;
		}
		if (ca->tcp_cwnd > cwnd) {
			uint32_t max_cnt = cwnd / (ca->tcp_cwnd - cwnd);

			if (ca->cnt > max_cnt)
				ca->cnt = max_cnt;
		}
	}
	if (ca->cnt < 2)
		ca->cnt = 2;
}

static void cubic_cong_avoid(struct end *e, uint64_t now, uint32_t acked)
{
	struct sender *s = &e->s;

	if (!cwnd_limited(s))
		return;
	if (s->cwnd < s->ssthresh) {
		if (s->una > s->cc.cubic.end_seq)
			hystart_reset(e, now);
		if (!(acked = slow_start(s, acked)))
			return;
	}
	cubic_update(e, now, acked);
	cong_avoid_ai(s, s->cc.cubic.cnt, acked);
}

/*
 * HyStart: leave slow start when the acks of a round span half the minimum RTT, or the RTT grows
 * by an eighth (4 to 16 ms).
 */
static void hystart_update(struct end *e, uint64_t now, uint64_t delay)
{
	struct cubic *ca = &e->s.cc.cubic;
	struct sender *s = &e->s;
	uint64_t thresh;

	if (now - ca->last_ack <= HYSTART_ACK_DELTA) {
		ca->last_ack = now;
		if (now - ca->round_start > (ca->delay_min + MS) / 2) {
			ca->found = true;
			s->ssthresh = s->cwnd;
		}
	}
	if (ca->curr_rtt > delay)
		ca->curr_rtt = delay;
	if (ca->sample_cnt < HYSTART_MIN_SAMPLES) {
		ca->sample_cnt++;
		return;
	}
	thresh = min64(max64(ca->delay_min / 8, 4 * MS), 16 * MS);
	if (ca->curr_rtt > ca->delay_min + thresh) {
		ca->found = true;
		s->ssthresh = s->cwnd;
	}
}

static void cubic_pkts_acked(struct end *e, uint64_t now, int64_t rtt_ns)
{
	struct cubic *ca = &e->s.cc.cubic;
	uint64_t delay;

	if (rtt_ns < 0)
		return;
	if (ca->epoch_start && now - ca->epoch_start < SEC)
		return; /* just after a recovery: the queue's delay misleads */
	delay = rtt_ns ? (uint64_t)rtt_ns : 1;
	if (!ca->delay_min || ca->delay_min > delay)
		ca->delay_min = delay;
	if (!ca->found && e->s.cwnd < e->s.ssthresh && e->s.cwnd >= HYSTART_LOW_WINDOW)
		hystart_update(e, now, delay);
}

static void cubic_set_state(struct end *e, enum ca_state st)
{
	if (st == CA_LOSS)
		cubic_reset(e, e->c->now);
}

/* Idle time does not count on the curve. */
static void cubic_tx_start(struct end *e, uint64_t now)
{
	struct cubic *ca = &e->s.cc.cubic;

	if (ca->epoch_start && now > e->s.last_send_ns) {
		ca->epoch_start += now - e->s.last_send_ns;
		if (ca->epoch_start > now)
			ca->epoch_start = now;
	}
}

static const struct cc_ops cubic_ops = {
	.init = cubic_init, .ssthresh = cubic_ssthresh, .cong_avoid = cubic_cong_avoid, .pkts_acked = cubic_pkts_acked,
	.set_state = cubic_set_state, .tx_start = cubic_tx_start, .undo_cwnd = reno_undo_cwnd,
};

/* ---- BBR (v1, as tcp_bbr.c) ------------------------------------------------------------- */

#define BBR_HIGH_GAIN 2.885 /* 2/ln 2: the smallest gain that doubles the delivery rate each round */
#define BBR_DRAIN_GAIN (1 / BBR_HIGH_GAIN)
#define BBR_CWND_GAIN 2.0
#define BBR_CYCLE_LEN 8
#define BBR_BW_ROUNDS 10
#define BBR_MIN_RTT_WIN (10 * SEC)
#define BBR_PROBE_RTT_TIME (200 * MS)
#define BBR_CWND_MIN 4
#define BBR_EXTRA_ACKED_ROUNDS 5
#define BBR_EXTRA_ACKED_MAX (100 * MS)

static const double bbr_pacing_gain[BBR_CYCLE_LEN] = { 1.25, 0.75, 1, 1, 1, 1, 1, 1 };

static void minmax_reset(struct minmax *m, uint64_t t, double v)
{
	for (int i = 0; i < 3; i++) {
		m->s[i].t = t;
		m->s[i].v = v;
	}
}

/*
 * A new sample at t. The estimate only ages when samples come: rounds
 * without one (BBR skips application-limited ones) leave it as it was.
 */
static void minmax_running_max(struct minmax *m, uint64_t win, uint64_t t, double v)
{
	uint64_t dt;

	if (v >= m->s[0].v || t - m->s[2].t > win) {
		minmax_reset(m, t, v);
		return;
	}
	if (v >= m->s[1].v) {
		m->s[2].t = m->s[1].t = t;
		m->s[2].v = m->s[1].v = v;
	} else if (v >= m->s[2].v) {
		m->s[2].t = t;
		m->s[2].v = v;
	}
	dt = t - m->s[0].t;
	if (dt > win) {
		m->s[0] = m->s[1];
		m->s[1] = m->s[2];
		m->s[2].t = t;
		m->s[2].v = v;
		if (t - m->s[0].t > win) {
			m->s[0] = m->s[1];
			m->s[1] = m->s[2];
		}
	} else if (m->s[1].t == m->s[0].t && dt > win / 4) {
		m->s[2].t = m->s[1].t = t;
		m->s[2].v = m->s[1].v = v;
	} else if (m->s[2].t == m->s[1].t && dt > win / 2) {
		m->s[2].t = t;
		m->s[2].v = v;
	}
}

static double bbr_max_bw(const struct bbr *b)
{
	return b->bw.s[0].v;
}

/* Segments the path holds at bw, times gain; the initial window before any RTT. */
static uint32_t bbr_bdp(const struct bbr *b, double bw, double gain)
{
	if (b->min_rtt == UINT64_MAX)
		return INIT_CWND;
	return (uint32_t)ceil(bw * (double)b->min_rtt / 1e9 * gain);
}

static uint32_t bbr_tso_segs_goal(const struct end *e)
{
	uint64_t bytes = min64((uint64_t)e->s.pacing_rate >> 10, 65536 - 1 - 320);
	uint64_t segs = max64(bytes / e->c->mss, e->s.pacing_rate < 1200000 / 8 ? 1 : 2);

	return (uint32_t)min64(segs, 127);
}

/* Room for the sender's and the receiver's batching (bbr_quantization_budget). */
static uint32_t bbr_quantization_budget(const struct end *e, uint32_t cwnd)
{
	const struct bbr *b = &e->s.cc.bbr;

	cwnd += 3 * bbr_tso_segs_goal(e);
	cwnd = (cwnd + 1) & ~1u;
	if (b->mode == BBR_PROBE_BW && b->cycle_idx == 0)
		cwnd += 2;
	return cwnd;
}

static uint32_t bbr_inflight(const struct end *e, double bw, double gain)
{
	return bbr_quantization_budget(e, bbr_bdp(&e->s.cc.bbr, bw, gain));
}

static double bbr_rate(const struct end *e, double bw, double gain)
{
	return bw * e->c->mss * gain * 0.99; /* 1% under the estimate, to keep the queue empty */
}

static void bbr_init_pacing_rate(struct end *e)
{
	struct sender *s = &e->s;
	double rtt = s->srtt ? (double)s->srtt : (double)MS;

	if (s->srtt)
		s->cc.bbr.has_seen_rtt = true;
	s->pacing_rate = bbr_rate(e, s->cwnd * 1e9 / rtt, BBR_HIGH_GAIN);
}

static void bbr_set_pacing_rate(struct end *e, double bw, double gain)
{
	struct bbr *b = &e->s.cc.bbr;
	double rate = bbr_rate(e, bw, gain);

	if (!b->has_seen_rtt && e->s.srtt)
		bbr_init_pacing_rate(e);
	if (b->full_bw_reached || rate > e->s.pacing_rate)
		e->s.pacing_rate = rate;
}

static void bbr_init(struct end *e, uint64_t now)
{
	struct bbr *b = &e->s.cc.bbr;

	memset(b, 0, sizeof(*b));
	b->min_rtt = UINT64_MAX;
	b->min_rtt_stamp = now;
	b->next_rtt_delivered = e->s.delivered;
	b->ack_epoch_stamp = now;
	b->mode = BBR_STARTUP;
	bbr_init_pacing_rate(e);
}

static void bbr_advance_cycle_phase(struct end *e)
{
	struct bbr *b = &e->s.cc.bbr;

	b->cycle_idx = (b->cycle_idx + 1) % BBR_CYCLE_LEN;
	b->cycle_stamp = e->s.delivered_ns;
}

/* The gain cycle starts at a random phase, never the draining one. */
static void bbr_reset_probe_bw(struct end *e)
{
	struct bbr *b = &e->s.cc.bbr;

	b->mode = BBR_PROBE_BW;
	b->cycle_idx = BBR_CYCLE_LEN - 1 - (int)(prng_next(&e->c->rng) % (BBR_CYCLE_LEN - 1));
	bbr_advance_cycle_phase(e);
}

static void bbr_reset_mode(struct end *e)
{
	if (!e->s.cc.bbr.full_bw_reached)
		e->s.cc.bbr.mode = BBR_STARTUP;
	else
		bbr_reset_probe_bw(e);
}

static void bbr_save_cwnd(struct end *e)
{
	struct bbr *b = &e->s.cc.bbr;

	if (b->prev_ca_state < CA_RECOVERY && b->mode != BBR_PROBE_RTT)
		b->prior_cwnd = e->s.cwnd;
	else
		b->prior_cwnd = (uint32_t)max64(b->prior_cwnd, e->s.cwnd);
}

static void bbr_update_bw(struct end *e, const struct rate_sample *rs)
{
	struct bbr *b = &e->s.cc.bbr;
	double bw;

	b->round_start = false;
	if (rs->delivered < 0 || rs->interval_ns <= 0)
		return;
	if (rs->prior_delivered >= b->next_rtt_delivered) {
		b->next_rtt_delivered = e->s.delivered;
		b->round_count++;
		b->round_start = true;
		b->packet_conservation = false;
	}
	bw = (double)rs->delivered * 1e9 / (double)rs->interval_ns;
	if (!rs->is_app_limited || bw >= bbr_max_bw(b))
		minmax_running_max(&b->bw, BBR_BW_ROUNDS, b->round_count, bw);
}

/* How much more the acks bring than the rate explains: the cwnd keeps that much more, for aggregating paths. */
static void bbr_update_ack_aggregation(struct end *e, uint64_t now, const struct rate_sample *rs)
{
	struct bbr *b = &e->s.cc.bbr;
	double expected;
	uint32_t extra;

	if (!rs->acked_sacked || rs->delivered < 0 || rs->interval_ns <= 0)
		return;
	if (b->round_start) {
		b->extra_win_rtts = b->extra_win_rtts < 0x1f ? b->extra_win_rtts + 1 : 0x1f;
		if (b->extra_win_rtts >= BBR_EXTRA_ACKED_ROUNDS) {
			b->extra_win_rtts = 0;
			b->extra_idx = !b->extra_idx;
			b->extra_acked[b->extra_idx] = 0;
		}
	}
	expected = bbr_max_bw(b) * (double)(now - b->ack_epoch_stamp) / 1e9;
	if (b->ack_epoch_acked <= expected || b->ack_epoch_acked + rs->acked_sacked >= (1u << 20)) {
		b->ack_epoch_acked = 0;
		b->ack_epoch_stamp = now;
		expected = 0;
	}
	b->ack_epoch_acked = (uint32_t)min64((uint64_t)b->ack_epoch_acked + rs->acked_sacked, 0xfffff);
	extra = b->ack_epoch_acked > expected ? (uint32_t)(b->ack_epoch_acked - expected) : 0;
	extra = (uint32_t)min64(extra, e->s.cwnd);
	if (extra > b->extra_acked[b->extra_idx])
		b->extra_acked[b->extra_idx] = extra;
}

static uint32_t bbr_ack_aggregation_cwnd(const struct end *e)
{
	const struct bbr *b = &e->s.cc.bbr;
	uint32_t aggr, max_aggr;

	if (!b->full_bw_reached)
		return 0;
	max_aggr = (uint32_t)(bbr_max_bw(b) * (double)BBR_EXTRA_ACKED_MAX / 1e9);
	aggr = b->extra_acked[0] > b->extra_acked[1] ? b->extra_acked[0] : b->extra_acked[1];
	return aggr < max_aggr ? aggr : max_aggr;
}

static bool bbr_is_next_cycle_phase(const struct end *e, const struct rate_sample *rs)
{
	const struct bbr *b = &e->s.cc.bbr;
	bool full_length = e->s.delivered_ns - b->cycle_stamp > b->min_rtt;
	double gain = b->pacing_gain, bw = bbr_max_bw(b);

	if (gain == 1)
		return full_length;
	if (gain > 1)
		return full_length && (rs->losses || rs->prior_in_flight >= bbr_inflight(e, bw, gain));
	return full_length || rs->prior_in_flight <= bbr_inflight(e, bw, 1);
}

/* Startup ends when three rounds in a row did not raise the bandwidth by a quarter. */
static void bbr_check_full_bw_reached(struct end *e, const struct rate_sample *rs)
{
	struct bbr *b = &e->s.cc.bbr;
	double bw = bbr_max_bw(b);

	if (b->full_bw_reached || !b->round_start || rs->is_app_limited)
		return;
	if (bw >= b->full_bw * 1.25) {
		b->full_bw = bw;
		b->full_bw_cnt = 0;
		return;
	}
	b->full_bw_reached = ++b->full_bw_cnt >= 3;
}

static void bbr_check_drain(struct end *e)
{
	struct bbr *b = &e->s.cc.bbr;

	if (b->mode == BBR_STARTUP && b->full_bw_reached) {
		b->mode = BBR_DRAIN;
		e->s.ssthresh = bbr_inflight(e, bbr_max_bw(b), 1);
	}
	if (b->mode == BBR_DRAIN && in_flight(&e->s) <= bbr_inflight(e, bbr_max_bw(b), 1))
		bbr_reset_probe_bw(e);
}

static void bbr_check_probe_rtt_done(struct end *e, uint64_t now)
{
	struct bbr *b = &e->s.cc.bbr;

	if (!b->probe_rtt_done || now <= b->probe_rtt_done)
		return;
	b->min_rtt_stamp = now;
	e->s.cwnd = (uint32_t)max64(e->s.cwnd, b->prior_cwnd);
	bbr_reset_mode(e);
}

/* The minimum RTT expires after 10 s: then 200 ms and a round at four segments, to see it again. */
static void bbr_update_min_rtt(struct end *e, uint64_t now, const struct rate_sample *rs)
{
	struct bbr *b = &e->s.cc.bbr;
	struct sender *s = &e->s;
	bool expired = now > b->min_rtt_stamp + BBR_MIN_RTT_WIN;

	if (rs->rtt_ns >= 0 && ((uint64_t)rs->rtt_ns < b->min_rtt || expired)) {
		b->min_rtt = (uint64_t)rs->rtt_ns;
		b->min_rtt_stamp = now;
	}
	if (expired && !b->idle_restart && b->mode != BBR_PROBE_RTT) {
		b->mode = BBR_PROBE_RTT;
		bbr_save_cwnd(e);
		b->probe_rtt_done = 0;
	}
	if (b->mode == BBR_PROBE_RTT) {
		s->app_limited = max64(s->delivered + in_flight(s), 1);
		if (!b->probe_rtt_done && in_flight(s) <= BBR_CWND_MIN) {
			b->probe_rtt_done = now + BBR_PROBE_RTT_TIME;
			b->probe_rtt_round_done = false;
			b->next_rtt_delivered = s->delivered;
		} else if (b->probe_rtt_done) {
			if (b->round_start)
				b->probe_rtt_round_done = true;
			if (b->probe_rtt_round_done)
				bbr_check_probe_rtt_done(e, now);
		}
	}
	if (rs->delivered > 0)
		b->idle_restart = false;
}

static void bbr_update_gains(struct bbr *b)
{
	switch (b->mode) {
	case BBR_STARTUP:
		b->pacing_gain = b->cwnd_gain = BBR_HIGH_GAIN;
		break;
	case BBR_DRAIN:
		b->pacing_gain = BBR_DRAIN_GAIN;
		b->cwnd_gain = BBR_HIGH_GAIN;
		break;
	case BBR_PROBE_BW:
		b->pacing_gain = bbr_pacing_gain[b->cycle_idx];
		b->cwnd_gain = BBR_CWND_GAIN;
		break;
	case BBR_PROBE_RTT:
		b->pacing_gain = b->cwnd_gain = 1;
		break;
	}
}

/*
 * In recovery, packet conservation for a round; after it, the window from before
 * (bbr_set_cwnd_to_recover_or_restore).
 */
static bool bbr_recover_or_restore(struct end *e, const struct rate_sample *rs, uint32_t *out)
{
	struct bbr *b = &e->s.cc.bbr;
	struct sender *s = &e->s;
	enum ca_state prev = b->prev_ca_state, st = s->state;
	uint32_t cwnd = s->cwnd, acked = rs->acked_sacked;

	if (rs->losses)
		cwnd = cwnd > rs->losses ? cwnd - rs->losses : 1;
	if (st == CA_RECOVERY && prev != CA_RECOVERY) {
		b->packet_conservation = true;
		b->next_rtt_delivered = s->delivered;
		cwnd = in_flight(s) + acked;
	} else if (prev >= CA_RECOVERY && st < CA_RECOVERY) {
		cwnd = (uint32_t)max64(cwnd, b->prior_cwnd);
		b->packet_conservation = false;
	}
	b->prev_ca_state = st;
	*out = b->packet_conservation ? (uint32_t)max64(cwnd, in_flight(s) + acked) : cwnd;
	return b->packet_conservation;
}

static void bbr_set_cwnd(struct end *e, const struct rate_sample *rs, double bw, double gain)
{
	struct bbr *b = &e->s.cc.bbr;
	struct sender *s = &e->s;
	uint32_t cwnd = s->cwnd, acked = rs->acked_sacked, target;

	if (acked && !bbr_recover_or_restore(e, rs, &cwnd)) {
		target = bbr_quantization_budget(e, bbr_bdp(b, bw, gain) + bbr_ack_aggregation_cwnd(e));
		if (b->full_bw_reached)
			cwnd = (uint32_t)min64((uint64_t)cwnd + acked, target);
		else if (cwnd < target || s->delivered < INIT_CWND)
			cwnd += acked;
		cwnd = (uint32_t)max64(cwnd, BBR_CWND_MIN);
	}
	s->cwnd = cwnd;
	if (b->mode == BBR_PROBE_RTT)
		s->cwnd = (uint32_t)min64(s->cwnd, BBR_CWND_MIN);
}

static void bbr_main(struct end *e, uint64_t now, const struct rate_sample *rs)
{
	struct bbr *b = &e->s.cc.bbr;
	double bw;

	bbr_update_bw(e, rs);
	bbr_update_ack_aggregation(e, now, rs);
	if (b->mode == BBR_PROBE_BW && bbr_is_next_cycle_phase(e, rs))
		bbr_advance_cycle_phase(e);
	bbr_check_full_bw_reached(e, rs);
	bbr_check_drain(e);
	bbr_update_min_rtt(e, now, rs);
	bbr_update_gains(b);
	bw = bbr_max_bw(b);
	bbr_set_pacing_rate(e, bw, b->pacing_gain);
	bbr_set_cwnd(e, rs, bw, b->cwnd_gain);
}

static uint32_t bbr_ssthresh(struct end *e)
{
	bbr_save_cwnd(e);
	return e->s.ssthresh;
}

static void bbr_set_state(struct end *e, enum ca_state st)
{
	struct bbr *b = &e->s.cc.bbr;

	if (st == CA_LOSS) {
		b->prev_ca_state = CA_LOSS;
		b->full_bw = 0;
		b->round_start = true; /* a timeout ends the round */
	}
}

static uint32_t bbr_undo_cwnd(struct end *e)
{
	e->s.cc.bbr.full_bw = 0;
	e->s.cc.bbr.full_bw_cnt = 0;
	return e->s.cwnd;
}

/* Back from idle: pace at the estimate, not above it. */
static void bbr_tx_start(struct end *e, uint64_t now)
{
	struct bbr *b = &e->s.cc.bbr;

	if (!e->s.app_limited)
		return;
	b->idle_restart = true;
	b->ack_epoch_stamp = now;
	b->ack_epoch_acked = 0;
	if (b->mode == BBR_PROBE_BW)
		bbr_set_pacing_rate(e, bbr_max_bw(b), 1);
	else if (b->mode == BBR_PROBE_RTT)
		bbr_check_probe_rtt_done(e, now);
}

static const struct cc_ops bbr_ops = {
	.init = bbr_init, .ssthresh = bbr_ssthresh, .set_state = bbr_set_state, .tx_start = bbr_tx_start,
	.undo_cwnd = bbr_undo_cwnd, .cong_control = bbr_main,
};

/* ---- the connection ------------------------------------------------------------------- */

static void init_end(struct tcp_conn *c, enum tcp_end id, uint64_t now)
{
	static const uint8_t client_addr[4] = { 192, 168, 1, 2 }, server_addr[4] = { 198, 51, 100, 1 };
	struct end *e = &c->ends[id];
	struct sender *s = &e->s;
	struct receiver *r = &e->r;

	e->c = c;
	e->id = id;
	e->port = id == TCP_CLIENT ? c->p.client_port : TCP_SERVER_PORT;
	e->peer_port = id == TCP_CLIENT ? TCP_SERVER_PORT : c->p.client_port;
	memcpy(e->addr, id == TCP_CLIENT ? client_addr : server_addr, 4);
	memcpy(e->peer_addr, id == TCP_CLIENT ? server_addr : client_addr, 4);
	s->written = s->una = s->nxt = s->fack = ISN;
	s->wnd_edge = ISN + c->p.rmem_initial; /* the peer's window, as its handshake would have said */
	s->ts_head = s->ts_tail = NIL;
	s->cwnd = INIT_CWND;
	s->ssthresh = INF_SSTHRESH;
	s->rto = RTO_INIT;
	s->min_rtt = UINT64_MAX;
	s->reordering = DUPTHRESH;
	s->reo_steps = 1;
	c->cc->init(e, now);
	r->nxt = r->wup = ISN;
	r->clamp = c->p.rmem_initial;
	r->edge = ISN + r->clamp;
	r->space = min64(r->clamp, (uint64_t)INIT_CWND * c->mss);
	r->space_seq = ISN;
	r->space_ns = now;
}

struct tcp_conn *tcp_conn_new(const struct tcp_params *p, uint64_t now)
{
	struct tcp_conn *c = calloc(1, sizeof(*c));

	if (!c || p->mtu <= TCP_HEADERS + 64 || !p->xmit) {
		free(c);
		return NULL;
	}
	c->p = *p;
	if (!c->p.rmem_max)
		c->p.rmem_max = TCP_DEFAULT_BUFFER;
	if (!c->p.wmem_max)
		c->p.wmem_max = TCP_DEFAULT_BUFFER;
	if (!c->p.rmem_initial)
		c->p.rmem_initial = TCP_INITIAL_WINDOW;
	c->mss = p->mtu - TCP_HEADERS;
	c->cc = p->cc == TCP_CC_BBR ? &bbr_ops : p->cc == TCP_CC_NEWRENO ? &newreno_ops : &cubic_ops;
	c->buf = calloc(1, p->mtu);
	if (!c->buf) {
		free(c);
		return NULL;
	}
	prng_seed(&c->rng, p->seed);
	c->now = now;
	init_end(c, TCP_CLIENT, now);
	init_end(c, TCP_SERVER, now);
	return c;
}

void tcp_conn_free(struct tcp_conn *c)
{
	if (!c)
		return;
	for (int i = 0; i < 2; i++) {
		free(c->ends[i].s.segs);
		free(c->ends[i].r.ooo);
		free(c->ends[i].q);
	}
	free(c->buf);
	free(c);
}

void tcp_input(struct tcp_conn *c, enum tcp_end to, uint64_t now, const uint8_t *ip, size_t len)
{
	struct end *e = &c->ends[to];
	struct in_seg in;
	uint64_t seq;

	if (!parse(ip, len, &in))
		return;
	c->now = now;
	wire_check(&e->r, in.wire);
	e->in_input = true;
	seq = unwrap(e->r.nxt, in.seq);
	if (seq <= e->r.wup)
		e->ts_recent = in.tsval; /* RFC 7323: the timestamp of the oldest segment not yet acked */
	on_ack(e, now, &in);
	if (in.len)
		on_data(e, now, seq, in.len, in.tsecr);
	e->in_input = false;
}

static void run_end(struct end *e, uint64_t now)
{
	struct receiver *r = &e->r;

	flush(e);
	if (e->s.timer != TIMER_NONE && e->s.timer_at <= now)
		fire_timer(e, now);
	if ((r->delack_at && r->delack_at <= now) || (r->comp_at && r->comp_at <= now))
		send_ack(e, now);
	push(e, now);
}

void tcp_run(struct tcp_conn *c, uint64_t now)
{
	c->now = now;
	run_end(&c->ends[TCP_CLIENT], now);
	run_end(&c->ends[TCP_SERVER], now);
}

static uint64_t end_deadline(const struct end *e)
{
	uint64_t due = UINT64_MAX;

	if (e->nq)
		return 0;
	if (e->s.timer != TIMER_NONE)
		due = e->s.timer_at;
	if (e->r.delack_at)
		due = min64(due, e->r.delack_at);
	if (e->r.comp_at)
		due = min64(due, e->r.comp_at);
	if (e->s.pace_blocked)
		due = min64(due, e->s.pace_at);
	return due;
}

uint64_t tcp_next_deadline(const struct tcp_conn *c)
{
	return min64(end_deadline(&c->ends[TCP_CLIENT]), end_deadline(&c->ends[TCP_SERVER]));
}

uint64_t tcp_writable(const struct tcp_conn *c, enum tcp_end end)
{
	const struct sender *s = &c->ends[end].s;
	uint64_t held = s->written - s->una;

	return held < c->p.wmem_max ? c->p.wmem_max - held : 0;
}

void tcp_write(struct tcp_conn *c, enum tcp_end end, uint64_t bytes)
{
	c->ends[end].s.written += bytes;
}

uint64_t tcp_received(const struct tcp_conn *c, enum tcp_end end)
{
	return c->ends[end].r.delivered;
}

void tcp_get_stats(const struct tcp_conn *c, enum tcp_end end, struct tcp_stats *out)
{
	const struct end *e = &c->ends[end];
	const struct sender *s = &e->s;
	const struct receiver *r = &e->r;

	memset(out, 0, sizeof(*out));
	out->delivered_bytes = r->delivered;
	out->measured_bytes = r->measured;
	out->segments_sent = s->segs_out;
	out->retransmits = s->retransmits;
	out->rto = s->rtos;
	out->tlp = s->tlps;
	out->spurious = s->spurious;
	out->undo = s->undos;
	out->recoveries = s->recoveries;
	out->local_drops = s->local_drops;
	out->ofo_segments = r->ofo_segments;
	out->dup_segments = r->dup_segments;
	out->acks_sent = r->acks_sent;
	out->srtt_mean_ms = s->srtt_n ? s->srtt_sum / (double)s->srtt_n / 1e6 : 0;
	out->srtt_ms = (double)s->srtt / 1e6;
	out->min_rtt_ms = s->min_rtt == UINT64_MAX ? 0 : (double)s->min_rtt / 1e6;
	out->cwnd = s->cwnd;
	out->ssthresh = s->ssthresh;
	out->reordering = s->reordering;
	out->rwnd = r->clamp;
	out->peer_rwnd = s->wnd_edge - s->una;
	out->wire_in_order = r->wire_in_order;
	out->wire_late = r->wire_late;
	out->wire_gaps = r->wire_gaps;
}

const char *tcp_cc_name(enum tcp_cc cc)
{
	return cc == TCP_CC_BBR ? "bbr" : cc == TCP_CC_NEWRENO ? "newreno" : "cubic";
}

int tcp_cc_by_name(const char *name, enum tcp_cc *out)
{
	static const enum tcp_cc all[] = { TCP_CC_CUBIC, TCP_CC_NEWRENO, TCP_CC_BBR };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (!strcmp(name, tcp_cc_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	}
	return -1;
}
