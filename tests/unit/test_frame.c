// SPDX-License-Identifier: MIT
/*
 * Unit tests: frame.c, the builders and the parser of the frames inside a
 * data message's sealed body. The parser meets what a buggy or hostile peer
 * sends after decryption, so every truncation of a valid body is parsed from
 * a heap buffer of exactly that length: under ASan a read past it is a crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

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
	/* An IP frame points into the body: translate it back for the caller. */
	if (rc == 1 && f->type == WB_FRAME_IP) {
		assert_true(f->ip.data > copy && f->ip.data + f->ip.len <= copy + len);
		f->ip.data = p + (f->ip.data - copy);
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

static void test_ip_round_trip(void **state)
{
	uint8_t buf[3 + 1500];
	struct wb_frame f;
	size_t used;

	(void)state;
	for (size_t len = 1; len <= 1500; len += len < 20 ? 1 : 97) {
		for (size_t i = 0; i < len; i++)
			buf[3 + i] = (uint8_t)(i * 7 + len);
		wb_frame_put_ip_header(buf, len);
		assert_int_equal(buf[0], WB_FRAME_IP);
		assert_int_equal(buf[1] | buf[2] << 8, len);
		assert_int_equal(parse_one(buf, 3 + len, &f, &used), 1);
		assert_int_equal(used, 3 + len);
		assert_int_equal(f.type, WB_FRAME_IP);
		assert_int_equal(f.ip.len, len);
		assert_ptr_equal(f.ip.data, buf + 3);
	}
}

/* A body of every kind of frame; offsets[] gets where each frame ends. */
static size_t build_body(uint8_t *body, size_t offsets[8], size_t *n_frames)
{
	size_t n = 0, k = 0;
	struct wb_probe probe = { 3, 1000, 20 };
	struct wb_probe_ack ack = { 4, 2000, 30, 29 };
	struct wb_uplink_info info = { WB_UPLINK_BACKUP, 5, "dsl" };

	n += wb_frame_put_probe(body + n, &probe);
	offsets[k++] = n;
	n += wb_frame_put_uplink_info(body + n, &info);
	offsets[k++] = n;
	wb_frame_put_ip_header(body + n, 40);
	memset(body + n + 3, 0x45, 40);
	n += 43;
	offsets[k++] = n;
	n += wb_frame_put_probe_ack(body + n, &ack);
	offsets[k++] = n;
	wb_frame_put_ip_header(body + n, 1);
	body[n + 3] = 0x60;
	n += 4;
	offsets[k++] = n;
	n += wb_frame_put_close(body + n, WB_CLOSE_SHUTDOWN);
	offsets[k++] = n;
	*n_frames = k;
	return n;
}

static void test_body_with_several_frames(void **state)
{
	const enum wb_frame_type types[] = { WB_FRAME_PROBE, WB_FRAME_UPLINK_INFO, WB_FRAME_IP,
					     WB_FRAME_PROBE_ACK, WB_FRAME_IP, WB_FRAME_CLOSE };
	uint8_t body[256];
	size_t offsets[8], n_frames, len = build_body(body, offsets, &n_frames);
	const uint8_t *pos = body;
	struct wb_frame f;

	(void)state;
	assert_int_equal(n_frames, ARRAY_LEN(types));
	for (size_t i = 0; i < n_frames; i++) {
		assert_int_equal(wb_frame_next(&pos, body + len, &f), 1);
		assert_int_equal(f.type, types[i]);
		assert_ptr_equal(pos, body + offsets[i]);
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
	size_t offsets[8], n_frames, len = build_body(body, offsets, &n_frames);

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
			if (f.type == WB_FRAME_IP)
				assert_true(f.ip.data + f.ip.len <= end);
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
	for (unsigned t = WB_FRAME_UPLINK_INFO + 1; t <= 0xff; t++) {
		uint8_t body[64] = { (uint8_t)t };
		struct wb_frame f;
		size_t used;

		assert_int_equal(parse_one(body, sizeof(body), &f, &used), -EBADMSG);
		assert_int_equal(used, 0);
	}
}

static void test_ip_frame_of_length_zero_is_malformed(void **state)
{
	uint8_t body[16] = { 0 };
	struct wb_frame f;
	size_t used;

	(void)state;
	wb_frame_put_ip_header(body, 0);
	assert_int_equal(parse_one(body, sizeof(body), &f, &used), -EBADMSG);
	assert_int_equal(parse_one(body, 3, &f, &used), -EBADMSG);
	assert_int_equal(used, 0);
}

static void test_ip_frame_longer_than_the_body_is_malformed(void **state)
{
	uint8_t body[3 + 100] = { 0 };
	struct wb_frame f;
	size_t used;

	(void)state;
	/* Exactly the body: fine. One more: malformed, at every length. */
	wb_frame_put_ip_header(body, 100);
	assert_int_equal(parse_one(body, sizeof(body), &f, &used), 1);
	assert_int_equal(used, sizeof(body));
	wb_frame_put_ip_header(body, 101);
	assert_int_equal(parse_one(body, sizeof(body), &f, &used), -EBADMSG);
	wb_frame_put_ip_header(body, 65535);
	assert_int_equal(parse_one(body, sizeof(body), &f, &used), -EBADMSG);
	/* A header cut short. */
	assert_int_equal(parse_one(body, 1, &f, &used), -EBADMSG);
	assert_int_equal(parse_one(body, 2, &f, &used), -EBADMSG);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_round_trip),
		cmocka_unit_test(test_probe_is_little_endian_on_the_wire),
		cmocka_unit_test(test_probe_ack_round_trip),
		cmocka_unit_test(test_close_round_trip),
		cmocka_unit_test(test_uplink_info_round_trip),
		cmocka_unit_test(test_ip_round_trip),
		cmocka_unit_test(test_body_with_several_frames),
		cmocka_unit_test(test_every_truncation_is_clean),
		cmocka_unit_test(test_unknown_types_are_malformed),
		cmocka_unit_test(test_ip_frame_of_length_zero_is_malformed),
		cmocka_unit_test(test_ip_frame_longer_than_the_body_is_malformed),
		cmocka_unit_test(test_uplink_info_name_empty_too_long_or_with_nul_is_malformed),
		cmocka_unit_test(test_uplink_info_builder_cuts_long_names),
		cmocka_unit_test(test_padding_ends_the_body),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
