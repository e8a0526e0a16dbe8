// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the input is the decrypted body of a data message, the
 * frames a buggy or hostile peer could send once it holds the session keys.
 *
 *   1. wb_frame_next walks it (from a heap copy of exactly its length, so a
 *      read past the end is an ASan report) and every frame stays in bounds;
 *   2. a fresh pair (fuzz_pair.h) makes its session and brings its uplinks
 *      up; the input is sealed with the client's session on uplink 0 and
 *      received by the server, and sealed with the server's session on
 *      uplink 1 and received by the client: bond.c's frame handling runs on
 *      it on both sides. Then the timers run for a few seconds (what a CLOSE
 *      or a strange probe set in motion plays out).
 *
 * What must hold besides no crash or leak: a body that does not parse is
 * counted as malformed and acts in no way (nothing delivered); one that
 * parses delivers at most its data frames (the reorder buffer holds, drops
 * duplicates and skips; it never invents one).
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "fuzz_pair.h"
#include "keypair.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_BODY (WB_MAX_DATAGRAM - (int)WB_DATA_OVERHEAD)

static struct fp f;

/* Walks the body; returns whether it parses to its end, with its IP frames counted. */
static bool walk(const uint8_t *data, size_t size, uint64_t *ip_frames, uint64_t *ip_bytes)
{
	uint8_t *copy = malloc(size ? size : 1);
	const uint8_t *pos, *end;
	struct wb_frame fr;
	int rc;

	*ip_frames = *ip_bytes = 0;
	if (!copy)
		abort();
	memcpy(copy, data, size);
	pos = copy;
	end = copy + size;
	while ((rc = wb_frame_next(&pos, end, &fr)) == 1) {
		assert(pos > copy && pos <= end);
		switch (fr.type) {
		case WB_FRAME_DATA:
			assert(fr.data.len > 0 && fr.data.data > copy && fr.data.data + fr.data.len <= pos);
			(*ip_frames)++;
			*ip_bytes += fr.data.len;
			break;
		case WB_FRAME_UPLINK_INFO: {
			size_t n = strlen(fr.uplink_info.name);

			assert(n >= 1 && n <= WB_UPLINK_NAME_MAX);
			break;
		}
		default:
			break;
		}
	}
	assert(rc == 0 || rc == -EBADMSG);
	assert(pos >= copy && pos <= end);
	free(copy);
	return rc == 0;
}

/* Seals the body with `from`'s current session on an uplink and hands it to `to`. */
static void seal_and_receive(struct fp_side *from, struct fp_side *to, uint8_t uplink_id, const uint8_t *data,
			     size_t size)
{
	uint8_t *buf = malloc(WB_DATA_OVERHEAD + size);
	struct wb_keypair *kp = from->bond->current;
	int n;

	if (!buf)
		abort();
	assert(kp);
	memcpy(buf + WB_DATA_HEADER_LEN, data, size);
	/* The uplink's next packet number, so the receiver's replay window takes it. */
	n = wb_keypair_seal(kp, uplink_id, from->bond->uplinks[uplink_id].tx_pn++, buf, size);
	assert(n == (int)(WB_DATA_OVERHEAD + size));
	wb_device_receive(to->dev, f.now, from->server ? uplink_id : 0,
			  from->server ? &f.server_ep : &f.client_ep[uplink_id], buf, (size_t)n);
	free(buf);
}

static void check_effect(const struct fp_side *s, bool valid, uint64_t malformed, uint64_t delivered,
			 uint64_t bytes, uint64_t ip_frames, uint64_t ip_bytes)
{
	const struct wb_bond_counters *c = wb_bond_counters(s->bond);

	assert(c->auth_failures == 0 && c->replays == 0);
	if (valid) {
		assert(c->malformed == malformed);
		assert(s->delivered <= delivered + ip_frames && s->delivered_bytes <= bytes + ip_bytes);
	} else {
		assert(c->malformed == malformed + 1);
		assert(s->delivered == delivered && s->delivered_bytes == bytes);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t ip_frames, ip_bytes, malformed, delivered, bytes;
	bool valid;

	if (size > MAX_BODY)
		return 0;
	valid = walk(data, size, &ip_frames, &ip_bytes);

	if (fp_init(&f))
		return 0;
	fp_start_handshake(&f);
	fp_flush(&f);
	fp_run_until(&f, f.now + 1 * FP_SEC);
	assert(f.c.bond->current && f.s.bond->current);

	malformed = wb_bond_counters(f.s.bond)->malformed;
	delivered = f.s.delivered;
	bytes = f.s.delivered_bytes;
	seal_and_receive(&f.c, &f.s, 0, data, size);
	check_effect(&f.s, valid, malformed, delivered, bytes, ip_frames, ip_bytes);

	/* The server may have lost its session to a CLOSE in the body: then only one way. */
	if (f.s.bond->current) {
		malformed = wb_bond_counters(f.c.bond)->malformed;
		delivered = f.c.delivered;
		bytes = f.c.delivered_bytes;
		seal_and_receive(&f.s, &f.c, 1, data, size);
		check_effect(&f.c, valid, malformed, delivered, bytes, ip_frames, ip_bytes);
	}
	fp_flush(&f);
	fp_run_until(&f, f.now + 3 * FP_SEC);
	fp_free(&f);
	return 0;
}
