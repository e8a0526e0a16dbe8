// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: a parity frame of the interactive class (fec.h), as a
 * buggy or hostile peer holding the session keys could send it, and what
 * the receiver held when it came. The input is the frame, then a trailer
 * the harness reads as the receiver's past (bytes past the input's end are
 * zeros):
 *
 *   byte     the delivered horizon: 0 none, else the frame's DSN number
 *            (b - 1) % n, one above it if b & 0x80
 *   byte     other packets noted (b & 0x7f of them), after the frame's or,
 *            if b & 0x80, before them
 *   per DSN  a byte: bit 0 noted, bit 1 noted twice; if noted, a le16
 *            length (any: the decoder keeps only 1..WB_FEC_MAX_PAYLOAD) and
 *            that many bytes
 *
 * wb_fec_parse_parity reads the input from a heap copy of exactly its
 * length, then the frame alone from one of exactly the bytes it took (the
 * frame reads nothing past itself); every packet noted is a heap buffer of
 * exactly its length, the rebuilt one's buffer exactly WB_FEC_MAX_PAYLOAD.
 *
 * What must hold besides no crash: a parsed frame keeps every promise of
 * struct wb_fec_parity; recovery gives what the harness's own model of the
 * ring (the last WB_FEC_RING packets kept) and of the XOR says, no more:
 * nothing when none or two or more are missing or the missing one is below
 * the horizon, a refusal when the parity disagrees with what is held,
 * otherwise that DSN, a length in 1..payload_len and exactly the model's
 * bytes; the rebuilt packet is noted (the same parity again rebuilds
 * nothing); and the block re-encoded from the packets gives back the
 * frame's DSNs, len_xor and payload (zeros past the longest packet).
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "fec.h"
#include "varint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OTHERS 0x7f

/* The trailer, read byte by byte: zeros past the input's end. */
struct trailer {
	const uint8_t *p, *end;
};

static uint8_t next_byte(struct trailer *t)
{
	return t->p < t->end ? *t->p++ : 0;
}

/* One packet the receiver noted: the model keeps all of them, in order. */
struct noted {
	uint64_t dsn;
	size_t len;
	uint8_t *data;
};

static struct noted notes[WB_FEC_MAX_BLOCK * 2 + MAX_OTHERS];
static unsigned n_notes;

static void *must_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

static void note(struct wb_fec_decoder *d, uint64_t dsn, const uint8_t *bytes, size_t len)
{
	uint8_t *copy = must_malloc(len);

	memcpy(copy, bytes, len);
	wb_fec_note_received(d, dsn, copy, len);
	notes[n_notes++] = (struct noted){ dsn, len, copy };
}

/* Packets of other DSNs (above the frame's), of lengths 1..200. */
static void note_others(struct wb_fec_decoder *d, const struct wb_fec_parity *par, unsigned count)
{
	uint8_t bytes[200];

	for (unsigned j = 0; j < count; j++) {
		size_t len = 1 + j % sizeof(bytes);

		memset(bytes, (int)j, len);
		note(d, par->dsns[par->n - 1] + 1 + j, bytes, len);
	}
}

/* The frame's packets the trailer notes. */
static void note_frame_packets(struct wb_fec_decoder *d, const struct wb_fec_parity *par, struct trailer *t)
{
	for (unsigned i = 0; i < par->n; i++) {
		uint8_t flags = next_byte(t);
		size_t len;
		uint8_t *bytes;

		if (!(flags & 1))
			continue;
		len = next_byte(t);
		len |= (size_t)next_byte(t) << 8;
		bytes = must_malloc(len);
		for (size_t j = 0; j < len; j++)
			bytes[j] = next_byte(t);
		note(d, par->dsns[i], bytes, len);
		if (flags & 2)
			note(d, par->dsns[i], bytes, len);
		free(bytes);
	}
}

/* The model of the ring: the newest of the last WB_FEC_RING packets kept with this DSN, or NULL. */
static const struct noted *held(uint64_t dsn)
{
	unsigned kept = 0;

	for (unsigned i = n_notes; i-- > 0 && kept < WB_FEC_RING;) {
		if (!notes[i].len || notes[i].len > WB_FEC_MAX_PAYLOAD)
			continue;
		kept++;
		if (notes[i].dsn == dsn)
			return &notes[i];
	}
	return NULL;
}

/* What recovery must give, by the model: 1 with want[] and *want_len, 0, or -EBADMSG. */
static int expected(const struct wb_fec_parity *par, uint64_t horizon, unsigned *missing, uint8_t *want,
		    size_t *want_len)
{
	unsigned n_missing = 0;
	uint16_t len = par->len_xor;

	for (unsigned i = 0; i < par->n; i++)
		if (!held(par->dsns[i]) && n_missing++ == 0)
			*missing = i;
	if (n_missing != 1 || par->dsns[*missing] < horizon)
		return 0;
	memcpy(want, par->payload, par->payload_len);
	for (unsigned i = 0; i < par->n; i++) {
		const struct noted *h = held(par->dsns[i]);

		if (i == *missing)
			continue;
		if (h->len > par->payload_len)
			return -EBADMSG;
		for (size_t j = 0; j < h->len; j++)
			want[j] ^= h->data[j];
		len ^= (uint16_t)h->len;
	}
	if (!len || len > par->payload_len)
		return -EBADMSG;
	for (size_t j = len; j < par->payload_len; j++)
		if (want[j])
			return -EBADMSG;
	*want_len = len;
	return 1;
}

