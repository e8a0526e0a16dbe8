// SPDX-License-Identifier: MIT
/*
 * Writes the seed corpora of fuzz_datagram and fuzz_frames: real messages of
 * the fuzz pair (fuzz_pair.h), made the way the harnesses make them, so that
 * each seed goes past the cryptography in the harness (see fuzz_datagram.c);
 * those of fuzz_ctl: control messages built with ctl.h, valid and not;
 * those of fuzz_rtnl: rtnetlink reads built with libmnl; those of fuzz_tun:
 * IP packets from the TUN devices between steps of time; those of
 * fuzz_noise: the pair's handshake messages among an attacker's steps; and
 * those of fuzz_seq: packets sent, datagrams delivered, lost, copied and
 * reordered, and time; and those of fuzz_offload: TUN reads with the
 * virtio header, large TCP segments, packets whose checksum is left to the
 * device, and malformed ones; those of fuzz_classify: IP packets of each
 * kind the classifier reads, configuration texts, and texts with a packet
 * their port rule matches or not; those of fuzz_fec: parity frames made by
 * the encoder with what the receiver held (the trailer fuzz_fec.c reads),
 * and malformed ones; and those of fuzz_latprobe: wb-latprobe's packets,
 * alone and as a receive with loss, copies and reordering.
 * The corpora are committed; make builds this with the replays, and
 * check-unit fails when a committed seed differs from what it writes
 * (tests/fuzz/check_corpus.sh). After a change to the pair, the handshake,
 * the wire format or the control family that is meant to move them, write
 * them again:
 *
 *   make replay-bins && build/tests/fuzz/gen_corpus tests/fuzz/corpus
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "byteorder.h"
#include "cookie.h"
#include "ctl.h"
#include "fec.h"
#include "frame.h"
#include "fuzz_pair.h"
#include "inet_csum.h"
#include "keypair.h"
#include "lp_stats.h"
#include "lp_wire.h"
#include "tcp_packet.h"
#include "vnet_hdr.h"
#include "varint.h"

static const char *root;

static void put(const char *harness, const char *name, const void *data, size_t len)
{
	char path[512];
	FILE *out;

	snprintf(path, sizeof(path), "%s/%s", root, harness);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", root, harness, name);
	out = fopen(path, "wb");
	if (!out || fwrite(data, 1, len, out) != len || fclose(out)) {
		perror(path);
		exit(1);
	}
	printf("%s (%zu bytes)\n", path, len);
}

/* Takes the first datagram of a side's queue (and drops the rest). */
static struct fp_datagram take(struct fp_side *s)
{
	struct fp_datagram d = s->q[0];

	if (!s->queued) {
		fprintf(stderr, "gen_corpus: nothing queued\n");
		exit(1);
	}
	for (size_t i = 1; i < s->queued; i++)
		free(s->q[i].data);
	s->queued = 0;
	return d;
}

static void put_taken(const char *name, struct fp_side *s, int type)
{
	struct fp_datagram d = take(s);

	if (d.data[0] != type) {
		fprintf(stderr, "gen_corpus: %s: type %d, not %d\n", name, d.data[0], type);
		exit(1);
	}
	put("fuzz_datagram", name, d.data, d.len);
	free(d.data);
}

/*
 * Whether the first datagram `from` has queued carries a frame of this type:
 * opened (on a copy) with the keys of the side it goes to.
 */
static bool first_carries(struct fp_side *from, struct fp_side *to, enum wb_frame_type type)
{
	const struct fp_datagram *d = &from->q[0];
	const size_t hdr = WB_DATA_HEADER_LEN;
	uint8_t nonce[WB_NONCE_LEN], body[WB_MAX_DATAGRAM];
	struct wb_keypair *kp = to->bond->current;
	const uint8_t *pos = body;
	struct wb_frame f;

	if (!from->queued || d->len < WB_DATA_OVERHEAD || d->data[0] != WB_MSG_DATA || !kp ||
	    kp->local_index != wb_data_receiver_index(d->data))
		return false;
	wb_data_nonce(nonce, wb_data_uplink(d->data), wb_data_counter(d->data));
	if (wb_aead_open(kp->recv, nonce, d->data, hdr, d->data + hdr, d->len - hdr, body))
		return false;
	while (wb_frame_next(&pos, body + d->len - WB_DATA_OVERHEAD, &f) > 0)
		if (f.type == type)
			return true;
	return false;
}

static void must_carry(struct fp_side *from, struct fp_side *to, enum wb_frame_type type, const char *what)
{
	if (!first_carries(from, to, type)) {
		fprintf(stderr, "gen_corpus: the datagram for %s carries no frame of type %d\n", what, type);
		exit(1);
	}
}

static void send_ip(struct fp_side *s, uint8_t fill)
{
	uint8_t buf[60];

	memset(buf, fill, sizeof(buf));
	buf[0] = 0x45;
	if (wb_bond_send_ip(s->bond, s->fp->now, buf, sizeof(buf))) {
		fprintf(stderr, "gen_corpus: cannot send an IP packet\n");
		exit(1);
	}
}

static void datagram_seeds(void)
{
	static struct fp f;
	struct fp_datagram init;
	struct wb_msg_cookie reply;
	uint8_t nonce[WB_NONCE_LEN] = { 1, 2, 3 }, junk[sizeof(struct wb_msg_initiation)];

	if (fp_init(&f))
		exit(1);
	fp_start_handshake(&f);
	/* The initiation, and (delivered by hand to keep a copy) the response to it. */
	init = f.c.q[0];
	put("fuzz_datagram", "initiation", init.data, init.len);
	fp_deliver_queue(&f, &f.c, &f.s); /* frees init.data: use the copy written above no more */
	{
		/* A cookie reply to that initiation (the server drew its cookie secret on receiving it). */
		struct fp g;

		if (fp_init(&g))
			exit(1);
		fp_start_handshake(&g);
		if (wb_cookie_create_reply(&reply, &f.s.dev->cookies, &f.s.dev->local, g.c.q[0].data, g.c.q[0].len,
					   wb_get_le32(WB_MSG_FIELD(g.c.q[0].data, wb_msg_initiation, sender_index)),
					   &f.client_ep[0], nonce))
			exit(1);
		put("fuzz_datagram", "cookie_reply", &reply, sizeof(reply));
		fp_free(&g);
	}
	put_taken("response", &f.s, WB_MSG_RESPONSE);

	/* Now as the harness does: the handshake completes, then at +1 ms the session's messages. */
	fp_free(&f);
	if (fp_init(&f))
		exit(1);
	fp_start_handshake(&f);
	fp_flush(&f);
	f.now += 1 * FP_MS;
	if (!f.c.bond->current || !f.s.bond->current) {
		fprintf(stderr, "gen_corpus: no session\n");
		exit(1);
	}
	send_ip(&f.c, 0x11);
	must_carry(&f.c, &f.s, WB_FRAME_DATA, "data_client_ip");
	put_taken("data_client_ip", &f.c, WB_MSG_DATA);
	/* The server sends only once an uplink answered its probes. */
	wb_device_tick(f.s.dev, f.now);
	fp_flush(&f);
	send_ip(&f.s, 0x22);
	put_taken("data_server_ip", &f.s, WB_MSG_DATA);
	/* Acks: two IP packets from the client make the server ack at once (an ACK and a BOND_ACK frame). */
	send_ip(&f.c, 0x33);
	send_ip(&f.c, 0x34);
	fp_deliver_queue(&f, &f.c, &f.s);
	wb_device_tick(f.s.dev, f.now + WB_MAX_ACK_DELAY_NS); /* each uplink had one: acked within the delay */
	must_carry(&f.s, &f.c, WB_FRAME_ACK, "data_server_acks");
	must_carry(&f.s, &f.c, WB_FRAME_BOND_ACK, "data_server_acks");
	put_taken("data_server_acks", &f.s, WB_MSG_DATA);
	send_ip(&f.s, 0x35);
	send_ip(&f.s, 0x36);
	fp_deliver_queue(&f, &f.s, &f.c);
	wb_device_tick(f.c.dev, f.now + WB_MAX_ACK_DELAY_NS);
	must_carry(&f.c, &f.s, WB_FRAME_ACK, "data_client_acks");
	must_carry(&f.c, &f.s, WB_FRAME_BOND_ACK, "data_client_acks");
	put_taken("data_client_acks", &f.c, WB_MSG_DATA);
	wb_device_tick(f.c.dev, f.now + 250 * FP_MS);
	put_taken("data_client_probe", &f.c, WB_MSG_DATA);
	wb_bond_close(f.c.bond, f.now);
	put_taken("data_client_close", &f.c, WB_MSG_DATA);
	fp_free(&f);

	/* Not ours: too short, an initiation with a wrong mac1, a data header and no more. */
	put("fuzz_datagram", "empty", "", 0);
	put("fuzz_datagram", "one_byte", "\x04", 1);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 13);
	junk[0] = WB_MSG_INITIATION;
	put("fuzz_datagram", "initiation_bad_mac1", junk, sizeof(junk));
	memset(junk, 0, 32);
	junk[0] = WB_MSG_DATA;
	put("fuzz_datagram", "data_zero", junk, 32);
}

/* An ACK frame from raw varints (for malformed seeds): largest, delay, count, first, then pairs. */
static size_t raw_varints(uint8_t *p, uint8_t type, const uint64_t *v, size_t n)
{
	size_t len = 1;

	p[0] = type;
	for (size_t i = 0; i < n; i++)
		len += wb_varint_put(p + len, v[i]);
	return len;
}

