// SPDX-License-Identifier: MIT
/*
 * Writes the seed corpora of fuzz_datagram and fuzz_frames: real messages of
 * the fuzz pair (fuzz_pair.h), made the way the harnesses make them, so that
 * each seed goes past the cryptography in the harness (see fuzz_datagram.c).
 * Not built by make: the corpora are committed. After a change to the pair,
 * the handshake or the wire format, make them again:
 *
 *   make build/libwanbond.a
 *   cc -std=gnu11 -Ilib -Itools/linkem -o build/gen_corpus tests/fuzz/gen_corpus.c build/libwanbond.a -lcrypto
 *   build/gen_corpus tests/fuzz/corpus
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "byteorder.h"
#include "cookie.h"
#include "frame.h"
#include "fuzz_pair.h"

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

static void send_ip(struct fp_side *s, uint8_t fill)
{
	uint8_t buf[WB_SEND_HEADROOM + 60 + WB_SEND_TAILROOM];

	memset(buf, fill, sizeof(buf));
	buf[WB_SEND_HEADROOM] = 0x45;
	if (wb_bond_send_ip(s->bond, s->fp->now, buf + WB_SEND_HEADROOM, 60)) {
		fprintf(stderr, "gen_corpus: cannot send an IP packet\n");
		exit(1);
	}
}

static void datagram_seeds(void)
{
	static struct fp f;
	struct fp_datagram init;
	struct wb_msg_cookie reply;
	uint8_t nonce[WB_NONCE_LEN] = { 1, 2, 3 }, junk[148];

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
					   wb_get_le32(g.c.q[0].data + 4), &f.client_ep[0], nonce))
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
	put_taken("data_client_ip", &f.c, WB_MSG_DATA);
	/* The server sends only once an uplink answered its probes. */
	wb_device_tick(f.s.dev, f.now);
	fp_flush(&f);
	send_ip(&f.s, 0x22);
	put_taken("data_server_ip", &f.s, WB_MSG_DATA);
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

static void frame_seeds(void)
{
	uint8_t b[256];
	size_t n;
	struct wb_probe probe = { 1, FP_T0, 3 };
	struct wb_probe_ack ack = { 1, FP_T0, 3, 2 };
	struct wb_uplink_info info = { WB_UPLINK_BACKUP, 3, "lte" };

	put("fuzz_frames", "empty", "", 0);
	wb_frame_put_ip_header(b, 20);
	memset(b + 3, 0x45, 20);
	put("fuzz_frames", "ip", b, 23);
	n = wb_frame_put_probe(b, &probe);
	n += wb_frame_put_uplink_info(b + n, &info);
	put("fuzz_frames", "probe_info", b, n);
	n = wb_frame_put_probe_ack(b, &ack);
	put("fuzz_frames", "probe_ack", b, n);
	n = wb_frame_put_close(b, WB_CLOSE_SHUTDOWN);
	put("fuzz_frames", "close", b, n);
	/* Several, then padding and bytes after it. */
	n = wb_frame_put_probe(b, &probe);
	n += wb_frame_put_uplink_info(b + n, &info);
	wb_frame_put_ip_header(b + n, 8);
	memset(b + n + 3, 0x60, 8);
	n += 11;
	n += wb_frame_put_probe_ack(b + n, &ack);
	b[n++] = WB_FRAME_PADDING;
	memset(b + n, 0xff, 7);
	n += 7;
	put("fuzz_frames", "several_padding", b, n);
	/* Malformed: an IP frame longer than the body, an unknown type, an empty name. */
	wb_frame_put_ip_header(b, 100);
	put("fuzz_frames", "ip_too_long", b, 10);
	b[0] = 0x06;
	put("fuzz_frames", "unknown_type", b, 1);
	b[0] = WB_FRAME_UPLINK_INFO;
	b[1] = 0;
	b[2] = 1;
	b[3] = 0;
	b[4] = 0;
	put("fuzz_frames", "empty_name", b, 5);
}

int main(int argc, char **argv)
{
	root = argc > 1 ? argv[1] : "tests/fuzz/corpus";
	datagram_seeds();
	frame_seeds();
	return 0;
}
