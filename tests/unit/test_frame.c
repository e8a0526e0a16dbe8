// SPDX-License-Identifier: MIT
/*
 * Unit tests: frame.c, the builders and the parser of the frames inside a
 * data message's sealed body. The parser meets what a buggy or hostile peer
 * sends after decryption, so every truncation of a valid body is parsed from
 * a heap buffer of exactly that length: under ASan a read past it is a crash.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "prng.h"
#include "varint.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Parses one frame from a copy of [p, p+len) in a heap buffer of exactly len bytes. */
static int parse_one(const uint8_t *p, size_t len, struct wb_frame *f, size_t *used)
{
	uint8_t *copy = malloc(len ? len : 1);
	const uint8_t *pos;
	int rc;

	assert_non_null(copy);
	memcpy(copy, p, len);
	pos = copy;
	rc = wb_frame_next(&pos, copy + len, f);
	assert_true(pos >= copy && pos <= copy + len);
	*used = (size_t)(pos - copy);
	/* A data frame points into the body, and so does a parity's payload: translate them back for the caller. */
	if (rc == 1 && f->type == WB_FRAME_DATA) {
		assert_true(f->data.data > copy && f->data.data + f->data.len <= copy + len);
		f->data.data = p + (f->data.data - copy);
	}
	if (rc == 1 && f->type == WB_FRAME_FEC_PARITY) {
		const struct wb_fec_parity *par = &f->fec_parity;

		assert_true(par->payload > copy && par->payload + par->payload_len <= copy + *used);
		f->fec_parity.payload = p + (par->payload - copy);
	}
	free(copy);
	return rc;
}

static void test_probe_round_trip(void **state)
{
	const struct wb_probe probes[] = {
		{ 0, 0, 0 },
		{ 1, 123456789012345ULL, 42 },
		{ UINT32_MAX, UINT64_MAX, UINT64_MAX },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(probes); i++) {
		uint8_t buf[64];
		struct wb_frame f;
		size_t n = wb_frame_put_probe(buf, &probes[i]), used;

		assert_int_equal(n, WB_FRAME_PROBE_LEN);
		assert_int_equal(n, 21);
		assert_int_equal(buf[0], WB_FRAME_PROBE);
		assert_int_equal(parse_one(buf, n, &f, &used), 1);
		assert_int_equal(used, n);
		assert_int_equal(f.type, WB_FRAME_PROBE);
		assert_int_equal(f.probe.seq, probes[i].seq);
		assert_int_equal(f.probe.sent_ns, probes[i].sent_ns);
		assert_int_equal(f.probe.tx_packets, probes[i].tx_packets);
	}
}

/* A path MTU probe fills what it is given: its frame, then padding, which ends the body's parse. */
static void test_pmtu_probe_is_padded_to_its_size(void **state)
{
	uint8_t buf[1500];
	const uint8_t *pos = buf, *end;
	struct wb_frame f;
	size_t n;

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	n = wb_frame_put_pmtu_probe(buf, 1433);
	assert_int_equal(n, 1433);
	assert_int_equal(buf[0], WB_FRAME_PMTU_PROBE);
	for (size_t i = 1; i < n; i++)
		assert_int_equal(buf[i], WB_FRAME_PADDING);
	assert_int_equal(buf[n], 0xee);
	end = buf + n;
	assert_int_equal(wb_frame_next(&pos, end, &f), 1);
	assert_int_equal(f.type, WB_FRAME_PMTU_PROBE);
	assert_ptr_equal(pos, buf + WB_FRAME_PMTU_PROBE_LEN);
	assert_int_equal(wb_frame_next(&pos, end, &f), 0);
	/* The frame alone is a whole probe too. */
	assert_int_equal(wb_frame_put_pmtu_probe(buf, 1), 1);
	assert_int_equal(parse_one(buf, 1, &f, &n), 1);
}

static void test_pmtu_ack_round_trip_and_truncation(void **state)
{
	uint8_t buf[8];
	struct wb_frame f;
	size_t n = wb_frame_put_pmtu_ack(buf, 0x0504), used;

	(void)state;
	assert_int_equal(n, WB_FRAME_PMTU_ACK_LEN);
	assert_int_equal(buf[1], 0x04); /* little-endian */
	assert_int_equal(buf[2], 0x05);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(used, n);
	assert_int_equal(f.type, WB_FRAME_PMTU_ACK);
	assert_int_equal(f.pmtu_size, 0x0504);
	for (size_t k = 1; k < n; k++)
		assert_int_equal(parse_one(buf, k, &f, &used), -EBADMSG);
}

static void test_probe_is_little_endian_on_the_wire(void **state)
{
	uint8_t buf[64];
	struct wb_probe probe = { 0x04030201, 0x0c0b0a0908070605ULL, 0x14131211100f0e0dULL };

	(void)state;
	wb_frame_put_probe(buf, &probe);
	for (int i = 1; i <= 20; i++)
		assert_int_equal(buf[i], i);
}