static void frame_seeds(void)
{
	uint8_t b[1024];
	size_t n;
	struct wb_probe probe = { 1, FP_T0, 3 };
	struct wb_probe_ack ack = { 1, FP_T0, 3, 2 };
	struct wb_uplink_info info = { WB_UPLINK_BACKUP, 3, "lte" };
	struct wb_ack a = { .delay_us = 250, .n = 3, .r = { { 40, 47 }, { 30, 35 }, { 0, 20 } } };
	struct wb_bond_ack ba = { .cum = 0, .rwnd = 6 << 20, .n = 2, .s = { { 2, 3 }, { 6, 9 } } };

	put("fuzz_frames", "empty", "", 0);
	wb_frame_put_data_header(b, 0, 20);
	memset(b + WB_FRAME_DATA_HEADER, 0x45, 20);
	put("fuzz_frames", "data", b, WB_FRAME_DATA_HEADER + 20);
	n = wb_frame_put_probe(b, &probe);
	n += wb_frame_put_uplink_info(b + n, &info);
	put("fuzz_frames", "probe_info", b, n);
	n = wb_frame_put_probe_ack(b, &ack);
	put("fuzz_frames", "probe_ack", b, n);
	n = wb_frame_put_close(b, WB_CLOSE_SHUTDOWN);
	put("fuzz_frames", "close", b, n);
	/* A reproducer: data (its ack waits the ack delay), then a CLOSE: the ack stayed due without a session. */
	wb_frame_put_data_header(b, 0, 20);
	memset(b + WB_FRAME_DATA_HEADER, 0x45, 20);
	n = WB_FRAME_DATA_HEADER + 20;
	n += wb_frame_put_close(b + n, WB_CLOSE_SHUTDOWN);
	put("fuzz_frames", "data_then_close", b, n);
	/* A path MTU probe (answered with the size it came in) and an answer. */
	n = wb_frame_put_pmtu_probe(b, 600);
	put("fuzz_frames", "pmtu_probe", b, n);
	n = wb_frame_put_pmtu_ack(b, 1472);
	n += wb_frame_put_probe_ack(b + n, &ack);
	put("fuzz_frames", "pmtu_ack", b, n);
	/* Several, then padding and bytes after it. */
	n = wb_frame_put_probe(b, &probe);
	n += wb_frame_put_uplink_info(b + n, &info);
	wb_frame_put_data_header(b + n, 0, 8);
	memset(b + n + WB_FRAME_DATA_HEADER, 0x60, 8);
	n += WB_FRAME_DATA_HEADER + 8;
	n += wb_frame_put_probe_ack(b + n, &ack);
	b[n++] = WB_FRAME_PADDING;
	memset(b + n, 0xff, 7);
	n += 7;
	put("fuzz_frames", "several_padding", b, n);
	/* Data out of order (held, then the gap fills), and a duplicate. */
	n = 0;
	for (unsigned k = 0; k < 4; k++) {
		static const uint32_t dsns[] = { 2, 1, 2, 0 };

		wb_frame_put_data_header(b + n, dsns[k], 9);
		memset(b + n + WB_FRAME_DATA_HEADER, 0x45 + (int)k, 9);
		n += WB_FRAME_DATA_HEADER + 9;
	}
	put("fuzz_frames", "data_reordered", b, n);
	/* A DSN far ahead (held until the gap is skipped). */
	wb_frame_put_data_header(b, 5000, 12);
	memset(b + WB_FRAME_DATA_HEADER, 0x45, 12);
	put("fuzz_frames", "data_far_ahead", b, WB_FRAME_DATA_HEADER + 12);
	/* Acks: alone, with data, the most ranges, the largest numbers. */
	n = wb_frame_put_ack(b, &a);
	put("fuzz_frames", "ack", b, n);
	n = wb_frame_put_bond_ack(b, &ba);
	put("fuzz_frames", "bond_ack", b, n);
	wb_frame_put_data_header(b, 0, 20);
	memset(b + WB_FRAME_DATA_HEADER, 0x45, 20);
	n = WB_FRAME_DATA_HEADER + 20;
	n += wb_frame_put_ack(b + n, &a);
	n += wb_frame_put_bond_ack(b + n, &ba);
	put("fuzz_frames", "data_ack_bond_ack", b, n);
	a.n = WB_ACK_MAX_RANGES;
	for (unsigned i = 0; i < a.n; i++)
		a.r[i] = (struct wb_range){ 200 - 3 * i, 201 - 3 * i };
	n = wb_frame_put_ack(b, &a);
	put("fuzz_frames", "ack_max_ranges", b, n);
	ba.cum = 1;
	ba.n = WB_BOND_ACK_MAX_SACKS;
	for (unsigned i = 0; i < ba.n; i++)
		ba.s[i] = (struct wb_range){ 3 + 3 * i, 4 + 3 * i };
	n = wb_frame_put_bond_ack(b, &ba);
	put("fuzz_frames", "bond_ack_max_sacks", b, n);
	a.n = 1;
	a.delay_us = WB_VARINT_MAX;
	a.r[0] = (struct wb_range){ 0, WB_VARINT_MAX };
	n = wb_frame_put_ack(b, &a);
	ba = (struct wb_bond_ack){ .cum = WB_VARINT_MAX - 2, .rwnd = WB_VARINT_MAX, .n = 1,
				   .s = { { WB_VARINT_MAX, WB_VARINT_MAX } } };
	n += wb_frame_put_bond_ack(b + n, &ba);
	put("fuzz_frames", "acks_largest", b, n);
	/* Malformed: a data frame longer than the body, an unknown type, an empty name. */
	wb_frame_put_data_header(b, 0, 100);
	put("fuzz_frames", "data_too_long", b, 10);
	b[0] = 0x08;
	put("fuzz_frames", "unknown_type", b, 1);
	b[0] = WB_FRAME_UPLINK_INFO;
	b[1] = 0;
	b[2] = 1;
	b[3] = 0;
	b[4] = 0;
	put("fuzz_frames", "empty_name", b, 5);
	/* Malformed acks: first range above the largest, a gap below 0, too many ranges, sums past 2^62. */
	{
		const uint64_t above[] = { 10, 0, 0, 11 };
		const uint64_t below[] = { 10, 0, 1, 2, 7, 0 };
		const uint64_t many[] = { 100, 0, WB_ACK_MAX_RANGES, 0 };
		const uint64_t sum[] = { WB_VARINT_MAX, 1, 1, WB_VARINT_MAX, WB_VARINT_MAX };
		const uint64_t sacks[] = { 0, 1, WB_BOND_ACK_MAX_SACKS + 1 };

		put("fuzz_frames", "ack_first_above_largest", b, raw_varints(b, WB_FRAME_ACK, above, 4));
		put("fuzz_frames", "ack_gap_below_zero", b, raw_varints(b, WB_FRAME_ACK, below, 6));
		put("fuzz_frames", "ack_too_many_ranges", b, raw_varints(b, WB_FRAME_ACK, many, 4));
		put("fuzz_frames", "bond_ack_sum_past_2_62", b, raw_varints(b, WB_FRAME_BOND_ACK, sum, 5));
		put("fuzz_frames", "bond_ack_too_many_sacks", b, raw_varints(b, WB_FRAME_BOND_ACK, sacks, 3));
	}
	/* An ack cut inside a varint. */
	n = wb_frame_put_ack(b, &(struct wb_ack){ .delay_us = 1000, .n = 1, .r = { { 1ULL << 40, 1ULL << 41 } } });
	put("fuzz_frames", "ack_truncated", b, n - 3);
	/* Data, then the parity of it and of two more of the interactive class (not acted on yet). */
	{
		struct wb_fec_encoder e;

		wb_frame_put_data_header(b, 0, 20);
		memset(b + WB_FRAME_DATA_HEADER, 0x45, 20);
		n = WB_FRAME_DATA_HEADER + 20;
		wb_fec_encoder_init(&e, 3);
		wb_fec_add(&e, 0, b + WB_FRAME_DATA_HEADER, 20);
		wb_fec_add(&e, 2, b + WB_FRAME_DATA_HEADER, 12);
		wb_fec_add(&e, 5, b + WB_FRAME_DATA_HEADER, 16);
		n += wb_fec_put_parity(b + n, &e);
		put("fuzz_frames", "data_fec_parity", b, n);
	}
}

/* ---- fuzz_ctl: control messages ---------------------------------------------------------- */

static union {
	struct nlmsghdr h;
	uint8_t b[WB_CTL_MSG_MAX];
} ctl_buf;

static struct nlmsghdr *ctl_start(uint8_t cmd, uint16_t flags)
{
	memset(&ctl_buf, 0, sizeof(ctl_buf));
	return wb_ctl_msg_start(ctl_buf.b, cmd, flags, 7);
}

static void ctl_put(const char *name, const struct nlmsghdr *nlh)
{
	put("fuzz_ctl", name, nlh, nlh->nlmsg_len);
}

/* A SET_UPLINK request; a negative value leaves its attribute out. */
static struct nlmsghdr *ctl_set_uplink(const char *name, int backup, int enabled, int64_t weight)
{
	struct nlmsghdr *nlh = ctl_start(WB_CTL_CMD_SET_UPLINK, NLM_F_REQUEST | NLM_F_ACK);
	struct nlattr *n = mnl_attr_nest_start(nlh, WB_CTL_A_UPLINK);

	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, name);
	if (backup >= 0)
		mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, (uint8_t)backup);
	if (enabled >= 0)
		mnl_attr_put_u8(nlh, WB_CTL_U_ENABLED, (uint8_t)enabled);
	if (weight >= 0)
		mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, (uint32_t)weight);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

static struct nlmsghdr *ctl_event(enum wb_ctl_event ev, const char *uplink, uint64_t count, const char *text)
{
	struct nlmsghdr *nlh = ctl_start(WB_CTL_CMD_EVENT, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, WB_CTL_A_EVENT);

	mnl_attr_put_u32(nlh, WB_CTL_E_TYPE, ev);
	if (uplink)
		mnl_attr_put_strz(nlh, WB_CTL_E_UPLINK, uplink);
	if (count)
		mnl_attr_put_u64(nlh, WB_CTL_E_COUNT, count);
	if (text)
		mnl_attr_put_strz(nlh, WB_CTL_E_TEXT, text);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

static void ctl_seeds(void)
{
	static const struct {
		const char *name;
		uint8_t cmd;
	} plain[] = {
		{ "req_get_bond", WB_CTL_CMD_GET_BOND },
		{ "req_get_uplinks", WB_CTL_CMD_GET_UPLINKS },
		{ "req_reset_counters", WB_CTL_CMD_RESET_COUNTERS },
		{ "req_monitor", WB_CTL_CMD_MONITOR },
	};
	uint8_t out[WB_CTL_MSG_MAX];
	struct wb_bond_counters bc;
	struct wb_uplink_counters uc;
	struct wb_device_counters dc;
	struct nlmsghdr *nlh, *e;
	struct nlattr *n, *c;
	uint64_t k = 0;

	/* Requests, valid. */
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		ctl_put(plain[i].name, ctl_start(plain[i].cmd, NLM_F_REQUEST | NLM_F_ACK));
	nlh = ctl_start(WB_CTL_CMD_SET_SCHED, NLM_F_REQUEST | NLM_F_ACK);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "redundant");
	ctl_put("req_set_sched_policy", nlh);
	nlh = ctl_start(WB_CTL_CMD_SET_SCHED, NLM_F_REQUEST | NLM_F_ACK);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, WB_SCHED_RULE_PENALISE | WB_SCHED_RULE_REINJECT);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_OFF, WB_SCHED_RULE_AVOID_BLOCKING);
	ctl_put("req_set_sched_rules", nlh);
	nlh = ctl_start(WB_CTL_CMD_SET_SCHED, NLM_F_REQUEST | NLM_F_ACK);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "first");
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, WB_SCHED_RULE_REINJECT_RWND);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_OFF, WB_SCHED_RULE_PENALISE_GUARD);
	ctl_put("req_set_sched_all", nlh);
	ctl_put("req_set_uplink_weight", ctl_set_uplink("lte", -1, -1, 500));
	ctl_put("req_set_uplink_all", ctl_set_uplink("dsl-2", 1, 0, 1000));

	/* Replies: the bond, an uplink, events, one of a newer daemon. */
#define FILL(f) k++, f = 0x0101010100000000ull * k + k;
#define FILL_B(f) FILL(bc.f)
#define FILL_U(f) FILL(uc.f)
#define FILL_D(f) FILL(dc.f)
	WB_CTL_BOND_COUNTERS(FILL_B)
	WB_CTL_UPLINK_COUNTERS(FILL_U)
	WB_CTL_DEVICE_COUNTERS(FILL_D)