static void check_parsed(const struct wb_fec_parity *par, const uint8_t *copy, int used)
{
	assert(par->n >= 2 && par->n <= WB_FEC_MAX_BLOCK);
	assert(par->dsns[0] == par->first_dsn);
	for (unsigned i = 1; i < par->n; i++)
		assert(par->dsns[i] > par->dsns[i - 1]);
	assert(par->dsns[par->n - 1] <= WB_VARINT_MAX);
	assert(par->payload_len >= 1 && par->payload_len <= WB_FEC_MAX_PAYLOAD);
	assert(par->payload > copy && par->payload + par->payload_len == copy + used);
}

/*
 * Re-encodes the block, rebuilt packet among the others, with K its size:
 * the same DSNs and len_xor, a payload as long as its longest packet, the
 * frame's bytes up to there and zeros after.
 */
static void check_reencoded(const struct wb_fec_parity *par, unsigned missing, const uint8_t *rebuilt,
			    size_t rebuilt_len)
{
	static uint8_t frame[WB_FEC_PARITY_MAX_LEN];
	struct wb_fec_encoder *e = must_malloc(sizeof(*e));
	struct wb_fec_parity again;
	size_t n;
	int used;

	wb_fec_encoder_init(e, par->n);
	for (unsigned i = 0; i < par->n; i++) {
		const struct noted *h = i == missing ? NULL : held(par->dsns[i]);
		bool ready = h ? wb_fec_add(e, par->dsns[i], h->data, h->len)
			       : wb_fec_add(e, par->dsns[i], rebuilt, rebuilt_len);

		assert(ready == (i + 1 == par->n));
	}
	n = wb_fec_parity_len(e);
	assert(wb_fec_put_parity(frame, e) == n);
	used = wb_fec_parse_parity(frame, n, &again);
	assert(used == (int)n);
	assert(again.n == par->n && again.len_xor == par->len_xor);
	assert(!memcmp(again.dsns, par->dsns, par->n * sizeof(par->dsns[0])));
	assert(again.payload_len <= par->payload_len);
	assert(!memcmp(again.payload, par->payload, again.payload_len));
	for (size_t j = again.payload_len; j < par->payload_len; j++)
		assert(!par->payload[j]);
	free(e);
}

static void recover_and_check(struct wb_fec_decoder *d, const struct wb_fec_parity *par, uint64_t horizon)
{
	static uint8_t want[WB_FEC_MAX_PAYLOAD];
	uint8_t *out = must_malloc(WB_FEC_MAX_PAYLOAD);
	unsigned missing = 0;
	size_t want_len = 0, len = 0;
	uint64_t dsn = 0;
	int want_rc = expected(par, horizon, &missing, want, &want_len);
	int rc = wb_fec_recover(d, par, horizon, &dsn, out, &len);

	assert(rc == want_rc);
	assert(d->recovered == (rc == 1) && d->corrupt == (rc == -EBADMSG));
	if (rc == 1) {
		assert(dsn == par->dsns[missing] && dsn >= horizon);
		assert(len >= 1 && len <= par->payload_len && len == want_len);
		assert(!memcmp(out, want, len));
		check_reencoded(par, missing, out, len);
		/* Noted: nothing more to rebuild from the same parity. */
		assert(wb_fec_recover(d, par, horizon, &dsn, out, &len) == 0);
	} else {
		/* Again the same: a refusal noted nothing. */
		assert(wb_fec_recover(d, par, horizon, &dsn, out, &len) == rc);
	}
	free(out);
}

static uint64_t horizon_of(const struct wb_fec_parity *par, uint8_t b)
{
	if (!b)
		return 0;
	return par->dsns[(unsigned)(b - 1) % par->n] + (b & 0x80 ? 1 : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = must_malloc(size), *alone;
	struct wb_fec_parity par, par_alone;
	struct wb_fec_decoder d;
	struct trailer t;
	uint8_t horizon_byte, others;
	int used;

	memcpy(copy, data, size);
	used = wb_fec_parse_parity(copy, size, &par);
	assert(used == -EBADMSG || (used > 0 && (size_t)used <= size));
	if (used < 0) {
		free(copy);
		return 0;
	}
	check_parsed(&par, copy, used);
	/* The frame alone parses the same. */
	alone = must_malloc((size_t)used);
	memcpy(alone, copy, (size_t)used);
	assert(wb_fec_parse_parity(alone, (size_t)used, &par_alone) == used);
	assert(par_alone.n == par.n && par_alone.len_xor == par.len_xor && par_alone.payload_len == par.payload_len);
	assert(!memcmp(par_alone.dsns, par.dsns, par.n * sizeof(par.dsns[0])));
	free(alone);

	if (wb_fec_decoder_init(&d))
		abort();
	n_notes = 0;
	t = (struct trailer){ copy + used, copy + size };
	horizon_byte = next_byte(&t);
	others = next_byte(&t);
	if (others & 0x80)
		note_others(&d, &par, others & MAX_OTHERS);
	note_frame_packets(&d, &par, &t);
	if (!(others & 0x80))
		note_others(&d, &par, others & MAX_OTHERS);
	recover_and_check(&d, &par, horizon_of(&par, horizon_byte));

	wb_fec_decoder_free(&d);
	for (unsigned i = 0; i < n_notes; i++)
		free(notes[i].data);
	free(copy);
	return 0;
}