static void test_probe_ack_round_trip(void **state)
{
	const struct wb_probe_ack acks[] = {
		{ 0, 0, 0, 0 },
		{ 7, 1000000000ULL, 99, 98 },
		{ UINT32_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(acks); i++) {
		uint8_t buf[64];
		struct wb_frame f;
		size_t n = wb_frame_put_probe_ack(buf, &acks[i]), used;

		assert_int_equal(n, WB_FRAME_PROBE_ACK_LEN);
		assert_int_equal(n, 29);
		assert_int_equal(parse_one(buf, n, &f, &used), 1);
		assert_int_equal(used, n);
		assert_int_equal(f.type, WB_FRAME_PROBE_ACK);
		assert_int_equal(f.probe_ack.seq, acks[i].seq);
		assert_int_equal(f.probe_ack.sent_ns, acks[i].sent_ns);
		assert_int_equal(f.probe_ack.tx_packets, acks[i].tx_packets);
		assert_int_equal(f.probe_ack.rx_packets, acks[i].rx_packets);
	}
}

static void test_close_round_trip(void **state)
{
	uint8_t buf[8];
	struct wb_frame f;
	size_t used, n = wb_frame_put_close(buf, WB_CLOSE_SHUTDOWN);

	(void)state;
	assert_int_equal(n, WB_FRAME_CLOSE_LEN);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(used, 2);
	assert_int_equal(f.type, WB_FRAME_CLOSE);
	assert_int_equal(f.close_reason, WB_CLOSE_SHUTDOWN);
	/* The reason is carried as it is, known or not. */
	wb_frame_put_close(buf, 0xee);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(f.close_reason, 0xee);
}

static void test_uplink_info_round_trip(void **state)
{
	const struct wb_uplink_info infos[] = {
		{ 0, 1, "a" },
		{ WB_UPLINK_BACKUP, 65535, "lte-backup" },
		{ 0xff, 0, "0123456789012345678901234567890" }, /* 31 characters, the longest */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(infos); i++) {
		uint8_t buf[64];
		struct wb_frame f;
		size_t used, n = wb_frame_put_uplink_info(buf, &infos[i]);

		assert_int_equal(n, 5 + strlen(infos[i].name));
		assert_int_equal(buf[4], strlen(infos[i].name));
		assert_int_equal(parse_one(buf, n, &f, &used), 1);
		assert_int_equal(used, n);
		assert_int_equal(f.type, WB_FRAME_UPLINK_INFO);
		assert_int_equal(f.uplink_info.flags, infos[i].flags);
		assert_int_equal(f.uplink_info.weight, infos[i].weight);
		assert_string_equal(f.uplink_info.name, infos[i].name);
	}
}

static void test_data_round_trip(void **state)
{
	static const uint64_t dsns[] = { 0, 1, 0x12345678, 0xffffffffULL, 0x100000000ULL, 0xabcdef0123456789ULL };
	uint8_t buf[WB_FRAME_DATA_HEADER + 1500];
	struct wb_frame f;
	size_t used;

	(void)state;
	for (size_t k = 0; k < ARRAY_LEN(dsns); k++) {
		for (size_t len = 1; len <= 1500; len += len < 20 ? 1 : 97) {
			for (size_t i = 0; i < len; i++)
				buf[WB_FRAME_DATA_HEADER + i] = (uint8_t)(i * 7 + len);
			wb_frame_put_data_header(buf, dsns[k], len);
			/* Type, the DSN's low 32 bits little-endian, the length little-endian. */
			assert_int_equal(buf[0], WB_FRAME_DATA);
			assert_int_equal(buf[1] | buf[2] << 8 | buf[3] << 16 | (uint32_t)buf[4] << 24,
					 (uint32_t)dsns[k]);
			assert_int_equal(buf[5] | buf[6] << 8, len);
			assert_int_equal(parse_one(buf, WB_FRAME_DATA_HEADER + len, &f, &used), 1);
			assert_int_equal(used, WB_FRAME_DATA_HEADER + len);
			assert_int_equal(f.type, WB_FRAME_DATA);
			assert_int_equal(f.data.dsn, (uint32_t)dsns[k]);
			assert_int_equal(f.data.len, len);
			assert_ptr_equal(f.data.data, buf + WB_FRAME_DATA_HEADER);
		}
	}
}

static const struct wb_ack body_ack = {
	.delay_us = 1234, .n = 3, .r = { { 90, 100 }, { 50, 70 }, { 0, 3 } },
};
static const struct wb_bond_ack body_bond_ack = {
	.cum = 1000, .rwnd = 6 << 20, .n = 2, .s = { { 1002, 1010 }, { 70000, 70000 } },
};

/* The parity of three packets the body's data frames are not: DSNs 70, 72 and 75. */
static size_t put_body_parity(uint8_t *p)
{
	static const uint8_t ip[12] = { 0x45, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	struct wb_fec_encoder e;

	wb_fec_encoder_init(&e, 3);
	wb_fec_add(&e, 70, ip, 12);
	wb_fec_add(&e, 72, ip, 5);
	assert_true(wb_fec_add(&e, 75, ip, 9));
	return wb_fec_put_parity(p, &e);
}

/* A body of every kind of frame; offsets[] gets where each frame ends. */
#define BODY_MAX_FRAMES 10
static size_t build_body(uint8_t *body, size_t offsets[BODY_MAX_FRAMES], size_t *n_frames)
{
	size_t n = 0, k = 0;
	struct wb_probe probe = { 3, 1000, 20 };
	struct wb_probe_ack ack = { 4, 2000, 30, 29 };
	struct wb_uplink_info info = { WB_UPLINK_BACKUP, 5, "dsl" };

	n += wb_frame_put_probe(body + n, &probe);
	offsets[k++] = n;
	n += wb_frame_put_uplink_info(body + n, &info);
	offsets[k++] = n;
	wb_frame_put_data_header(body + n, 77, 40);
	memset(body + n + WB_FRAME_DATA_HEADER, 0x45, 40);
	n += WB_FRAME_DATA_HEADER + 40;
	offsets[k++] = n;
	n += wb_frame_put_ack(body + n, &body_ack);
	offsets[k++] = n;
	n += wb_frame_put_probe_ack(body + n, &ack);
	offsets[k++] = n;
	n += wb_frame_put_bond_ack(body + n, &body_bond_ack);
	offsets[k++] = n;
	n += put_body_parity(body + n);
	offsets[k++] = n;
	wb_frame_put_data_header(body + n, 78, 1);
	body[n + WB_FRAME_DATA_HEADER] = 0x60;
	n += WB_FRAME_DATA_HEADER + 1;
	offsets[k++] = n;
	n += wb_frame_put_close(body + n, WB_CLOSE_SHUTDOWN);
	offsets[k++] = n;
	*n_frames = k;
	return n;
}

static void test_body_with_several_frames(void **state)
{
	const enum wb_frame_type types[] = { WB_FRAME_PROBE, WB_FRAME_UPLINK_INFO, WB_FRAME_DATA,
					     WB_FRAME_ACK, WB_FRAME_PROBE_ACK, WB_FRAME_BOND_ACK,
					     WB_FRAME_FEC_PARITY, WB_FRAME_DATA, WB_FRAME_CLOSE };
	uint8_t body[256];
	size_t offsets[BODY_MAX_FRAMES], n_frames, len = build_body(body, offsets, &n_frames);
	const uint8_t *pos = body;
	struct wb_frame f;

	(void)state;
	assert_int_equal(n_frames, ARRAY_LEN(types));
	for (size_t i = 0; i < n_frames; i++) {
		assert_int_equal(wb_frame_next(&pos, body + len, &f), 1);
		assert_int_equal(f.type, types[i]);
		assert_ptr_equal(pos, body + offsets[i]);
		if (f.type == WB_FRAME_ACK) {
			assert_int_equal(f.ack.n, body_ack.n);
			assert_memory_equal(f.ack.r, body_ack.r, body_ack.n * sizeof(body_ack.r[0]));
		}
		if (f.type == WB_FRAME_BOND_ACK) {
			assert_int_equal(f.bond_ack.cum, body_bond_ack.cum);
			assert_memory_equal(f.bond_ack.s, body_bond_ack.s, body_bond_ack.n * sizeof(body_bond_ack.s[0]));
		}
		if (f.type == WB_FRAME_FEC_PARITY) {
			assert_int_equal(f.fec_parity.n, 3);
			assert_int_equal(f.fec_parity.dsns[2], 75);
			assert_int_equal(f.fec_parity.len_xor, 12 ^ 5 ^ 9);
			assert_int_equal(f.fec_parity.payload_len, 12);
			assert_ptr_equal(f.fec_parity.payload + f.fec_parity.payload_len, pos);
		}
	}
	assert_int_equal(wb_frame_next(&pos, body + len, &f), 0);
	assert_ptr_equal(pos, body + len);
	/* The end stays the end. */
	assert_int_equal(wb_frame_next(&pos, body + len, &f), 0);
}

/*
 * Every prefix of the body, in a heap buffer of exactly its length: a prefix
 * that ends between two frames parses cleanly to its end, one that ends
 * inside a frame parses the frames before it and then is malformed.
 */
static void test_every_truncation_is_clean(void **state)
{
	uint8_t body[256];
	size_t offsets[BODY_MAX_FRAMES], n_frames, len = build_body(body, offsets, &n_frames);

	(void)state;
	for (size_t cut = 0; cut <= len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		const uint8_t *pos, *end;
		struct wb_frame f;
		size_t whole = 0, frames = 0;
		bool at_boundary = cut == 0;
		int rc;

		assert_non_null(copy);
		memcpy(copy, body, cut);
		pos = copy;
		end = copy + cut;
		for (size_t i = 0; i < n_frames; i++) {
			if (offsets[i] <= cut)
				whole = i + 1;
			if (offsets[i] == cut)
				at_boundary = true;
		}
		while ((rc = wb_frame_next(&pos, end, &f)) == 1) {
			assert_true(pos > copy && pos <= end);
			if (f.type == WB_FRAME_DATA)
				assert_true(f.data.data + f.data.len <= end);
			frames++;
		}
		assert_int_equal(frames, whole);
		assert_int_equal(rc, at_boundary ? 0 : -EBADMSG);
		/* A refusal leaves the position at the frame refused. */
		assert_ptr_equal(pos, copy + (whole ? offsets[whole - 1] : 0));
		free(copy);
	}
}

static void test_unknown_types_are_malformed(void **state)
{
	(void)state;
	for (unsigned t = WB_FRAME_PMTU_ACK + 1; t <= 0xff; t++) {
		uint8_t body[64] = { (uint8_t)t };
		struct wb_frame f;
		size_t used;

		if (t == WB_FRAME_FEC_PARITY)
			continue;
		assert_int_equal(parse_one(body, sizeof(body), &f, &used), -EBADMSG);
		assert_int_equal(used, 0);
	}
}

static void test_data_frame_of_length_zero_is_malformed(void **state)
{
	uint8_t body[16] = { 0 };
	struct wb_frame f;
	size_t used;

	(void)state;
	wb_frame_put_data_header(body, 5, 0);
	assert_int_equal(parse_one(body, sizeof(body), &f, &used), -EBADMSG);
	assert_int_equal(parse_one(body, WB_FRAME_DATA_HEADER, &f, &used), -EBADMSG);
	assert_int_equal(used, 0);
}

static void test_data_frame_longer_than_the_body_is_malformed(void **state)
{
	uint8_t body[WB_FRAME_DATA_HEADER + 100] = { 0 };
	struct wb_frame f;
	size_t used;

	(void)state;
	/* Exactly the body: fine. One more: malformed, at every length. */
	wb_frame_put_data_header(body, 9, 100);
	assert_int_equal(parse_one(body, sizeof(body), &f, &used), 1);
	assert_int_equal(used, sizeof(body));
	wb_frame_put_data_header(body, 9, 101);
	assert_int_equal(parse_one(body, sizeof(body), &f, &used), -EBADMSG);
	assert_int_equal(used, 0);
	wb_frame_put_data_header(body, 9, 65535);
	assert_int_equal(parse_one(body, sizeof(body), &f, &used), -EBADMSG);
	/* A header cut short, at every length. */
	wb_frame_put_data_header(body, 9, 100);
	for (size_t cut = 1; cut < WB_FRAME_DATA_HEADER; cut++)
		assert_int_equal(parse_one(body, cut, &f, &used), -EBADMSG);
}

static size_t raw_uplink_info(uint8_t *p, uint8_t name_len, const char *name, size_t name_bytes)
{
	p[0] = WB_FRAME_UPLINK_INFO;
	p[1] = 0;
	p[2] = 1;
	p[3] = 0;
	p[4] = name_len;
	memcpy(p + 5, name, name_bytes);
	return 5 + name_bytes;
}

static void test_uplink_info_name_empty_too_long_or_with_nul_is_malformed(void **state)
{
	const char name32[] = "01234567890123456789012345678901";
	uint8_t body[64];
	struct wb_frame f;
	size_t used, n;

	(void)state;
	/* Empty. */
	n = raw_uplink_info(body, 0, "", 0);
	assert_int_equal(parse_one(body, n, &f, &used), -EBADMSG);
	/* 32 bytes, one more than a name may have. */
	n = raw_uplink_info(body, 32, name32, 32);
	assert_int_equal(parse_one(body, n, &f, &used), -EBADMSG);
	/* 31 of the same bytes: fine. */
	n = raw_uplink_info(body, 31, name32, 31);
	assert_int_equal(parse_one(body, n, &f, &used), 1);
	assert_int_equal(strlen(f.uplink_info.name), 31);
	/* A NUL anywhere in the name. */
	for (int at = 0; at < 4; at++) {
		char name[5] = "wan0";

		name[at] = 0;
		n = raw_uplink_info(body, 4, name, 4);
		assert_int_equal(parse_one(body, n, &f, &used), -EBADMSG);
	}
	/* A length past the body. */
	n = raw_uplink_info(body, 10, "wan0", 4);
	assert_int_equal(parse_one(body, n, &f, &used), -EBADMSG);
	/* The header itself cut short. */
	for (size_t cut = 1; cut < 5; cut++)
		assert_int_equal(parse_one(body, cut, &f, &used), -EBADMSG);
}

/*
 * A peer's name reaches the server's logs and `wanbond show`: only the
 * configuration's characters pass (a newline would forge a log line, an
 * escape byte drive a terminal), every other byte makes the frame malformed.
 */
static void test_uplink_info_name_outside_the_names_characters_is_malformed(void **state)
{
	const char ok[] = "Lte-2.b_x";
	uint8_t body[64];
	struct wb_frame f;
	size_t used, n;

	(void)state;
	n = raw_uplink_info(body, sizeof(ok) - 1, ok, sizeof(ok) - 1);
	assert_int_equal(parse_one(body, n, &f, &used), 1);
	assert_string_equal(f.uplink_info.name, ok);
	for (unsigned c = 1; c < 256; c++) {
		char name[4] = { 'w', (char)c, 'n', 0 };
		bool allowed = strchr(WB_NAME_CHARS, (int)c) != NULL;

		n = raw_uplink_info(body, 3, name, 3);
		assert_int_equal(parse_one(body, n, &f, &used), allowed ? 1 : -EBADMSG);
	}
	n = raw_uplink_info(body, 7, "lte\x1b[2J", 7);
	assert_int_equal(parse_one(body, n, &f, &used), -EBADMSG);
}

/* The builder cuts a name to WB_UPLINK_NAME_MAX: what it writes always parses. */
static void test_uplink_info_builder_cuts_long_names(void **state)
{
	struct wb_uplink_info info = { 0, 2, "" };
	uint8_t buf[64];
	struct wb_frame f;
	size_t used, n;

	(void)state;
	memset(info.name, 'x', sizeof(info.name)); /* no NUL at all */
	n = wb_frame_put_uplink_info(buf, &info);
	assert_int_equal(n, 5 + WB_UPLINK_NAME_MAX);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(strlen(f.uplink_info.name), WB_UPLINK_NAME_MAX);
}

static void test_padding_ends_the_body(void **state)
{
	uint8_t body[64];
	struct wb_frame f;
	const uint8_t *pos = body;
	struct wb_probe probe = { 1, 2, 3 };
	size_t n = wb_frame_put_probe(body, &probe);

	(void)state;
	body[n] = WB_FRAME_PADDING;
	/* What follows the padding is never read, even if it would not parse. */
	memset(body + n + 1, 0xff, sizeof(body) - n - 1);
	assert_int_equal(wb_frame_next(&pos, body + sizeof(body), &f), 1);
	assert_int_equal(wb_frame_next(&pos, body + sizeof(body), &f), 0);
	assert_ptr_equal(pos, body + n);
	/* A body of padding only is empty and valid. */
	memset(body, 0, sizeof(body));
	pos = body;
	assert_int_equal(wb_frame_next(&pos, body + sizeof(body), &f), 0);
	/* As is an empty body. */
	assert_int_equal(wb_frame_next(&pos, body, &f), 0);
}

/* ---- varints ------------------------------------------------------------------------ */

/* Reads a varint from a heap copy of exactly len bytes; the position moves only on success. */
static bool varint_from(const uint8_t *p, size_t len, uint64_t *v, size_t *used)
{
	uint8_t *copy = malloc(len ? len : 1);
	const uint8_t *pos;
	bool ok;

	assert_non_null(copy);
	memcpy(copy, p, len);
	pos = copy;
	ok = wb_varint_get(&pos, copy + len, v);
	*used = (size_t)(pos - copy);
	if (!ok)
		assert_ptr_equal(pos, copy);
	free(copy);
	return ok;
}

static void test_varint_length_boundaries(void **state)
{
	static const struct {
		uint64_t v;
		size_t len;
	} cases[] = {
		{ 0, 1 },
		{ 1, 1 },
		{ 63, 1 },
		{ 64, 2 },
		{ 16383, 2 },
		{ 16384, 4 },
		{ (1ULL << 30) - 1, 4 },
		{ 1ULL << 30, 8 },
		{ (1ULL << 32) + 7, 8 },
		{ WB_VARINT_MAX, 8 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		uint8_t buf[16];
		uint64_t v = ~0ULL;
		size_t n, used;

		memset(buf, 0xee, sizeof(buf));
		assert_int_equal(wb_varint_len(cases[i].v), cases[i].len);
		n = wb_varint_put(buf, cases[i].v);
		assert_int_equal(n, cases[i].len);
		assert_int_equal(buf[n], 0xee); /* nothing written past it */
		/* The two high bits give the length. */
		assert_int_equal((size_t)1 << (buf[0] >> 6), n);
		assert_true(varint_from(buf, n, &v, &used));
		assert_int_equal(used, n);
		assert_int_equal(v, cases[i].v);
		/* Followed by more bytes: still only its own. */
		assert_true(varint_from(buf, sizeof(buf), &v, &used));
		assert_int_equal(used, n);
		assert_int_equal(v, cases[i].v);
		/* Every truncation fails and leaves the position. */
		for (size_t cut = 0; cut < n; cut++)
			assert_false(varint_from(buf, cut, &v, &used));
	}
}

/* RFC 9000, A.1's examples: the exact bytes, and a longer encoding than needed reads the same. */
static void test_varint_rfc_examples(void **state)
{
	static const uint8_t e8[] = { 0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c };
	static const uint8_t e4[] = { 0x9d, 0x7f, 0x3e, 0x7d };
	static const uint8_t e2[] = { 0x7b, 0xbd };
	static const uint8_t e1[] = { 0x25 };
	static const uint8_t e2_37[] = { 0x40, 0x25 };
	uint8_t buf[8];
	uint64_t v;
	size_t used;

	(void)state;
	assert_int_equal(wb_varint_put(buf, 151288809941952652ULL), 8);
	assert_memory_equal(buf, e8, 8);
	assert_int_equal(wb_varint_put(buf, 494878333), 4);
	assert_memory_equal(buf, e4, 4);
	assert_int_equal(wb_varint_put(buf, 15293), 2);
	assert_memory_equal(buf, e2, 2);
	assert_int_equal(wb_varint_put(buf, 37), 1);
	assert_memory_equal(buf, e1, 1);
	assert_true(varint_from(e8, 8, &v, &used));
	assert_int_equal(v, 151288809941952652ULL);
	assert_true(varint_from(e2_37, 2, &v, &used));
	assert_int_equal(v, 37);
	assert_int_equal(used, 2);
}

/* ---- the DSN's low 32 bits ------------------------------------------------------------ */

static void test_dsn_expand_around_2_32_boundaries(void **state)
{
	const uint64_t W = 1ULL << 32;

	(void)state;
	/* Near 0: nothing below 0 exists, the candidate stays. */
	assert_int_equal(wb_dsn_expand(0, 0), 0);
	assert_int_equal(wb_dsn_expand(5, 0), 5);
	assert_int_equal(wb_dsn_expand(3, 5), 3);
	assert_int_equal(wb_dsn_expand(0xffffffffU, 0), 0xffffffffULL);
	assert_int_equal(wb_dsn_expand(0xffffffffU, 3), 0xffffffffULL);
	assert_int_equal(wb_dsn_expand(0x80000000U, 0), 0x80000000ULL);
	/* Forward across a boundary: expected just below it, the DSN just past it. */
	assert_int_equal(wb_dsn_expand(5, W - 10), W + 5);
	assert_int_equal(wb_dsn_expand(0, W - 1), W);
	assert_int_equal(wb_dsn_expand(0xfffffff0U, W - 1), W - 16);
	assert_int_equal(wb_dsn_expand(5, 7 * W - 10), 7 * W + 5);
	/* Backward across a boundary: expected just past it, a late DSN from below it. */
	assert_int_equal(wb_dsn_expand(0xfffffff0U, W + 10), W - 16);
	assert_int_equal(wb_dsn_expand(0xffffffffU, W), W - 1);
	assert_int_equal(wb_dsn_expand(0xffffffffU, 5 * W + 3), 5 * W - 1);
	assert_int_equal(wb_dsn_expand(3, W + 10), W + 3);
	/* Half a window each way: up to 2^31 ahead, less than 2^31 behind. */
	assert_int_equal(wb_dsn_expand(0x80000000U, W), W + 0x80000000ULL);
	assert_int_equal(wb_dsn_expand(0x80000001U, W), W - 0x7fffffffULL);
	assert_int_equal(wb_dsn_expand(0x7fffffffU, W), W + 0x7fffffffULL);
}

/* Any DSN within (-2^31, 2^31] of the one expected comes back whole. */
static void test_dsn_expand_recovers_every_nearby_dsn(void **state)
{
	struct prng rng;

	(void)state;
	prng_seed(&rng, 5);
	for (int i = 0; i < 200000; i++) {
		uint64_t expected = prng_next(&rng) >> (i % 3 == 0 ? 20 : i % 3 == 1 ? 30 : 34);
		int64_t delta = (int64_t)(prng_next(&rng) % (1ULL << 32)) - (int64_t)(1ULL << 31) + 1;
		uint64_t dsn;

		if (i % 5 == 0) /* near a boundary */
			expected = (expected & ~0xffffffffULL) + (prng_next(&rng) % 64) - 32 + (1ULL << 32);
		if (delta < 0 && (uint64_t)-delta > expected)
			continue;
		dsn = expected + (uint64_t)delta;
		assert_int_equal(wb_dsn_expand((uint32_t)dsn, expected), dsn);
	}
}

/* ---- ACK frames ------------------------------------------------------------------------ */

/* A valid ack of n ranges, descending, disjoint, not adjacent; sizes and gaps from small to huge. */
static void random_ack(struct prng *rng, struct wb_ack *a, unsigned n)
{
	uint64_t scale = prng_next(rng) % 4;
	uint64_t span = scale == 0 ? 64 : scale == 1 ? 20000 : scale == 2 ? (1ULL << 31) : (1ULL << 56);
	uint64_t need = 0, top;

	a->n = n;
	a->delay_us = prng_next(rng) % 3 == 0 ? prng_next(rng) & WB_VARINT_MAX : prng_next(rng) % 100000;
	/* Draw lengths and gaps, then place them under a largest that leaves room. */
	for (unsigned i = 0; i < n; i++) {
		a->r[i].lo = prng_next(rng) % span;             /* the range's length - 1, for now */
		a->r[i].hi = i ? prng_next(rng) % span : 0;     /* the gap above it - 0, for now */
		need += a->r[i].lo + 1 + (i ? a->r[i].hi + 1 : 0);
	}
	assert_true(need <= WB_VARINT_MAX);
	top = need - 1 + prng_next(rng) % (WB_VARINT_MAX - need + 1) % (span * 4 + 1);
	if (prng_next(rng) % 8 == 0)
		top = need - 1; /* the lowest range reaches 0 */
	for (unsigned i = 0; i < n; i++) {
		uint64_t len = a->r[i].lo, gap = a->r[i].hi;

		a->r[i].hi = i ? a->r[i - 1].lo - gap - 2 : top;
		a->r[i].lo = a->r[i].hi - len;
	}
}

static void check_ack_round_trip(const struct wb_ack *a)
{
	uint8_t buf[WB_FRAME_ACK_MAX_LEN + 8];
	struct wb_frame f;
	size_t n, used;

	memset(buf, 0xee, sizeof(buf));
	n = wb_frame_put_ack(buf, a);
	assert_int_equal(n, wb_frame_ack_len(a));
	assert_true(n <= WB_FRAME_ACK_MAX_LEN);
	assert_int_equal(buf[n], 0xee);
	assert_int_equal(buf[0], WB_FRAME_ACK);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(used, n);
	assert_int_equal(f.type, WB_FRAME_ACK);
	assert_int_equal(f.ack.delay_us, a->delay_us);
	assert_int_equal(f.ack.n, a->n);
	for (unsigned i = 0; i < a->n; i++) {
		assert_int_equal(f.ack.r[i].lo, a->r[i].lo);
		assert_int_equal(f.ack.r[i].hi, a->r[i].hi);
	}
	/* Every truncation is malformed, and leaves the position at the frame. */
	for (size_t cut = 0; cut < n; cut++) {
		int rc = parse_one(buf, cut, &f, &used);

		assert_int_equal(rc, cut ? -EBADMSG : 0);
		assert_int_equal(used, 0);
	}
}

static void test_ack_round_trip(void **state)
{
	const struct wb_ack fixed[] = {
		{ .delay_us = 0, .n = 1, .r = { { 0, 0 } } },
		{ .delay_us = 25, .n = 1, .r = { { 0, 99 } } },
		{ .delay_us = 5000, .n = 2, .r = { { 10, 10 }, { 0, 8 } } }, /* gap of one: 9 */
		{ .delay_us = WB_VARINT_MAX, .n = 1, .r = { { WB_VARINT_MAX, WB_VARINT_MAX } } },
		{ .delay_us = 1, .n = 1, .r = { { 0, WB_VARINT_MAX } } },
		{ .delay_us = 2, .n = 3, .r = { { 1ULL << 40, (1ULL << 40) + 63 }, { 16384, 16384 }, { 62, 63 } } },
	};
	struct prng rng;
	struct wb_ack a;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(fixed); i++)
		check_ack_round_trip(&fixed[i]);
	/* 32 ranges, the most, each packet alone. */
	a.n = WB_ACK_MAX_RANGES;
	a.delay_us = 7;
	for (unsigned i = 0; i < a.n; i++)
		a.r[i] = (struct wb_range){ 200 - 2 * i, 200 - 2 * i };
	check_ack_round_trip(&a);
	prng_seed(&rng, 11);
	for (int k = 0; k < 3000; k++) {
		random_ack(&rng, &a, 1 + (unsigned)(prng_next(&rng) % WB_ACK_MAX_RANGES));
		check_ack_round_trip(&a);
	}
}

/* Writes an ACK frame from raw fields: largest, delay, range count, first range, then (gap, length) pairs. */
static size_t raw_ack(uint8_t *p, uint64_t largest, uint64_t delay, uint64_t count, uint64_t first,
		      const uint64_t *pairs, size_t n_pairs)
{
	size_t n = 1;

	p[0] = WB_FRAME_ACK;
	n += wb_varint_put(p + n, largest);
	n += wb_varint_put(p + n, delay);
	n += wb_varint_put(p + n, count);
	n += wb_varint_put(p + n, first);
	for (size_t i = 0; i < n_pairs; i++)
		n += wb_varint_put(p + n, pairs[i]);
	return n;
}

static void test_ack_range_count_too_large_is_malformed(void **state)
{
	uint64_t pairs[2 * WB_ACK_MAX_RANGES];
	uint8_t buf[1024];
	struct wb_frame f;
	size_t n, used;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(pairs); i++)
		pairs[i] = 0; /* gap 0 (one missing), length 0 */
	/* 31 more ranges after the first: the most, fine. */
	n = raw_ack(buf, 1000, 0, WB_ACK_MAX_RANGES - 1, 0, pairs, 2 * (WB_ACK_MAX_RANGES - 1));
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(used, n);
	assert_int_equal(f.ack.n, WB_ACK_MAX_RANGES);
	assert_int_equal(f.ack.r[WB_ACK_MAX_RANGES - 1].lo, 1000 - 2 * (WB_ACK_MAX_RANGES - 1));
	/* 32 more: one too many, even with their bytes present. */
	n = raw_ack(buf, 1000, 0, WB_ACK_MAX_RANGES, 0, pairs, 2 * WB_ACK_MAX_RANGES);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	assert_int_equal(used, 0);
	/* Absurd counts. */
	n = raw_ack(buf, 1000, 0, 1ULL << 32, 0, pairs, 2 * WB_ACK_MAX_RANGES);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	n = raw_ack(buf, 1000, 0, WB_VARINT_MAX, 0, pairs, 2 * WB_ACK_MAX_RANGES);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	/* A count that promises more ranges than the body holds. */
	n = raw_ack(buf, 1000, 0, 5, 0, pairs, 2 * 4);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
}

static void test_ack_first_range_above_largest_is_malformed(void **state)
{
	uint8_t buf[64];
	struct wb_frame f;
	size_t n, used;

	(void)state;
	n = raw_ack(buf, 10, 0, 0, 10, NULL, 0); /* [0, 10]: fine */
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(f.ack.r[0].lo, 0);
	assert_int_equal(f.ack.r[0].hi, 10);
	n = raw_ack(buf, 10, 0, 0, 11, NULL, 0);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	n = raw_ack(buf, 0, 0, 0, 1, NULL, 0);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	n = raw_ack(buf, 0, 0, 0, WB_VARINT_MAX, NULL, 0);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
}

static void test_ack_gaps_below_zero_are_malformed(void **state)
{
	uint8_t buf[64];
	struct wb_frame f;
	size_t n, used;
	uint64_t pairs[4];

	(void)state;
	/* [8, 10], then a gap of 6 (1..7 missing) and a range of one: [0, 0]. Fine. */
	pairs[0] = 6, pairs[1] = 0;
	n = raw_ack(buf, 10, 0, 1, 2, pairs, 2);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(f.ack.n, 2);
	assert_int_equal(f.ack.r[1].lo, 0);
	assert_int_equal(f.ack.r[1].hi, 0);
	/* A gap of 7: the next range would end at -1. */
	pairs[0] = 7;
	n = raw_ack(buf, 10, 0, 1, 2, pairs, 2);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	/* A gap that would wrap 64 bits. */
	pairs[0] = WB_VARINT_MAX;
	n = raw_ack(buf, 10, 0, 1, 2, pairs, 2);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	/* The gap fits, the range's length runs below 0. */
	pairs[0] = 6, pairs[1] = 1;
	n = raw_ack(buf, 10, 0, 1, 2, pairs, 2);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	/* The first range reaches 0: no room for any gap after it. */
	pairs[0] = 0, pairs[1] = 0;
	n = raw_ack(buf, 10, 0, 1, 10, pairs, 2);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	/* The second of three runs below 0. */
	pairs[0] = 0, pairs[1] = 0, pairs[2] = 5, pairs[3] = 0; /* [8,10], [6,6], then 5 missing below 6: -1 */
	n = raw_ack(buf, 10, 0, 2, 2, pairs, 4);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	pairs[2] = 4; /* 1..5 missing, [0, 0] */
	n = raw_ack(buf, 10, 0, 2, 2, pairs, 4);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(f.ack.r[2].hi, 0);
}

/* ---- BOND_ACK frames ------------------------------------------------------------------ */

static void random_bond_ack(struct prng *rng, struct wb_bond_ack *a, unsigned n)
{
	uint64_t scale = prng_next(rng) % 4;
	uint64_t span = scale == 0 ? 64 : scale == 1 ? 20000 : scale == 2 ? (1ULL << 31) : (1ULL << 56);
	uint64_t next;

	a->n = n;
	a->cum = prng_next(rng) % 3 == 0 ? prng_next(rng) % 100 : prng_next(rng) % span;
	a->rwnd = prng_next(rng) % 2 ? prng_next(rng) & WB_VARINT_MAX : prng_next(rng) % (64ULL << 20);
	next = a->cum + 1;
	for (unsigned i = 0; i < n; i++) {
		a->s[i].lo = next + prng_next(rng) % span;
		a->s[i].hi = a->s[i].lo + prng_next(rng) % span;
		next = a->s[i].hi + 2;
	}
	assert_true(!n || a->s[n - 1].hi <= WB_VARINT_MAX);
}

static void check_bond_ack_round_trip(const struct wb_bond_ack *a)
{
	uint8_t buf[WB_FRAME_BOND_ACK_MAX_LEN + 8];
	struct wb_frame f;
	size_t n, used;

	memset(buf, 0xee, sizeof(buf));
	n = wb_frame_put_bond_ack(buf, a);
	assert_int_equal(n, wb_frame_bond_ack_len(a));
	assert_true(n <= WB_FRAME_BOND_ACK_MAX_LEN);
	assert_int_equal(buf[n], 0xee);
	assert_int_equal(buf[0], WB_FRAME_BOND_ACK);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(used, n);
	assert_int_equal(f.type, WB_FRAME_BOND_ACK);
	assert_int_equal(f.bond_ack.cum, a->cum);
	assert_int_equal(f.bond_ack.rwnd, a->rwnd);
	assert_int_equal(f.bond_ack.n, a->n);
	for (unsigned i = 0; i < a->n; i++) {
		assert_int_equal(f.bond_ack.s[i].lo, a->s[i].lo);
		assert_int_equal(f.bond_ack.s[i].hi, a->s[i].hi);
	}
	for (size_t cut = 0; cut < n; cut++) {
		assert_int_equal(parse_one(buf, cut, &f, &used), cut ? -EBADMSG : 0);
		assert_int_equal(used, 0);
	}
}

static void test_bond_ack_round_trip(void **state)
{
	const struct wb_bond_ack fixed[] = {
		{ .cum = 0, .rwnd = 0, .n = 0 },
		{ .cum = 0, .rwnd = 6 << 20, .n = 1, .s = { { 1, 1 } } },
		{ .cum = 5, .rwnd = 1, .n = 2, .s = { { 7, 9 }, { 11, 11 } } },
		{ .cum = WB_VARINT_MAX, .rwnd = WB_VARINT_MAX, .n = 0 },
		{ .cum = 0, .rwnd = 1, .n = 1, .s = { { 1, WB_VARINT_MAX } } },
		{ .cum = WB_VARINT_MAX - 3, .rwnd = 1, .n = 1, .s = { { WB_VARINT_MAX - 2, WB_VARINT_MAX } } },
	};
	struct prng rng;
	struct wb_bond_ack a;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(fixed); i++)
		check_bond_ack_round_trip(&fixed[i]);
	a.cum = 100;
	a.rwnd = 12345;
	a.n = WB_BOND_ACK_MAX_SACKS;
	for (unsigned i = 0; i < a.n; i++)
		a.s[i] = (struct wb_range){ 102 + 3 * i, 103 + 3 * i };
	check_bond_ack_round_trip(&a);
	prng_seed(&rng, 12);
	for (int k = 0; k < 3000; k++) {
		random_bond_ack(&rng, &a, (unsigned)(prng_next(&rng) % (WB_BOND_ACK_MAX_SACKS + 1)));
		check_bond_ack_round_trip(&a);
	}
}