#undef FILL_D
#undef FILL_U
#undef FILL_B
#undef FILL
	nlh = ctl_start(WB_CTL_CMD_GET_BOND, 0);
	mnl_attr_put_strz(nlh, WB_CTL_A_BOND_NAME, "home");
	mnl_attr_put_strz(nlh, WB_CTL_A_ROLE, "client");
	mnl_attr_put_strz(nlh, WB_CTL_A_TUN, "wb0");
	mnl_attr_put_strz(nlh, WB_CTL_A_PEER, "yb35g17ryfpD/SA9B4ovqyegIUZpzu1DW+DcWbYeHws=");
	mnl_attr_put_u8(nlh, WB_CTL_A_SESSION, 1);
	mnl_attr_put_u64(nlh, WB_CTL_A_HANDSHAKE_AGO, 12345678901ull);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "default");
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_OFF, WB_SCHED_RULE_REINJECT_SNDBUF);
	mnl_attr_put_u32(nlh, WB_CTL_A_MTU, 1420);
	mnl_attr_put_u64(nlh, WB_CTL_A_SEND_BUFFER, 4u << 20);
	mnl_attr_put_u64(nlh, WB_CTL_A_RECEIVE_WINDOW, 6u << 20);
	mnl_attr_put_u64(nlh, WB_CTL_A_SEND_QUEUE, 3000);
	mnl_attr_put_u64(nlh, WB_CTL_A_MEMORY, 1u << 24);
	mnl_attr_put_u64(nlh, WB_CTL_A_UPTIME, 86400000000000ull);
	wb_ctl_put_bond_counters(nlh, WB_CTL_A_COUNTERS, &bc);
	ctl_put("rep_bond", nlh);
	/* The same with the device's counters, as a daemon with them sends it. */
	wb_ctl_put_device_counters(nlh, WB_CTL_A_DEVICE_COUNTERS, &dc);
	ctl_put("rep_bond_device", nlh);
	nlh = ctl_start(WB_CTL_CMD_GET_UPLINKS, NLM_F_MULTI);
	n = mnl_attr_nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_put_u32(nlh, WB_CTL_U_ID, 1);
	mnl_attr_put_strz(nlh, WB_CTL_U_STATE, "up");
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 0);
	mnl_attr_put_u8(nlh, WB_CTL_U_ENABLED, 1);
	mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, 100);
	mnl_attr_put_strz(nlh, WB_CTL_U_DEVICE, "wwan0");
	mnl_attr_put_strz(nlh, WB_CTL_U_ENDPOINT, "198.51.100.7:51821");
	mnl_attr_put_u64(nlh, WB_CTL_U_SRTT, 41000000);
	mnl_attr_put_u64(nlh, WB_CTL_U_MIN_RTT, 38000000);
	mnl_attr_put_u64(nlh, WB_CTL_U_RTTVAR, 2000000);
	mnl_attr_put_u32(nlh, WB_CTL_U_LOSS_PPM, 12500);
	mnl_attr_put_u64(nlh, WB_CTL_U_CWND, 64000);
	mnl_attr_put_u64(nlh, WB_CTL_U_IN_FLIGHT, 12000);
	mnl_attr_put_u64(nlh, WB_CTL_U_PACING_RATE, 2500000);
	wb_ctl_put_uplink_counters(nlh, WB_CTL_U_COUNTERS, &uc);
	mnl_attr_nest_end(nlh, n);
	ctl_put("rep_uplink", nlh);
	nlh = ctl_start(WB_CTL_CMD_GET_UPLINKS, NLM_F_MULTI);
	n = mnl_attr_nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "dsl");
	mnl_attr_put_strz(nlh, WB_CTL_U_STATE, "down");
	mnl_attr_put_strz(nlh, WB_CTL_U_SOCKET, "bind to eth1: No such device");
	mnl_attr_nest_end(nlh, n);
	ctl_put("rep_uplink_socket_closed", nlh);
	ctl_put("rep_event_uplink_down", ctl_event(WB_CTL_EV_UPLINK_DOWN, "lte", 0, "no answer to 5 probes"));
	ctl_put("rep_event_reinjection", ctl_event(WB_CTL_EV_REINJECTION, "dsl", 17, NULL));
	ctl_put("rep_event_handshake", ctl_event(WB_CTL_EV_HANDSHAKE, NULL, 0, "session 3"));
	nlh = ctl_start(WB_CTL_CMD_GET_UPLINKS, NLM_F_MULTI);
	mnl_attr_put_u32(nlh, WB_CTL_A_COUNT + 1, 1);
	n = mnl_attr_nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, "lte");
	mnl_attr_put_u16(nlh, WB_CTL_U_COUNT, 2);
	c = mnl_attr_nest_start(nlh, WB_CTL_U_COUNTERS);
	mnl_attr_put_u64(nlh, 1, 10);
	mnl_attr_put_u64(nlh, WB_CTL_N_UPLINK_COUNTERS + 1, 11);
	mnl_attr_nest_end(nlh, c);
	mnl_attr_nest_end(nlh, n);
	ctl_put("rep_newer_daemon", nlh);

	/* Errors and acks: the daemon's (capped), and the kernel's form (the request echoed). */
	nlh = ctl_start(WB_CTL_CMD_RESET_COUNTERS, NLM_F_REQUEST | NLM_F_ACK);
	e = wb_ctl_error(out, nlh, 0, NULL);
	put("fuzz_ctl", "err_ack", e, e->nlmsg_len);
	e = wb_ctl_error(out, nlh, EPERM, "reset-counters: not allowed");
	put("fuzz_ctl", "err_eperm", e, e->nlmsg_len);
	{
		struct nlmsgerr *ne;

		nlh = ctl_start(WB_CTL_CMD_SET_SCHED, NLM_F_REQUEST | NLM_F_ACK);
		mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "fastest");
		memset(out, 0, sizeof(out));
		e = mnl_nlmsg_put_header(out);
		e->nlmsg_type = NLMSG_ERROR;
		e->nlmsg_flags = NLM_F_ACK_TLVS;
		ne = mnl_nlmsg_put_extra_header(e, sizeof(*ne) + nlh->nlmsg_len - sizeof(*nlh));
		ne->error = -EINVAL;
		memcpy(&ne->msg, nlh, nlh->nlmsg_len);
		mnl_attr_put_strz(e, NLMSGERR_ATTR_MSG, "set-sched: no policy 'fastest'");
		put("fuzz_ctl", "err_echoed_request", e, e->nlmsg_len);
	}
	/*
	 * A reproducer: the extended ack's string ends in the alignment padding
	 * past nlmsg_len (which is 3 short of it); wb_ctl_read_error reads it.
	 */
	memset(out, 0, sizeof(out));
	e = wb_ctl_error(out, NULL, EPERM, "xyz");
	e->nlmsg_len -= 3;
	put("fuzz_ctl", "err_msg_past_end", e, e->nlmsg_len);

	/* Malformed. */
	put("fuzz_ctl", "empty", "", 0);
	nlh = ctl_start(WB_CTL_CMD_GET_BOND, NLM_F_REQUEST);
	((struct wb_ctl_hdr *)mnl_nlmsg_get_payload(nlh))->version = 2;
	ctl_put("bad_version", nlh);
	ctl_put("bad_command", ctl_start(WB_CTL_CMD_COUNT, NLM_F_REQUEST));
	nlh = ctl_start(WB_CTL_CMD_SET_SCHED, NLM_F_REQUEST);
	mnl_attr_put(nlh, WB_CTL_A_SCHED_SET_ON, 3, "\x01\x00\x00");
	ctl_put("bad_u32_3_bytes", nlh);
	nlh = ctl_start(WB_CTL_CMD_SET_SCHED, NLM_F_REQUEST);
	mnl_attr_put_str(nlh, WB_CTL_A_SCHED_POLICY, "first");
	ctl_put("bad_string_without_nul", nlh);
	nlh = ctl_start(WB_CTL_CMD_SET_SCHED, NLM_F_REQUEST);
	mnl_attr_put(nlh, WB_CTL_A_SCHED_POLICY, sizeof("first\0x"), "first\0x");
	ctl_put("bad_string_nul_inside", nlh);
	nlh = ctl_start(WB_CTL_CMD_SET_SCHED, NLM_F_REQUEST);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, 1);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, 1);
	ctl_put("bad_attribute_twice", nlh);
	nlh = ctl_start(WB_CTL_CMD_SET_SCHED, NLM_F_REQUEST);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, WB_SCHED_RULE_REINJECT);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_OFF, WB_SCHED_RULE_REINJECT | 0x100);
	ctl_put("bad_rules", nlh);
	nlh = ctl_start(WB_CTL_CMD_SET_SCHED, NLM_F_REQUEST);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, 1);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, "roundrobin");
	nlh->nlmsg_len -= 6;
	ctl_put("bad_past_the_end", nlh);
	nlh = ctl_set_uplink("lte", -1, -1, 9);
	((struct nlattr *)((uint8_t *)nlh + MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct wb_ctl_hdr))))->nla_len -= 2;
	ctl_put("bad_nest_truncated", nlh);
	ctl_put("bad_weight_0", ctl_set_uplink("lte", -1, -1, 0));
	ctl_put("bad_weight_1001", ctl_set_uplink("lte", -1, -1, 1001));
	ctl_put("bad_boolean_2", ctl_set_uplink("lte", 2, -1, -1));
	nlh = ctl_start(WB_CTL_CMD_SET_UPLINK, NLM_F_REQUEST);
	n = mnl_attr_nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, 1);
	mnl_attr_nest_end(nlh, n);
	ctl_put("bad_set_uplink_no_name", nlh);
	nlh = ctl_start(WB_CTL_CMD_GET_BOND, 0);
	c = mnl_attr_nest_start(nlh, WB_CTL_A_COUNTERS);
	mnl_attr_put_u64(nlh, 3, 1);
	mnl_attr_put_u64(nlh, 3, 2);
	mnl_attr_nest_end(nlh, c);
	ctl_put("bad_counter_twice", nlh);
}

/* ---- fuzz_rtnl: rtnetlink reads ------------------------------------------------------------ */

/* The request's sequence number and the daemon's port, as fuzz_rtnl.c expects them. */
#define RT_SEQ 1
#define RT_PORTID 4242

/* The input being built: a mode byte, then reads (a 16-bit length, then its bytes). */
static uint8_t rt_in[16384];
static size_t rt_in_len;
/* The read being built: messages one after another, each at an aligned offset. */
static union {
	struct nlmsghdr h;
	uint8_t b[4096];
} rt_read_buf;
static size_t rt_read_len;

/* A fresh read: zeros, as libmnl before 1.0.5 leaves an attribute's padding as it was. */
static void rt_new_read(void)
{
	memset(&rt_read_buf, 0, sizeof(rt_read_buf));
	rt_read_len = 0;
}

static void rt_begin(uint8_t mode)
{
	rt_in[0] = mode;
	rt_in_len = 1;
	rt_new_read();
}

/* The read built so far, cut to len bytes (SIZE_MAX: all of it), goes into the input. */
static void rt_flush_cut(size_t len)
{
	if (len > rt_read_len)
		len = rt_read_len;
	rt_in[rt_in_len++] = (uint8_t)len;
	rt_in[rt_in_len++] = (uint8_t)(len >> 8);
	memcpy(rt_in + rt_in_len, rt_read_buf.b, len);
	rt_in_len += len;
	rt_new_read();
}

static void rt_flush(void)
{
	rt_flush_cut(SIZE_MAX);
}

static void rt_put(const char *name)
{
	if (rt_read_len)
		rt_flush();
	put("fuzz_rtnl", name, rt_in, rt_in_len);
}

static struct nlmsghdr *rt_msg(uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(rt_read_buf.b + rt_read_len);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = pid;
	return nlh;
}

static void rt_end(const struct nlmsghdr *nlh)
{
	rt_read_len += MNL_ALIGN(nlh->nlmsg_len);
}

/* A link message; name NULL and mtu 0 leave those attributes out. */
static struct nlmsghdr *rt_link(uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid, int ifindex,
				unsigned ifi_flags, const char *name, uint32_t mtu)
{
	struct nlmsghdr *nlh = rt_msg(type, flags, seq, pid);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = ifi_flags;
	ifi->ifi_change = 0xffffffff;
	mnl_attr_put(nlh, IFLA_ADDRESS, sizeof(mac), mac);
	if (name)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (mtu)
		mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	mnl_attr_put_u32(nlh, IFLA_TXQLEN, 1000);
	return nlh;
}

static void rt_link_end(uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid, int ifindex, unsigned ifi_flags,
			const char *name, uint32_t mtu)
{
	rt_end(rt_link(type, flags, seq, pid, ifindex, ifi_flags, name, mtu));
}

static void rt_addr(uint16_t type, int ifindex, uint8_t family)
{
	struct nlmsghdr *nlh = rt_msg(type, 0, 0, 0);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	static const uint8_t a[16] = { 0xfd, 0, 0, 1, [15] = 1 };

	ifa->ifa_family = family;
	ifa->ifa_prefixlen = family == AF_INET ? 24 : 64;
	ifa->ifa_index = (uint32_t)ifindex;
	mnl_attr_put(nlh, IFA_ADDRESS, family == AF_INET ? 4 : 16, family == AF_INET ? (const uint8_t *)"\x0a\x64\x01\x01" : a);
	rt_end(nlh);
}