/* A BOND_ACK from raw fields: cum, window, count, then (gap, length) pairs. */
static size_t raw_bond_ack(uint8_t *p, uint64_t cum, uint64_t rwnd, uint64_t count, const uint64_t *pairs,
			   size_t n_pairs)
{
	size_t n = 1;

	p[0] = WB_FRAME_BOND_ACK;
	n += wb_varint_put(p + n, cum);
	n += wb_varint_put(p + n, rwnd);
	n += wb_varint_put(p + n, count);
	for (size_t i = 0; i < n_pairs; i++)
		n += wb_varint_put(p + n, pairs[i]);
	return n;
}

static void test_bond_ack_too_many_sacks_is_malformed(void **state)
{
	uint64_t pairs[2 * (WB_BOND_ACK_MAX_SACKS + 1)] = { 0 };
	uint8_t buf[512];
	struct wb_frame f;
	size_t n, used;

	(void)state;
	n = raw_bond_ack(buf, 10, 100, WB_BOND_ACK_MAX_SACKS, pairs, 2 * WB_BOND_ACK_MAX_SACKS);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(used, n);
	assert_int_equal(f.bond_ack.n, WB_BOND_ACK_MAX_SACKS);
	/* gap 0 after cum: cum + 1; then one missing between each */
	assert_int_equal(f.bond_ack.s[0].lo, 11);
	assert_int_equal(f.bond_ack.s[WB_BOND_ACK_MAX_SACKS - 1].lo, 11 + 2 * (WB_BOND_ACK_MAX_SACKS - 1));
	n = raw_bond_ack(buf, 10, 100, WB_BOND_ACK_MAX_SACKS + 1, pairs, 2 * (WB_BOND_ACK_MAX_SACKS + 1));
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	assert_int_equal(used, 0);
	n = raw_bond_ack(buf, 10, 100, WB_VARINT_MAX, pairs, 2 * (WB_BOND_ACK_MAX_SACKS + 1));
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	/* A count past what the body holds. */
	n = raw_bond_ack(buf, 10, 100, 3, pairs, 5);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
}