/*
 * An ack (error 0) or an error; with a message, an extended ack, echoing
 * our request whole unless capped.
 */
static void rt_error(uint32_t seq, uint32_t pid, int error, const char *msg, bool capped)
{
	uint8_t req_buf[64];
	struct nlmsghdr *req = mnl_nlmsg_put_header(req_buf), *nlh;
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(req, sizeof(*ifi));
	struct nlmsgerr *err;
	size_t echo;

	req->nlmsg_type = RTM_NEWLINK;
	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req->nlmsg_seq = seq;
	req->nlmsg_pid = pid;
	ifi->ifi_index = 3;
	mnl_attr_put_u32(req, IFLA_MTU, 60);
	echo = capped || !msg ? 0 : req->nlmsg_len - sizeof(*req);
	nlh = rt_msg(NLMSG_ERROR, msg ? (uint16_t)(NLM_F_ACK_TLVS | (capped ? NLM_F_CAPPED : 0)) : 0, seq, pid);
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err) + echo);
	err->error = error;
	memcpy(&err->msg, req, sizeof(*req) + echo);
	if (msg) {
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, 32);
	}
	rt_end(nlh);
}

static void rt_done(uint32_t seq)
{
	struct nlmsghdr *nlh = rt_msg(NLMSG_DONE, NLM_F_MULTI, seq, RT_PORTID);

	*(int *)mnl_nlmsg_put_extra_header(nlh, sizeof(int)) = 0;
	rt_end(nlh);
}

static void rtnl_reply_seeds(void)
{
	const unsigned up = IFF_UP | IFF_RUNNING | IFF_LOWER_UP;

	rt_begin(0);
	rt_put("empty");
	/* A link request's answer and its ack, in one read and in two; the ack alone. */
	rt_begin(1);
	rt_link_end(RTM_NEWLINK, 0, RT_SEQ, RT_PORTID, 3, up, "eth1", 1500);
	rt_error(RT_SEQ, RT_PORTID, 0, NULL, false);
	rt_put("link_answer");
	rt_begin(1);
	rt_link_end(RTM_NEWLINK, 0, RT_SEQ, RT_PORTID, 7, 0, "wb0", 1413);
	rt_flush();
	rt_error(RT_SEQ, RT_PORTID, 0, NULL, false);
	rt_put("link_answer_two_reads");
	rt_begin(0);
	rt_error(RT_SEQ, RT_PORTID, 0, NULL, false);
	rt_put("ack_only");
	/* The late reply of an abandoned request first, then ours; then the ack. */
	rt_begin(1);
	rt_link_end(RTM_NEWLINK, 0, RT_SEQ + 5, RT_PORTID, 9, up, "lte0", 1400);
	rt_error(RT_SEQ + 5, RT_PORTID, 0, NULL, false);
	rt_link_end(RTM_NEWLINK, 0, RT_SEQ, RT_PORTID, 3, up, "eth1", 1500);
	rt_error(RT_SEQ, RT_PORTID, 0, NULL, false);
	rt_put("link_late_reply_first");
	/* Errors: with an extended ack (our request echoed, or capped), of the other sign, too short. */
	rt_begin(0);
	rt_error(RT_SEQ, RT_PORTID, -EINVAL, "mtu less than device minimum", false);
	rt_put("error_extack");
	rt_begin(0);
	rt_error(RT_SEQ, RT_PORTID, -ENETDOWN, "Device for nexthop is not up", true);
	rt_put("error_extack_capped");
	rt_begin(1);
	rt_error(RT_SEQ, RT_PORTID, ENODEV, NULL, false);
	rt_put("error_positive");
	/* A reproducer: an error that is no errno (strerror(-INT_MIN) overflows). */
	rt_begin(0);
	rt_error(RT_SEQ, RT_PORTID, INT32_MIN, "no errno", false);
	rt_put("error_int_min");
	rt_begin(0);
	*(int *)mnl_nlmsg_put_extra_header(rt_msg(NLMSG_ERROR, 0, RT_SEQ, RT_PORTID), sizeof(int)) = -EPERM;
	rt_end(&rt_read_buf.h);
	rt_put("error_short");
	/* Another port's message (refused), an interrupted dump. */
	rt_begin(1);
	rt_link_end(RTM_NEWLINK, 0, RT_SEQ, 999, 3, up, "eth1", 1500);
	rt_error(RT_SEQ, 999, 0, NULL, false);
	rt_put("other_port");
	rt_begin(1);
	rt_link_end(RTM_NEWLINK, NLM_F_DUMP_INTR, RT_SEQ, RT_PORTID, 3, up, "eth1", 1500);
	rt_put("dump_interrupted");
	/* An MTU of the wrong size, then one cut short by the message's end. */
	rt_begin(1);
	{
		struct nlmsghdr *nlh = rt_link(RTM_NEWLINK, 0, RT_SEQ, RT_PORTID, 3, up, "eth1", 0);

		mnl_attr_put_u16(nlh, IFLA_MTU, 1500);
		rt_end(nlh);
		nlh = rt_link(RTM_NEWLINK, 0, RT_SEQ, RT_PORTID, 4, up, "eth2", 1500);
		nlh->nlmsg_len -= 2;
		rt_end(nlh);
	}
	rt_error(RT_SEQ, RT_PORTID, 0, NULL, false);
	rt_put("mtu_malformed");
	/*
	 * A reproducer: an MTU that ends in the padding past the message's
	 * length (libmnl walks to the length aligned up).
	 */
	rt_begin(1);
	{
		struct nlmsghdr *nlh = rt_link(RTM_NEWLINK, 0, RT_SEQ, RT_PORTID, 3, up, "eth1", 0);

		mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
		nlh->nlmsg_len -= 3;
		rt_end(nlh);
	}
	rt_error(RT_SEQ, RT_PORTID, 0, NULL, false);
	rt_put("mtu_in_padding");
}

static void rtnl_event_seeds(void)
{
	const unsigned up = IFF_UP | IFF_RUNNING | IFF_LOWER_UP;
	struct nlmsghdr *nlh;

	/* Events: a link up, one up without a carrier, one removed; addresses added and removed. */
	rt_begin(0);
	rt_link_end(RTM_NEWLINK, 0, 0, 0, 2, up, "eth0", 1500);
	rt_link_end(RTM_NEWLINK, 0, 0, 0, 5, IFF_UP, "wwan0", 1428);
	rt_link_end(RTM_DELLINK, 0, 0, 0, 6, 0, "usb0", 1500);
	rt_addr(RTM_NEWADDR, 2, AF_INET);
	rt_addr(RTM_DELADDR, 2, AF_INET6);
	rt_put("events");
	/* A dump of the links after an overflow, ending in NLMSG_DONE, and an event after it in the same read. */
	rt_begin(0);
	rt_link_end(RTM_NEWLINK, NLM_F_MULTI, 1700000000, RT_PORTID, 1, up, "lo", 65536);
	rt_link_end(RTM_NEWLINK, NLM_F_MULTI, 1700000000, RT_PORTID, 2, up, "eth0", 1500);
	rt_link_end(RTM_NEWLINK, NLM_F_MULTI, 1700000000, RT_PORTID, 3, 0, "eth1", 1500);
	rt_done(1700000000);
	rt_link_end(RTM_NEWLINK, 0, 0, 0, 3, up, "eth1", 1500);
	rt_put("dump");
	/* An error amid events; messages of no interest (NOOP, a route). */
	rt_begin(0);
	rt_link_end(RTM_NEWLINK, 0, 0, 0, 2, up, "eth0", 1500);
	rt_error(0, 0, -ENOBUFS, NULL, false);
	rt_link_end(RTM_NEWLINK, 0, 0, 0, 2, 0, "eth0", 1500);
	rt_put("events_error_amid");
	rt_begin(0);
	rt_end(rt_msg(NLMSG_NOOP, 0, 0, 0));
	nlh = rt_msg(RTM_NEWROUTE, 0, 0, 0);
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct rtmsg));
	mnl_attr_put_u32(nlh, RTA_OIF, 2);
	rt_end(nlh);
	rt_addr(RTM_NEWADDR, 3, AF_INET);
	rt_put("events_uninteresting");
	/* Names: without a NUL, too long for IFNAMSIZ, empty. */
	rt_begin(0);
	nlh = rt_link(RTM_NEWLINK, 0, 0, 0, 2, up, NULL, 0);
	mnl_attr_put(nlh, IFLA_IFNAME, 4, "eth0");
	rt_end(nlh);
	rt_link_end(RTM_NEWLINK, 0, 0, 0, 3, up, "a-name-longer-than-ifnamsiz", 1500);
	rt_link_end(RTM_NEWLINK, 0, 0, 0, 4, up, "", 1500);
	rt_put("names_malformed");
	/* An attribute longer than its message; a message longer than the read; a header cut short. */
	rt_begin(0);
	nlh = rt_link(RTM_NEWLINK, 0, 0, 0, 2, up, "eth0", 1500);
	((struct nlattr *)((uint8_t *)nlh + NLMSG_HDRLEN + sizeof(struct ifinfomsg)))->nla_len = 200;
	rt_end(nlh);
	rt_link_end(RTM_NEWLINK, 0, 0, 0, 3, up, "eth1", 1500);
	rt_flush_cut(rt_read_len - 5);
	rt_link_end(RTM_DELLINK, 0, 0, 0, 4, up, "eth2", 1500);
	rt_flush_cut(10);
	rt_put("truncated");
	/*
	 * Reproducers: a length libmnl takes for one that fits (it compares it as
	 * an int) and steps by, 4 GB ahead, and one it aligns to a step of 0,
	 * looping for ever; each after an event that must still be taken.
	 */
	rt_begin(1);
	rt_link_end(RTM_NEWLINK, 0, 0, 0, 2, up, "eth0", 1500);
	nlh = rt_msg(RTM_NEWLINK, 0, RT_SEQ, RT_PORTID);
	rt_end(nlh);
	nlh->nlmsg_len = 0xffffff20;
	rt_put("len_above_2_31");
	rt_begin(1);
	rt_link_end(RTM_NEWLINK, 0, 0, 0, 2, up, "eth0", 1500);
	nlh = rt_msg(RTM_NEWLINK, 0, RT_SEQ, RT_PORTID);
	rt_end(nlh);
	nlh->nlmsg_len = 0xfffffffe;
	rt_put("len_aligned_to_0");
	/*
	 * A reproducer: a name whose NUL is in the padding past the message's
	 * length, at the end of the read: the name was read past the read.
	 */
	rt_begin(0);
	nlh = rt_link(RTM_NEWLINK, 0, 0, 0, 2, up, NULL, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "eth10");
	nlh->nlmsg_len -= 3;
	rt_end(nlh);
	rt_flush_cut(nlh->nlmsg_len);
	rt_put("name_in_padding_at_read_end");
	/* Two reads of events, then the reply parser's ack in a third. */
	rt_begin(0);
	rt_link_end(RTM_NEWLINK, 0, 0, 0, 2, 0, "eth0", 1500);
	rt_flush();
	rt_addr(RTM_DELADDR, 2, AF_INET);
	rt_flush();
	rt_error(RT_SEQ, RT_PORTID, 0, NULL, false);
	rt_put("events_then_ack");
}

/* ---- fuzz_tun: IP packets read from the TUN devices, and steps of time ----------------------- */

/* The record's control byte (fuzz_tun.c): the side, no packet, the step of time and how long. */
#define TUN_SERVER 0x01
#define TUN_NO_PACKET 0x02
#define TUN_FLUSH (1 << 2)
#define TUN_RUN (2 << 2)
#define TUN_TICK (3 << 2)
#define TUN_MS(v) ((v) << 4) /* v * v * 4 + 1 ms */