/* Ranges past 2^62 - 1 (sums of varints that each fit) are malformed; up to it, fine. */
static void test_bond_ack_sack_sums_past_2_62_are_malformed(void **state)
{
	uint8_t buf[256];
	struct wb_frame f;
	size_t n, used;
	uint64_t pairs[6];

	(void)state;
	/* cum + 1 + gap exactly the largest varint, length 0: fine. */
	pairs[0] = WB_VARINT_MAX - 11, pairs[1] = 0;
	n = raw_bond_ack(buf, 10, 1, 1, pairs, 2);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(f.bond_ack.s[0].lo, WB_VARINT_MAX);
	assert_int_equal(f.bond_ack.s[0].hi, WB_VARINT_MAX);
	/* One more in the gap, or in the length. */
	pairs[0] = WB_VARINT_MAX - 10;
	n = raw_bond_ack(buf, 10, 1, 1, pairs, 2);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	pairs[0] = WB_VARINT_MAX - 11, pairs[1] = 1;
	n = raw_bond_ack(buf, 10, 1, 1, pairs, 2);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	/* Each the largest varint: cum, gap, length. */
	pairs[0] = WB_VARINT_MAX, pairs[1] = WB_VARINT_MAX;
	n = raw_bond_ack(buf, WB_VARINT_MAX, 1, 1, pairs, 2);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	/* Spread over three ranges, each within bounds alone. */
	pairs[0] = 1ULL << 59, pairs[1] = 1ULL << 59;
	pairs[2] = 1ULL << 59, pairs[3] = 1ULL << 59;
	pairs[4] = 0, pairs[5] = 0;
	n = raw_bond_ack(buf, 0, 1, 2, pairs, 4);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(f.bond_ack.s[1].hi, 3 + (1ULL << 61));
	n = raw_bond_ack(buf, 0, 1, 3, pairs, 6);
	assert_int_equal(parse_one(buf, n, &f, &used), 1);
	assert_int_equal(f.bond_ack.s[2].lo, 5 + (1ULL << 61));
	/* The third one's sum passes 2^62 - 1 by 5. */
	pairs[4] = WB_VARINT_MAX / 2, pairs[5] = WB_VARINT_MAX / 2;
	n = raw_bond_ack(buf, 0, 1, 3, pairs, 6);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
	/* The cum itself is the largest varint: any SACK is above it. */
	pairs[0] = 0, pairs[1] = 0;
	n = raw_bond_ack(buf, WB_VARINT_MAX, 1, 1, pairs, 2);
	assert_int_equal(parse_one(buf, n, &f, &used), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_round_trip),
		cmocka_unit_test(test_probe_is_little_endian_on_the_wire),
		cmocka_unit_test(test_probe_ack_round_trip),
		cmocka_unit_test(test_close_round_trip),
		cmocka_unit_test(test_uplink_info_round_trip),
		cmocka_unit_test(test_data_round_trip),
		cmocka_unit_test(test_body_with_several_frames),
		cmocka_unit_test(test_every_truncation_is_clean),
		cmocka_unit_test(test_unknown_types_are_malformed),
		cmocka_unit_test(test_pmtu_probe_is_padded_to_its_size),
		cmocka_unit_test(test_pmtu_ack_round_trip_and_truncation),
		cmocka_unit_test(test_data_frame_of_length_zero_is_malformed),
		cmocka_unit_test(test_data_frame_longer_than_the_body_is_malformed),
		cmocka_unit_test(test_uplink_info_name_empty_too_long_or_with_nul_is_malformed),
		cmocka_unit_test(test_uplink_info_name_outside_the_names_characters_is_malformed),
		cmocka_unit_test(test_uplink_info_builder_cuts_long_names),
		cmocka_unit_test(test_padding_ends_the_body),
		cmocka_unit_test(test_varint_length_boundaries),
		cmocka_unit_test(test_varint_rfc_examples),
		cmocka_unit_test(test_dsn_expand_around_2_32_boundaries),
		cmocka_unit_test(test_dsn_expand_recovers_every_nearby_dsn),
		cmocka_unit_test(test_ack_round_trip),
		cmocka_unit_test(test_ack_range_count_too_large_is_malformed),
		cmocka_unit_test(test_ack_first_range_above_largest_is_malformed),
		cmocka_unit_test(test_ack_gaps_below_zero_are_malformed),
		cmocka_unit_test(test_bond_ack_round_trip),
		cmocka_unit_test(test_bond_ack_too_many_sacks_is_malformed),
		cmocka_unit_test(test_bond_ack_sack_sums_past_2_62_are_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