static uint8_t tun_in[65536];
static size_t tun_len;

static void tun_step(uint8_t ctl)
{
	tun_in[tun_len++] = ctl | TUN_NO_PACKET;
}

static void tun_packet(uint8_t ctl, const uint8_t *ip, size_t len)
{
	if (tun_len + 3 + len > sizeof(tun_in)) {
		fprintf(stderr, "gen_corpus: a fuzz_tun seed too long\n");
		exit(1);
	}
	tun_in[tun_len++] = ctl & ~TUN_NO_PACKET;
	tun_in[tun_len++] = (uint8_t)len;
	tun_in[tun_len++] = (uint8_t)(len >> 8);
	memcpy(tun_in + tun_len, ip, len);
	tun_len += len;
}

/* An IP packet of len bytes from src: IPv6 (len 40 or more) or IPv4 (20 or more). */
static void tun_ip6(uint8_t ctl, bool six, const uint8_t *src, size_t len, uint8_t fill)
{
	uint8_t ip[1500];

	memset(ip, fill, len);
	ip[0] = six ? 0x60 : 0x45;
	memcpy(ip + (six ? 8 : 12), src, six ? 16 : 4);
	tun_packet(ctl, ip, len);
}

static void tun_ip(uint8_t ctl, const uint8_t src[4], size_t len, uint8_t fill)
{
	tun_ip6(ctl, false, src, len, fill);
}

static void tun_begin(void)
{
	tun_len = 0;
}

/* The session first: the handshake, then a second for the uplinks to come up. */
static void tun_session(void)
{
	tun_step(TUN_FLUSH);
	tun_step(TUN_RUN | TUN_MS(15));
	tun_step(TUN_RUN | TUN_MS(5));
}

static void tun_seeds(void)
{
	/* Allowed (fuzz_tun.c) and not, alternately; then two that differ from a prefix only before its last byte. */
	static const struct {
		bool six;
		uint8_t a[16];
	} sources[] = {
		{ false, { 10, 1, 0, 5 } },         { false, { 10, 2, 0, 5 } },
		{ false, { 192, 168, 200, 1 } },    { false, { 192, 168, 100, 1 } },
		{ false, { 10, 9, 9, 9 } },         { false, { 10, 9, 9, 8 } },
		{ true, { 0xfd, 0, 0, 1, [15] = 5 } }, { true, { 0xfd, 0, 0, 2, [15] = 5 } },
		{ true, { 0xfe, 0x80, [15] = 1 } }, { true, { 0xfe, 0xc0, [15] = 1 } },
		{ true, { 0xfe, 0xbf, [15] = 1 } }, { false, { 193, 168, 200, 1 } },
		{ true, { 0x7e, 0x80, [15] = 1 } },
	};
	const uint8_t lan[4] = { 10, 1, 0, 2 }, srv[4] = { 10, 2, 0, 2 };

	/* The client's packets from each kind of source, allowed and not, each delivered; then short and odd ones. */
	tun_begin();
	tun_session();
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		tun_ip6(TUN_FLUSH, sources[i].six, sources[i].a, sources[i].six ? 60 : 40, (uint8_t)(0x30 + i));
	tun_packet(TUN_FLUSH, (const uint8_t *)"\x45\0\0\x13\0\0\0\0\x40\x01\0\0\x0a\x01\0\x05\x0a\x02\0", 19);
	tun_packet(TUN_FLUSH, (const uint8_t *)"\x55\0\0\x14\0\0\0\0\x40\x01\0\0\x0a\x01\0\x05\x0a\x02\0\x02", 20);
	tun_packet(TUN_FLUSH, (const uint8_t *)"\x65", 1);
	tun_step(TUN_RUN | TUN_MS(10));
	put("fuzz_tun", "sources", tun_in, tun_len);

	/* Both ways at once, kept in flight for a while, then delivered. */
	tun_begin();
	tun_session();
	for (int i = 0; i < 8; i++) {
		tun_ip(0, lan, (size_t)(100 + 150 * i), (uint8_t)i);
		tun_ip(TUN_SERVER, srv, (size_t)(1400 - 150 * i), (uint8_t)(0x80 + i));
	}
	tun_step(TUN_TICK | TUN_MS(3));
	tun_step(TUN_FLUSH);
	tun_step(TUN_RUN | TUN_MS(8));
	put("fuzz_tun", "both_ways", tun_in, tun_len);

	/* Before the session: refused; the handshake; then at once. */
	tun_begin();
	tun_ip(0, lan, 84, 1);
	tun_ip(TUN_SERVER, srv, 84, 2);
	tun_step(TUN_FLUSH);
	tun_ip(TUN_FLUSH, lan, 84, 3);
	tun_ip(TUN_SERVER | TUN_FLUSH, srv, 84, 4);
	tun_step(TUN_RUN | TUN_MS(15));
	tun_ip(TUN_SERVER | TUN_FLUSH, srv, 84, 5);
	put("fuzz_tun", "before_session", tun_in, tun_len);

	/* More than the send queue holds, with no datagram delivered meanwhile; then time. */
	tun_begin();
	tun_session();
	for (int i = 0; i < 30; i++)
		tun_ip(0, lan, 1400, (uint8_t)i);
	tun_step(TUN_RUN | TUN_MS(12));
	put("fuzz_tun", "queue_full", tun_in, tun_len);

	/* Reproducers: above the MTU (taken in, and no drop counted), and an empty read (counted as taken in). */
	tun_begin();
	tun_packet(0, (const uint8_t *)"", 0);
	tun_session();
	{
		static uint8_t big[2000];

		memset(big, 0x45, sizeof(big));
		tun_packet(TUN_FLUSH, big, 1400);
		tun_packet(TUN_FLUSH, big, 1401);
		tun_packet(TUN_SERVER | TUN_FLUSH, big, sizeof(big));
		tun_packet(TUN_SERVER | TUN_FLUSH, big, 0);
		tun_packet(TUN_FLUSH, big, 0);
	}
	put("fuzz_tun", "too_big_and_empty", tun_in, tun_len);

	/* Steps of time between packets: ticks with datagrams held back, runs of the timers. */
	tun_begin();
	tun_session();
	for (int i = 0; i < 12; i++) {
		tun_ip((uint8_t)(i % 3 == 0 ? TUN_TICK | TUN_MS(i) : i % 3 == 1 ? TUN_RUN | TUN_MS(i) : 0), lan,
		       (size_t)(40 + 100 * i), (uint8_t)i);
		tun_ip((uint8_t)(TUN_SERVER | (i % 2 ? TUN_TICK | TUN_MS(15) : TUN_FLUSH)), srv, 40, (uint8_t)i);
	}
	put("fuzz_tun", "ticks_between", tun_in, tun_len);
}

/* ---- fuzz_noise: handshake messages, MACs fixed, and the pair's steps ---------------------------- */

/* The operations of fuzz_noise.c. */
enum { N_INIT, N_RESP, N_COOKIE, N_FORWARD, N_FLUSH, N_TIME, N_DROP, N_REPLAY, N_LOAD, N_INSIDER };
#define N_SERVER 0x10 /* FORWARD: the server's datagram; REPLAY: the response */
#define N_PENDING 0x10 /* RESP, COOKIE: to the client's handshake in flight */
#define N_MAC2 0x10    /* INIT, INSIDER: mac2 with the attacker's cookie */
#define N_SPOOF 0x20   /* INIT, INSIDER: from the client's address */
#define N_SEAL 0x20    /* COOKIE: sealed as the server would */
#define N_TIME_MS(v) ((v) << 4) /* v * v * 10 + 1 ms */

static uint8_t noise_in[4096];
static size_t noise_len;
/* The pair's real messages: its first initiation, the response to it, a cookie reply to it. */
static struct wb_msg_initiation noise_init;
static struct wb_msg_response noise_resp;
static struct wb_msg_cookie noise_cookie;

static void noise_begin(uint8_t cfg)
{
	noise_in[0] = cfg;
	noise_len = 1;
}

static void noise_op(uint8_t op, const void *arg, size_t len)
{
	noise_in[noise_len++] = op;
	if (len) /* an op with no argument passes NULL, which memcpy may not take even for 0 bytes */
		memcpy(noise_in + noise_len, arg, len);
	noise_len += len;
}

static void noise_forward(uint8_t flags, uint8_t pos, uint8_t flip)
{
	const uint8_t arg[2] = { pos, flip };

	noise_op(N_FORWARD | flags, arg, 2);
}

static void noise_put(const char *name)
{
	put("fuzz_noise", name, noise_in, noise_len);
}

/* The first initiation of a fresh pair, the server's response, and a cookie reply to the initiation. */
static void noise_messages(void)
{
	static struct fp f;
	uint8_t nonce[WB_NONCE_LEN] = { 9, 8, 7 };
	struct fp_datagram d;

	if (fp_init(&f))
		exit(1);
	fp_start_handshake(&f);
	memcpy(&noise_init, f.c.q[0].data, sizeof(noise_init));
	fp_deliver_queue(&f, &f.c, &f.s);
	d = take(&f.s);
	memcpy(&noise_resp, d.data, sizeof(noise_resp));
	free(d.data);
	if (wb_cookie_create_reply(&noise_cookie, &f.s.dev->cookies, &f.s.dev->local, &noise_init, sizeof(noise_init),
				   wb_get_le32(&noise_init.sender_index), &f.client_ep[0], nonce))
		exit(1);
	fp_free(&f);
}

static void noise_flips(void)
{
	static const struct {
		const char *name;
		uint8_t flags, pos;
	} flips[] = {
		{ "flip_init_sender_index", 0, 4 },      { "flip_init_ephemeral", 0, 8 },
		{ "flip_init_static", 0, 40 },           { "flip_init_timestamp", 0, 88 },
		{ "flip_resp_sender_index", N_SERVER, 4 }, { "flip_resp_ephemeral", N_SERVER, 12 },
		{ "flip_resp_incarnation", N_SERVER, 44 },
	};

	for (size_t i = 0; i < sizeof(flips) / sizeof(flips[0]); i++) {
		noise_begin(0);
		if (flips[i].flags & N_SERVER)
			noise_forward(0, 0, 0);
		noise_forward(flips[i].flags, flips[i].pos, 0x80);
		noise_op(N_FLUSH, NULL, 0);
		noise_op(N_TIME | N_TIME_MS(15), NULL, 0);
		noise_put(flips[i].name);
	}
}

static void noise_seeds(void)
{
	uint8_t junk[sizeof(struct wb_msg_initiation)], sealed[sizeof(struct wb_msg_cookie)] = { 0 };
	uint8_t insider[7] = { 0xa0, 0x05, 0, 1, 2, 3, 4 }; /* +1440 minutes: a day ahead */

	noise_messages();
	/* The handshake as it goes, one datagram at a time, then a second of time. */
	noise_begin(0);
	noise_forward(0, 0, 0);
	noise_forward(N_SERVER, 0, 0);
	noise_op(N_FLUSH, NULL, 0);
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_put("handshake");
	/* The attacker sends the client's initiation first (the server answers the attacker). */
	noise_begin(0);
	noise_op(N_INIT, &noise_init, sizeof(noise_init));
	noise_op(N_FLUSH, NULL, 0);
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_put("init_from_attacker");
	/* The response to the client's handshake, though its initiation was lost on the way. */
	noise_begin(0);
	noise_op(N_DROP, NULL, 0);
	noise_op(N_RESP | N_PENDING, &noise_resp, sizeof(noise_resp));
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_put("resp_without_init");
	/* Cookie replies: the server's own, and one the attacker seals to the mac1 it saw. */
	noise_begin(0);
	noise_op(N_COOKIE | N_PENDING, &noise_cookie, sizeof(noise_cookie));
	noise_op(N_FLUSH, NULL, 0);
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_put("cookie_reply");
	for (size_t i = 8; i < sizeof(sealed); i++)
		sealed[i] = (uint8_t)(i * 7);
	noise_begin(1);
	noise_op(N_COOKIE | N_PENDING | N_SEAL, sealed, sizeof(sealed));
	noise_op(N_LOAD, NULL, 0);
	noise_op(N_FLUSH, NULL, 0);
	noise_op(N_TIME | N_TIME_MS(12), NULL, 0);
	noise_put("cookie_forged_then_load");
	/* Sealed to the mac1 the client sent, but to an index that is no handshake of its own. */
	noise_begin(0);
	noise_op(N_COOKIE | N_SEAL, sealed, sizeof(sealed));
	noise_op(N_FLUSH, NULL, 0);
	noise_put("cookie_sealed_to_another_index");
	/* Under load: a cookie reply to the client, whose next initiation carries mac2. */
	noise_begin(3);
	noise_op(N_LOAD, NULL, 0);
	noise_forward(0, 0, 0);
	noise_forward(N_SERVER, 0, 0);
	noise_op(N_TIME | N_TIME_MS(12), NULL, 0);
	noise_op(N_FLUSH, NULL, 0);
	noise_put("under_load");
	/* The attacker under load: garbage brings it a cookie; with mac2 its replay is taken. */
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 13);
	junk[0] = WB_MSG_INITIATION;
	noise_begin(3);
	noise_op(N_LOAD, NULL, 0);
	noise_op(N_INIT, junk, sizeof(junk));
	noise_op(N_FLUSH, NULL, 0);
	noise_op(N_LOAD, NULL, 0);
	noise_op(N_INIT | N_MAC2, &noise_init, sizeof(noise_init));
	noise_op(N_FLUSH, NULL, 0);
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_put("attacker_cookie");
	/* Replays of what the attacker saw, once the session is up. */
	noise_begin(0);
	noise_forward(0, 0, 0);
	noise_forward(N_SERVER, 0, 0);
	noise_op(N_FLUSH, NULL, 0);
	noise_op(N_REPLAY, NULL, 0);
	noise_op(N_REPLAY | N_SERVER, NULL, 0);
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_put("replays");
	/* The initiation again a second later (not too soon: refused for its timestamp only). */
	noise_begin(0);
	noise_forward(0, 0, 0);
	noise_forward(N_SERVER, 0, 0);
	noise_op(N_FLUSH, NULL, 0);
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_op(N_REPLAY, NULL, 0);
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_put("replay_a_second_later");
	noise_flips();
	/* With the client's keys: a timestamp a day ahead; another incarnation, from the client's address. */
	noise_begin(0);
	noise_op(N_FLUSH, NULL, 0);
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_op(N_INSIDER, insider, sizeof(insider));
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_put("insider_future");
	insider[0] = 1;
	insider[1] = 0;
	insider[2] = 3;
	noise_begin(0);
	noise_op(N_FLUSH, NULL, 0);
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_op(N_INSIDER | N_SPOOF, insider, sizeof(insider));
	noise_op(N_FLUSH, NULL, 0);
	noise_op(N_TIME | N_TIME_MS(10), NULL, 0);
	noise_put("insider_incarnation");
}

/* ---- fuzz_seq: operations on datagrams in flight, over time ------------------------------------- */

/* The operations of fuzz_seq.c, the direction bit, the parameter. */
enum { S_SEND, S_DELIVER, S_DROP, S_DUP, S_REORDER, S_ALL, S_UPLINK, S_TIME };
#define S_BACK 0x08
#define S_V(v) ((v) << 4)

static uint8_t seq_in[4096];
static size_t seq_len;

static void seq_begin(uint8_t cfg)
{
	seq_in[0] = cfg;
	seq_len = 1;
}

static void seq_op(uint8_t op)
{
	seq_in[seq_len++] = op;
}

static void seq_op_at(uint8_t op, uint8_t k)
{
	seq_op(op);
	seq_op(k);
}

/* n (1..16) packets from one side, each of 20 + 5 * size bytes. */
static void seq_send(uint8_t back, unsigned n, uint8_t size)
{
	seq_op((uint8_t)(S_SEND | back | S_V(n - 1)));
	for (unsigned i = 0; i < n; i++)
		seq_op((uint8_t)(size + i));
}

/* Everything delivered both ways until quiet, then time with nothing delivered, then again. */
static void seq_finish(void)
{
	seq_op(S_ALL | S_V(1));
	seq_op(S_TIME | S_V(6));
	seq_op(S_ALL | S_V(1));
}

static void seq_seeds(void)
{
	/* In order; reordered; one lost; duplicates. */
	seq_begin(0);
	seq_send(0, 8, 20);
	seq_op(S_ALL);
	seq_op(S_ALL | S_BACK);
	seq_finish();
	put("fuzz_seq", "in_order", seq_in, seq_len);
	seq_begin(0);
	seq_send(0, 8, 40);
	seq_op_at(S_REORDER, 0);
	seq_op_at(S_REORDER, 2);
	seq_op_at(S_REORDER, 1);
	seq_op(S_ALL);
	seq_finish();
	put("fuzz_seq", "reordered", seq_in, seq_len);
	seq_begin(0);
	seq_send(0, 8, 60);
	seq_op_at(S_DROP, 2);
	seq_op(S_ALL);
	seq_op(S_TIME | S_V(3));
	seq_op(S_ALL | S_BACK);
	seq_op(S_TIME | S_V(5));
	seq_finish();
	put("fuzz_seq", "one_lost", seq_in, seq_len);
	seq_begin(0);
	seq_send(0, 4, 80);
	seq_op_at(S_DUP, 0);
	seq_op_at(S_DUP, 3);
	seq_op(S_ALL);
	seq_op_at(S_DUP | S_BACK, 0);
	seq_finish();
	put("fuzz_seq", "duplicates", seq_in, seq_len);
	/* SACK holes: every other small packet lost. */
	seq_begin(0);
	seq_send(0, 16, 0);
	for (uint8_t k = 1; k < 9; k++)
		seq_op_at(S_DROP, k);
	seq_op(S_ALL);
	seq_op(S_ALL | S_BACK);
	seq_op(S_TIME | S_V(4));
	seq_finish();
	put("fuzz_seq", "sack_holes", seq_in, seq_len);
	/* An uplink dies with what it carries; time passes with nothing delivered. */
	seq_begin(0);
	seq_send(0, 16, 100);
	seq_op(S_UPLINK | S_V(0));
	seq_op(S_ALL);
	seq_op(S_TIME | S_V(10));
	seq_finish();
	put("fuzz_seq", "uplink_dies", seq_in, seq_len);
	seq_begin(0);
	seq_send(0, 8, 120);
	seq_send(S_BACK, 8, 120);
	seq_op(S_TIME | S_V(15));
	seq_op(S_TIME | S_V(15));
	seq_finish();
	put("fuzz_seq", "silence", seq_in, seq_len);
	/* More than the windows and the queue hold, both ways, some of it reordered. */
	seq_begin(0);
	for (int i = 0; i < 4; i++) {
		seq_send(0, 16, 240);
		seq_send(S_BACK, 4, 200);
	}
	seq_op_at(S_REORDER | S_BACK, 1);
	seq_op(S_ALL);
	seq_op(S_ALL | S_BACK);
	seq_finish();
	put("fuzz_seq", "windows_full", seq_in, seq_len);
	/* The other schedulers and NewReno. */
	for (uint8_t cfg = 1; cfg < 8; cfg++) {
		char name[32];

		seq_begin(cfg);
		seq_send(0, 8, 50);
		seq_op_at(S_DROP, 1);
		seq_op_at(S_REORDER, 0);
		seq_op(S_ALL);
		seq_send(S_BACK, 2, 30);
		seq_finish();
		snprintf(name, sizeof(name), "setup_%u", cfg);
		put("fuzz_seq", name, seq_in, seq_len);
	}
}

/* ---- fuzz_offload: TUN reads with offloads, the virtio header and a packet --------------------- */

static uint8_t off_in[WB_VNET_HDR_LEN + 8192];

/* An IP header for a packet of len bytes; returns its length. */
static size_t off_ip(uint8_t *ip, bool six, uint8_t proto, size_t len)
{
	static const uint8_t a4[8] = { 10, 1, 0, 2, 192, 0, 2, 77 };
	static const uint8_t a6[32] = { 0xfd, 0, 0, 1, [15] = 2, [16] = 0x20, 0x01, 0x0d, 0xb8, [31] = 7 };

	if (!six) {
		memset(ip, 0, 20);
		ip[0] = 0x45;
		wb_put_be16(ip + 2, (uint16_t)len);
		wb_put_be16(ip + 4, 0x1234);
		ip[6] = 0x40;
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, a4, 8);
		wb_csum_store(ip + 10, wb_csum_add(0, ip, 20));
		return 20;
	}
	memset(ip, 0, 40);
	ip[0] = 0x60;
	wb_put_be16(ip + 4, (uint16_t)(len - 40));
	ip[6] = proto;
	ip[7] = 64;
	memcpy(ip + 8, a6, 32);
	return 40;
}

/* The checksum field as the kernel leaves it to the device: the pseudo-header's sum, not complemented. */
static void off_partial(uint8_t *ip, bool six, uint8_t proto, size_t len, size_t ihl, size_t field)
{
	uint16_t partial = wb_csum_fold(wb_csum_pseudo(ip, six ? 6 : 4, proto, (uint32_t)(len - ihl)));

	memcpy(ip + ihl + field, &partial, 2);
}

/* A TCP segment with timestamps and payload bytes of payload_len; returns the read's length. */
static size_t off_tcp(bool six, size_t payload_len, uint8_t flags)
{
	uint8_t *ip = off_in + WB_VNET_HDR_LEN, *tcp;
	size_t len = (six ? 40 : 20) + 32 + payload_len, ihl = off_ip(ip, six, 6, len);

	tcp = ip + ihl;
	memset(tcp, 0, 32);
	wb_put_be16(tcp, 40000);
	wb_put_be16(tcp + 2, 443);
	wb_put_be32(tcp + 4, 0xfffffc00u);
	wb_put_be32(tcp + 8, 0x12345678);
	tcp[12] = 8 << 4;
	tcp[13] = flags;
	wb_put_be16(tcp + 14, 501);
	memcpy(tcp + 20, "\x01\x01\x08\x0a\0\0\x03\xe8\x0b\xad\xca\xfe", 12);
	for (size_t i = 0; i < payload_len; i++)
		tcp[32 + i] = (uint8_t)(i * 7 + i / 251);
	off_partial(ip, six, 6, len, ihl, WB_TCP_CSUM);
	return WB_VNET_HDR_LEN + len;
}

static size_t off_udp(bool six, size_t payload_len)
{
	uint8_t *ip = off_in + WB_VNET_HDR_LEN;
	size_t len = (six ? 40 : 20) + 8 + payload_len, ihl = off_ip(ip, six, 17, len);

	wb_put_be16(ip + ihl, 5353);
	wb_put_be16(ip + ihl + 2, 53);
	wb_put_be16(ip + ihl + 4, (uint16_t)(len - ihl));
	for (size_t i = 0; i < payload_len; i++)
		ip[ihl + 8 + i] = (uint8_t)(0x41 + i % 26);
	off_partial(ip, six, 17, len, ihl, 6);
	return WB_VNET_HDR_LEN + len;
}

static void off_put(const char *name, size_t len, uint8_t flags, uint8_t gso_type, uint16_t gso_size,
		    uint16_t csum_start, uint16_t csum_offset)
{
	const uint8_t *ip = off_in + WB_VNET_HDR_LEN;
	struct wb_tcp_packet t;
	struct wb_vnet_hdr h = { flags, gso_type, 0, gso_size, csum_start, csum_offset };

	if (wb_tcp_packet_parse(ip, len - WB_VNET_HDR_LEN, &t))
		h.hdr_len = t.hdr_len;
	wb_vnet_hdr_put(off_in, &h);
	put("fuzz_offload", name, off_in, len);
}

static void offload_seeds(void)
{
	const uint8_t nc = WB_VNET_F_NEEDS_CSUM;
	size_t len;

	/* Large segments as the kernel hands them over. */
	off_put("tso_ipv4", off_tcp(false, 4000, WB_TCP_ACK | WB_TCP_PSH), nc, WB_VNET_GSO_TCPV4, 1400, 20, 16);
	off_put("tso_ipv6", off_tcp(true, 4200, WB_TCP_ACK | WB_TCP_PSH), nc, WB_VNET_GSO_TCPV6, 1400, 40, 16);
	off_put("tso_ipv6_ecn_fin", off_tcp(true, 3000, WB_TCP_ACK | WB_TCP_PSH | WB_TCP_FIN | WB_TCP_CWR), nc,
		WB_VNET_GSO_TCPV6 | WB_VNET_GSO_ECN, 1000, 40, 16);
	off_put("tso_ipv4_multiple", off_tcp(false, 2800, WB_TCP_ACK), nc, WB_VNET_GSO_TCPV4, 1400, 20, 16);
	off_put("tso_ipv4_mss_8", off_tcp(false, 100, WB_TCP_ACK | WB_TCP_PSH), nc, WB_VNET_GSO_TCPV4, 8, 20, 16);
	off_put("tso_ipv4_no_payload", off_tcp(false, 0, WB_TCP_ACK | WB_TCP_FIN), nc, WB_VNET_GSO_TCPV4, 1400, 20,
		16);
	/* Not GSO: a checksum left to the device, and none. */
	off_put("csum_udp4", off_udp(false, 300), nc, WB_VNET_GSO_NONE, 0, 20, 6);
	off_put("csum_udp6", off_udp(true, 301), nc, WB_VNET_GSO_NONE, 0, 40, 6);
	off_put("csum_tcp6", off_tcp(true, 1000, WB_TCP_ACK | WB_TCP_PSH), nc, WB_VNET_GSO_NONE, 0, 40, 16);
	len = off_tcp(false, 500, WB_TCP_ACK);
	{
		/* Completed: what gro.c gathers as it is. */
		uint8_t *ip = off_in + WB_VNET_HDR_LEN;

		ip[20 + WB_TCP_CSUM] = ip[20 + WB_TCP_CSUM + 1] = 0;
		wb_csum_store(ip + 20 + WB_TCP_CSUM,
			      wb_csum_add(wb_csum_pseudo(ip, 4, 6, (uint32_t)(len - WB_VNET_HDR_LEN - 20)), ip + 20,
					  len - WB_VNET_HDR_LEN - 20));
		off_put("plain_tcp4", len, 0, WB_VNET_GSO_NONE, 0, 0, 0);
	}
	/* Malformed: each refused. */
	off_put("bad_tcpv6_on_ipv4", off_tcp(false, 3000, WB_TCP_ACK), nc, WB_VNET_GSO_TCPV6, 1400, 20, 16);
	off_put("bad_gso_size_0", off_tcp(true, 3000, WB_TCP_ACK), nc, WB_VNET_GSO_TCPV6, 0, 40, 16);
	off_put("bad_length", off_tcp(false, 3000, WB_TCP_ACK) - 1, nc, WB_VNET_GSO_TCPV4, 1400, 20, 16);
	off_put("bad_csum_start", off_udp(false, 30), nc, WB_VNET_GSO_NONE, 0, 60, 6);
	off_put("bad_gso_udp", off_udp(false, 3000), nc, 3, 1400, 20, 6);
	len = off_tcp(false, 3000, WB_TCP_ACK);
	off_in[WB_VNET_HDR_LEN + 6] |= 0x20;
	off_put("bad_ipv4_mf", len, nc, WB_VNET_GSO_TCPV4, 1400, 20, 16);
	put("fuzz_offload", "bad_short", "\x01\x01\x34\0", 4);
}

/* ---- fuzz_classify: a configuration text, NUL, an IP packet; or a packet alone ---------------- */

static uint8_t cl_in[512];
static size_t cl_len;

static void cl_begin(const char *text)
{
	cl_len = 0;
	if (text) {
		cl_len = strlen(text) + 1;
		memcpy(cl_in, text, cl_len);
	}
}

static uint8_t *cl_add(size_t len)
{
	uint8_t *p = cl_in + cl_len;

	memset(p, 0, len);
	cl_len += len;
	return p;
}

/* The first four bytes of a TCP or UDP header: its ports. */
static void cl_ports(uint16_t sport, uint16_t dport)
{
	uint8_t *p = cl_add(4);

	wb_put_be16(p, sport);
	wb_put_be16(p + 2, dport);
}

/* An IPv4 header of ihl 32-bit words, with the fragment field given (flags and offset). */
static void cl_ip4(uint8_t ihl, uint8_t dscp, uint8_t proto, uint16_t frag)
{
	uint8_t *ip = cl_add((size_t)ihl * 4);

	ip[0] = (uint8_t)(0x40 | ihl);
	ip[1] = (uint8_t)(dscp << 2);
	wb_put_be16(ip + 6, frag);
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, "\x0a\x01\x00\x02\xc0\x00\x02\x4d", 8);
}

static void cl_ip6(uint8_t dscp, uint8_t next)
{
	uint8_t *ip = cl_add(40);

	ip[0] = (uint8_t)(0x60 | dscp >> 2);
	ip[1] = (uint8_t)(dscp << 6);
	ip[6] = next;
	ip[7] = 64;
	ip[8] = 0xfd, ip[23] = 2, ip[24] = 0x20, ip[25] = 0x01, ip[39] = 7;
}

/* An extension header of words 8-byte words; a fragment header (one word) with its offset. */
static void cl_ext(uint8_t next, uint8_t words)
{
	uint8_t *p = cl_add((size_t)words * 8);

	p[0] = next;
	p[1] = (uint8_t)(words - 1);
}

static void cl_frag(uint8_t next, uint16_t offset)
{
	uint8_t *p = cl_add(8);

	p[0] = next;
	wb_put_be16(p + 2, (uint16_t)(offset << 3 | 1));
	wb_put_be32(p + 4, 0x5eed);
}

/* Ends the packet: its length fields, and a few payload bytes of it. */
static void cl_put(const char *name, size_t packet_at)
{
	uint8_t *ip = cl_in + packet_at;
	size_t len = cl_len - packet_at;

	if (len >= 20 && ip[0] >> 4 == 4)
		wb_put_be16(ip + 2, (uint16_t)len);
	else if (len >= 40 && ip[0] >> 4 == 6)
		wb_put_be16(ip + 4, (uint16_t)(len - 40));
	put("fuzz_classify", name, cl_in, cl_len);
}

static void classify_packet_seeds(void)
{
	static const struct {
		const char *name;
		uint8_t ihl, dscp, proto;
		uint16_t frag, sport, dport;
	} v4[] = {
		{ "ipv4_ef_udp", 5, 46, 17, 0x4000, 40000, 5004 },
		{ "ipv4_af41_tcp", 5, 34, 6, 0x4000, 443, 50000 },
		{ "ipv4_cs0_udp_rule", 5, 0, 17, 0, 3478, 61000 },
		{ "ipv4_options_tcp_rule", 15, 0, 6, 0, 50000, 27020 },
		{ "ipv4_first_fragment", 5, 0, 17, 0x2000, 3478, 3478 },
		{ "ipv4_later_fragment", 5, 0, 17, 185, 3478, 3478 },
		{ "ipv4_icmp", 5, 0, 1, 0, 3478, 3478 },
	};
	const uint8_t udp = 17, tcp = 6, hbh = 0, rt = 43, frag = 44, dst = 60;

	for (size_t i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
		cl_begin(NULL);
		cl_ip4(v4[i].ihl, v4[i].dscp, v4[i].proto, v4[i].frag);
		cl_ports(v4[i].sport, v4[i].dport);
		cl_put(v4[i].name, 0);
	}
	cl_begin(NULL);
	cl_ip4(5, 46, udp, 0);
	cl_in[0] = 0x44;
	cl_put("bad_ipv4_ihl_4", 0);
	cl_begin(NULL);
	cl_ip4(6, 46, udp, 0);
	cl_len = 22;
	cl_put("bad_ipv4_ihl_past_end", 0);

	cl_begin(NULL);
	cl_ip6(46, udp);
	cl_ports(40000, 5004);
	cl_put("ipv6_ef_udp", 0);
	for (uint16_t offset = 0; offset < 200; offset += 181) {
		cl_begin(NULL);
		cl_ip6(0, hbh);
		cl_ext(frag, 1);
		cl_frag(udp, offset);
		cl_ports(3479, 40000);
		cl_put(offset ? "ipv6_hbh_later_fragment" : "ipv6_hbh_first_fragment", 0);
	}
	cl_begin(NULL);
	cl_ip6(0, rt);
	cl_ext(dst, 3);
	cl_ext(tcp, 2);
	cl_ports(27015, 443);
	cl_put("ipv6_routing_dstopts_tcp_rule", 0);
	cl_begin(NULL);
	cl_ip6(0, dst);
	for (int i = 0; i < 9; i++)
		cl_ext(i < 8 ? dst : udp, 1);
	cl_ports(3478, 3478);
	cl_put("ipv6_nine_dstopts", 0);
	cl_begin(NULL);
	cl_ip6(0, dst);
	cl_ext(udp, 3);
	cl_len -= 8;
	cl_put("bad_ipv6_ext_cut_short", 0);
	cl_begin(NULL);
	cl_ip6(46, udp);
	cl_len = 39;
	cl_put("bad_ipv6_short", 0);
}

/* A text alone (an empty packet after it), or with a packet that its rule matches or not. */
static void classify_text_seeds(void)
{
	static const char *const texts[][2] = {
		{ "dscp_ef", "ef" },
		{ "dscp_af43", "AF43" },
		{ "dscp_cs5", "cs5" },
		{ "dscp_va", "VA" },
		{ "dscp_63", "63" },
		{ "bad_dscp_64", "64" },
		{ "bad_dscp_af44", "AF44" },
		{ "class", "interactive" },
		{ "bad_rule_junk", "udp:5060x" },
		{ "bad_rule_order", "udp:10-5" },
		{ "bad_rule_sctp", "sctp:5" },
	};
	size_t at;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		cl_begin(texts[i][1]);
		cl_put(texts[i][0], cl_len);
	}
	cl_begin("udp:5060");
	at = cl_len;
	cl_ip4(5, 0, 17, 0);
	cl_ports(40000, 5060);
	cl_put("rule_udp_ipv4", at);
	cl_begin("tcp:5060");
	at = cl_len;
	cl_ip4(5, 0, 17, 0);
	cl_ports(5060, 5060);
	cl_put("rule_tcp_not_udp", at);
	cl_begin("tcp:10000-20000");
	at = cl_len;
	cl_ip6(0, 6);
	cl_ports(15000, 443);
	cl_put("rule_tcp_range_ipv6", at);
	cl_begin("5060");
	at = cl_len;
	cl_ip6(0, 0);
	cl_ext(17, 1);
	cl_ports(5060, 5061);
	cl_put("rule_both_ipv6_hbh", at);
}

/* ---- fuzz_fec: parity frames, and what the receiver held (fuzz_fec.c's trailer) ------------- */

static uint8_t fec_in[WB_FEC_PARITY_MAX_LEN + 2 + WB_FEC_MAX_BLOCK * (3 + WB_FEC_MAX_PAYLOAD)];
static size_t fec_len;
static size_t fec_frame_len;   /* the frame's bytes at the start of fec_in */
static size_t fec_payload_len;
static unsigned fec_n;
static size_t fec_lens[WB_FEC_MAX_BLOCK];
static uint8_t fec_data[WB_FEC_MAX_BLOCK][WB_FEC_MAX_PAYLOAD];

/* A block of n packets, DSNs from first spread by gap (with a varying extra), lengths from lens. */
static void fec_block(unsigned n, uint64_t first, uint64_t gap, const size_t *lens)
{
	static struct wb_fec_encoder e;
	uint64_t dsn = first;

	wb_fec_encoder_init(&e, n);
	fec_n = n;
	for (unsigned i = 0; i < n; i++) {
		fec_lens[i] = lens[i];
		for (size_t j = 0; j < lens[i]; j++)
			fec_data[i][j] = (uint8_t)(i * 31 + j * 7 + 1);
		if (wb_fec_add(&e, dsn, fec_data[i], lens[i]) != (i + 1 == n)) {
			fprintf(stderr, "gen_corpus: the block did not close at its size\n");
			exit(1);
		}
		dsn += gap + i % 3;
	}
	fec_payload_len = e.max_len;
	fec_frame_len = fec_len = wb_fec_put_parity(fec_in, &e);
}

/* The trailer: the horizon and the others' bytes, then the packets noted (once, or twice). */
static void fec_trailer(uint8_t horizon, uint8_t others, uint32_t noted, uint32_t twice)
{
	fec_len = fec_frame_len;
	fec_in[fec_len++] = horizon;
	fec_in[fec_len++] = others;
	for (unsigned i = 0; i < fec_n; i++) {
		bool is_noted = noted & 1u << i;

		fec_in[fec_len++] = (uint8_t)(is_noted | (twice & 1u << i ? 2 : 0));
		if (!is_noted)
			continue;
		wb_put_le16(fec_in + fec_len, (uint16_t)fec_lens[i]);
		memcpy(fec_in + fec_len + 2, fec_data[i], fec_lens[i]);
		fec_len += 2 + fec_lens[i];
	}
}

/* The parity's len_xor and payload, where the frame ends. */
static uint8_t *fec_len_xor(void)
{
	return fec_in + fec_frame_len - fec_payload_len - 4;
}

static void fec_put(const char *name)
{
	put("fuzz_fec", name, fec_in, fec_len);
}

static void fec_raw(const char *name, uint64_t first, unsigned n, const uint64_t *deltas, size_t n_deltas,
		    uint16_t len_xor, uint16_t payload_len, size_t payload_bytes)
{
	size_t len = 1;

	fec_in[0] = WB_FRAME_FEC_PARITY;
	len += wb_varint_put(fec_in + len, first);
	fec_in[len++] = (uint8_t)n;
	for (size_t i = 0; i < n_deltas; i++)
		len += wb_varint_put(fec_in + len, deltas[i]);
	wb_put_le16(fec_in + len, len_xor);
	wb_put_le16(fec_in + len + 2, payload_len);
	len += 4;
	memset(fec_in + len, 0x5a, payload_bytes);
	put("fuzz_fec", name, fec_in, len + payload_bytes);
}

static void fec_seeds(void)
{
	static const size_t four[] = { 120, 160, 90, 200 };
	static const size_t eight[] = { 100, 1, 180, 64, 150, 7, 99, 1500 };
	static const size_t sixteen[] = { 160, 172, 90, 1500, 200, 1, 33, 170, 171, 180, 64, 2, 120, 1400, 160, 150 };
	static const uint64_t ones[WB_FEC_MAX_BLOCK + 1] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	const uint32_t all = ~0u;

	/* Rebuilt: the first, the longest, one of 16 with others noted twice, among packets of other DSNs. */
	fec_block(4, 1000, 5, four);
	fec_trailer(0, 0, all & ~1u, 0);
	fec_put("rebuild_first");
	fec_trailer(0, 0x80 | 100, all & ~4u, 0);
	fec_put("rebuild_after_others");
	fec_block(8, 1ULL << 33, 300, eight);
	fec_trailer(0, 0, all & ~0x80u, 0);
	fec_put("rebuild_longest");
	fec_block(WB_FEC_MAX_BLOCK, 70000, 1 << 20, sixteen);
	fec_trailer(0, 20, all & ~(1u << 9), 0x0505);
	fec_put("rebuild_of_16");
	/* Nothing to rebuild: all held, two missing, fallen out of the ring, none noted. */
	fec_block(4, 1000, 5, four);
	fec_trailer(0, 0, all, 0);
	fec_put("all_held");
	fec_trailer(0, 0, all & ~0xau, 0);
	fec_put("two_missing");
	fec_trailer(0, WB_FEC_RING, all & ~1u, 0);
	fec_put("fallen_out");
	fec_trailer(0, 0, 0, 0);
	fec_put("none_noted");
	fec_len = fec_frame_len;
	fec_put("frame_only");
	/* The horizon: the missing one below it, and at it. */
	fec_trailer(0x80 | 2, 0, all & ~2u, 0);
	fec_put("below_horizon");
	fec_trailer(2, 0, all & ~2u, 0);
	fec_put("at_horizon");
	/* Disagreeing with what is held: a length XOR that rebuilds 0 bytes, padding not zero, a held packet too long. */
	wb_put_le16(fec_len_xor(), (uint16_t)(wb_get_le16(fec_len_xor()) ^ four[1]));
	fec_trailer(0, 0, all & ~2u, 0);
	fec_put("rebuilt_length_0");
	fec_block(4, 1000, 5, four);
	fec_in[fec_frame_len - 1] ^= 0x01;
	fec_trailer(0, 0, all & ~2u, 0);
	fec_put("padding_not_zero");
	fec_block(4, 1000, 5, four);
	fec_lens[2] = 250;
	fec_trailer(0, 0, all & ~2u, 0);
	fec_put("held_too_long");
	/* DSNs up to the largest varint. */
	fec_block(2, WB_VARINT_MAX - 5, 5, four);
	fec_trailer(0, 0, 1, 0);
	fec_put("largest_dsn");
	/* Malformed: each refused by the parser. */
	fec_block(8, 1ULL << 33, 300, eight);
	put("fuzz_fec", "truncated", fec_in, fec_frame_len - 1);
	fec_raw("n_0", 9, 0, ones, 0, 3, 3, 3);
	fec_raw("n_1", 9, 1, ones, 0, 3, 3, 3);
	fec_raw("n_17", 9, WB_FEC_MAX_BLOCK + 1, ones, WB_FEC_MAX_BLOCK, 3, 3, 3);
	{
		const uint64_t zero[] = { 1, 0, 1 };
		const uint64_t past[] = { WB_VARINT_MAX - 8 };

		fec_raw("delta_0", 9, 4, zero, 3, 3, 3, 3);
		fec_raw("dsn_past_2_62", 9, 2, past, 1, 3, 3, 3);
	}
	fec_raw("payload_0", 9, 2, ones, 1, 0, 0, 0);
	fec_raw("payload_1501", 9, 2, ones, 1, 0, WB_FEC_MAX_PAYLOAD + 1, WB_FEC_MAX_PAYLOAD + 1);
	fec_raw("len_xor_impossible", 9, 2, ones, 1, 256, 200, 200);
}

/* ---- fuzz_latprobe: a 2-byte expected count, then [length][microseconds since the last][datagram] ---- */

static uint8_t lp_in[8192];
static size_t lp_len;
static uint64_t lp_clock_us; /* the harness's receive clock */

static void lp_begin(uint16_t expect)
{
	lp_in[0] = (uint8_t)(expect >> 8);
	lp_in[1] = (uint8_t)expect;
	lp_len = 2;
	lp_clock_us = 1000000;
}

/* A datagram of len bytes received at at_us on the harness's clock, or with the last one if that was later. */
static void lp_record(uint64_t at_us, const uint8_t *dgram, uint16_t len)
{
	uint32_t us = at_us > lp_clock_us ? (uint32_t)(at_us - lp_clock_us) : 0;

	if (at_us < lp_clock_us)
		at_us = lp_clock_us;

	lp_clock_us = at_us;
	lp_in[lp_len++] = (uint8_t)(len >> 8);
	lp_in[lp_len++] = (uint8_t)len;
	for (int i = 3; i >= 0; i--)
		lp_in[lp_len++] = (uint8_t)(us >> (8 * i));
	memcpy(lp_in + lp_len, dgram, len);
	lp_len += len;
}

/* Packet seq of a stream of a packet every 20 ms from 1 s, received delay_ms after it was sent. */
static void lp_packet(uint32_t stream, uint64_t seq, uint16_t size, uint64_t delay_ms)
{
	uint8_t d[256];
	uint64_t sent_us = 1000000 + seq * 20000;
	struct lp_packet p = { .stream = stream, .length = size, .seq = seq, .sent_ns = sent_us * 1000 };

	lp_packet_write(d, sizeof(d), &p);
	lp_record(sent_us + delay_ms * 1000, d, size);
}

static void latprobe_seeds(void)
{
	uint8_t d[200];
	struct lp_packet p = { .stream = 1, .length = 200, .seq = 41, .sent_ns = 123456789012ULL };

	/* Whole inputs: one datagram each. */
	lp_packet_write(d, sizeof(d), &p);
	put("fuzz_latprobe", "voice_packet", d, 200);
	p.length = LP_HDR_LEN;
	lp_packet_write(d, sizeof(d), &p);
	put("fuzz_latprobe", "header_only", d, LP_HDR_LEN);
	d[15] = 1; /* a length field that is not the datagram's */
	put("fuzz_latprobe", "bad_length", d, LP_HDR_LEN);

	/*
	 * A voice stream of 14 expected, 0..13, 30 ms one way with a wobble:
	 * 0 and 13 never come (loss at the start and the end), nor does 5; 7
	 * comes twice; 4 comes 80 ms after it was sent, after 6.
	 */
	lp_begin(14);
	for (uint64_t seq = 1; seq < 13; seq++) {
		if (seq == 4 || seq == 5)
			continue;
		lp_packet(1, seq, 200, 30 + seq % 3);
		if (seq == 6)
			lp_packet(1, 4, 200, 80);
		if (seq == 7)
			lp_packet(1, 7, 200, 31);
	}
	put("fuzz_latprobe", "voice_stream", lp_in, lp_len);

	/* A game stream with what else a socket hears: another stream, a stranger, a packet cut short. */
	lp_begin(0);
	lp_packet(2, 0, 100, 20);
	lp_packet(9, 0, 100, 21);
	lp_record(lp_clock_us + 100, (const uint8_t *)"GET / HTTP/1.0\r\n\r\n", 18);
	lp_packet(2, 1, 100, 20);
	lp_in[lp_len - 100 + 15] = 0; /* its length field: 0, so refused */
	lp_packet(2, 2, 100, 20);
	put("fuzz_latprobe", "game_and_strangers", lp_in, lp_len);

	/* A sequence jump past the window of duplicates, and what is then too old. */
	lp_begin(0);
	lp_packet(1, 0, 40, 10);
	lp_packet(1, LP_SEQ_WINDOW, 40, 10);
	lp_packet(1, 0, 40, 10);
	lp_packet(1, 1, 40, 10);
	lp_packet(1, LP_SEQ_WINDOW - 1, 40, 10);
	lp_packet(1, LP_SEQ_WINDOW, 40, 10);
	put("fuzz_latprobe", "window_jump", lp_in, lp_len);
}

int main(int argc, char **argv)
{
	root = argc > 1 ? argv[1] : "tests/fuzz/corpus";
	datagram_seeds();
	frame_seeds();
	ctl_seeds();
	rtnl_reply_seeds();
	rtnl_event_seeds();
	tun_seeds();
	noise_seeds();
	seq_seeds();
	offload_seeds();
	classify_packet_seeds();
	classify_text_seeds();
	fec_seeds();
	latprobe_seeds();
	return 0;
}
