// SPDX-License-Identifier: MIT
#include "fec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "varint.h"
#include "wire.h"

#define PPM 1000000u

/*
 * dst ^= src over n bytes, eight at a time: gcc does not vectorize a byte
 * loop of unknown length at -O2, which was four to six times slower, and
 * the copies keep it free of alignment and aliasing rules.
 */
static void xor_into(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t a, b;

		memcpy(&a, dst + i, 8);
		memcpy(&b, src + i, 8);
		a ^= b;
		memcpy(dst + i, &a, 8);
	}
	for (; i < n; i++)
		dst[i] ^= src[i];
}

/* ---- The sender ---------------------------------------------------------------------- */

/* Only the parity's first max_len bytes were written: zeroing them keeps the rest of it 0. */
static void new_block(struct wb_fec_encoder *e)
{
	memset(e->parity, 0, e->max_len);
	e->n = 0;
	e->ready = false;
	e->len_xor = 0;
	e->max_len = 0;
}

void wb_fec_encoder_init(struct wb_fec_encoder *e, unsigned k)
{
	memset(e, 0, sizeof(*e));
	wb_fec_set_k(e, k);
}

void wb_fec_set_k(struct wb_fec_encoder *e, unsigned k)
{
	if (k == 1)
		k = 2;
	if (k > WB_FEC_MAX_BLOCK)
		k = WB_FEC_MAX_BLOCK;
	e->k = k;
	if (!k)
		new_block(e);
}

bool wb_fec_add(struct wb_fec_encoder *e, uint64_t dsn, const uint8_t *ip, size_t len)
{
	if (!e->k || !len || len > WB_FEC_MAX_PAYLOAD || dsn > WB_VARINT_MAX)
		return false;
	if (e->ready || (e->n && dsn <= e->dsns[e->n - 1]))
		new_block(e);
	e->dsns[e->n++] = dsn;
	e->len_xor ^= (uint16_t)len;
	if (len > e->max_len)
		e->max_len = (uint16_t)len;
	xor_into(e->parity, ip, len);
	/* n < WB_FEC_MAX_BLOCK before this one: a full block is always ready, and k is at most that. */
	e->ready = e->n >= e->k;
	return e->ready;
}

bool wb_fec_flush_ready(struct wb_fec_encoder *e)
{
	if (e->n < 2) {
		new_block(e);
		return false;
	}
	e->ready = true;
	return true;
}

size_t wb_fec_parity_len(const struct wb_fec_encoder *e)
{
	size_t n;

	if (!e->ready)
		return 0;
	n = 1 + wb_varint_len(e->dsns[0]) + 1 + 2 + 2 + e->max_len;
	for (unsigned i = 1; i < e->n; i++)
		n += wb_varint_len(e->dsns[i] - e->dsns[i - 1]);
	return n;
}

size_t wb_fec_put_parity(uint8_t *p, struct wb_fec_encoder *e)
{
	size_t n = 1;

	if (!e->ready)
		return 0;
	p[0] = WB_FRAME_FEC_PARITY;
	n += wb_varint_put(p + n, e->dsns[0]);
	p[n++] = (uint8_t)e->n;
	for (unsigned i = 1; i < e->n; i++)
		n += wb_varint_put(p + n, e->dsns[i] - e->dsns[i - 1]);
	wb_put_le16(p + n, e->len_xor);
	wb_put_le16(p + n + 2, e->max_len);
	n += 4;
	memcpy(p + n, e->parity, e->max_len);
	n += e->max_len;
	e->blocks++;
	e->protected_packets += e->n;
	new_block(e);
	return n;
}

/* ---- The frame ----------------------------------------------------------------------- */

/* Lengths up to len XOR to less than the power of two above it: a len_xor past that is corrupt. */
static bool len_xor_possible(uint16_t len_xor, size_t len)
{
	size_t above = 1;

	while (above <= len)
		above <<= 1;
	return len_xor < above;
}

int wb_fec_parse_parity(const uint8_t *p, size_t avail, struct wb_fec_parity *out)
{
	const uint8_t *q = p + 1, *end = p + avail;
	uint64_t delta;

	if (!avail || p[0] != WB_FRAME_FEC_PARITY || !wb_varint_get(&q, end, &out->first_dsn) || q == end)
		return -EBADMSG;
	out->n = *q++;
	if (out->n < 2 || out->n > WB_FEC_MAX_BLOCK)
		return -EBADMSG;
	out->dsns[0] = out->first_dsn;
	for (unsigned i = 1; i < out->n; i++) {
		/* Each DSN a varint's worth too: the sum stays within 2^62 - 1, so it cannot wrap. */
		if (!wb_varint_get(&q, end, &delta) || !delta || delta > WB_VARINT_MAX - out->dsns[i - 1])
			return -EBADMSG;
		out->dsns[i] = out->dsns[i - 1] + delta;
	}
	if (end - q < 4)
		return -EBADMSG;
	out->len_xor = wb_get_le16(q);
	out->payload_len = wb_get_le16(q + 2);
	q += 4;
	if (!out->payload_len || out->payload_len > WB_FEC_MAX_PAYLOAD || out->payload_len > (size_t)(end - q) ||
	    !len_xor_possible(out->len_xor, out->payload_len))
		return -EBADMSG;
	out->payload = q;
	return (int)(q + out->payload_len - p);
}

/* ---- The receiver -------------------------------------------------------------------- */

int wb_fec_decoder_init(struct wb_fec_decoder *d)
{
	memset(d, 0, sizeof(*d));
	d->data = malloc(WB_FEC_RING * sizeof(*d->data));
	return d->data ? 0 : -ENOMEM;
}

void wb_fec_decoder_free(struct wb_fec_decoder *d)
{
	free(d->data);
	memset(d, 0, sizeof(*d));
}

void wb_fec_decoder_restart(struct wb_fec_decoder *d)
{
	memset(d->lens, 0, sizeof(d->lens));
	d->next = 0;
}

void wb_fec_note_received(struct wb_fec_decoder *d, uint64_t dsn, const uint8_t *ip, size_t len)
{
	unsigned s = d->next;

	if (!len || len > WB_FEC_MAX_PAYLOAD)
		return;
	memcpy(d->data[s], ip, len);
	d->dsns[s] = dsn;
	d->lens[s] = (uint16_t)len;
	d->next = (s + 1) % WB_FEC_RING;
}

/* The slot holding dsn, newest first (a block's packets are the last few), or -1. */
static int find(const struct wb_fec_decoder *d, uint64_t dsn)
{
	for (unsigned i = 1; i <= WB_FEC_RING; i++) {
		unsigned s = (d->next + WB_FEC_RING - i) % WB_FEC_RING;

		if (d->lens[s] && d->dsns[s] == dsn)
			return (int)s;
	}
	return -1;
}

/* XORs the packets held into the payload's copy; false if one is longer than the payload. */
static bool xor_held(const struct wb_fec_decoder *d, const struct wb_fec_parity *p, const int *slots,
		     unsigned missing, uint8_t *out, uint16_t *len)
{
	memcpy(out, p->payload, p->payload_len);
	*len = p->len_xor;
	for (unsigned i = 0; i < p->n; i++) {
		if (i == missing)
			continue;
		if (d->lens[slots[i]] > p->payload_len)
			return false;
		xor_into(out, d->data[slots[i]], d->lens[slots[i]]);
		*len ^= d->lens[slots[i]];
	}
	return true;
}

/* The rebuilt packet's length fits the payload, and the padding after it came out zero. */
static bool rebuilt_ok(const uint8_t *out, uint16_t len, size_t payload_len)
{
	if (!len || len > payload_len)
		return false;
	for (size_t i = len; i < payload_len; i++)
		if (out[i])
			return false;
	return true;
}

int wb_fec_recover(struct wb_fec_decoder *d, const struct wb_fec_parity *p, uint64_t nxt, uint64_t *dsn,
		   uint8_t *out, size_t *len)
{
	int slots[WB_FEC_MAX_BLOCK];
	unsigned missing = p->n, n_missing = 0;
	uint16_t rebuilt_len;

	for (unsigned i = 0; i < p->n; i++) {
		slots[i] = find(d, p->dsns[i]);
		if (slots[i] < 0 && n_missing++ == 0)
			missing = i;
	}
	if (!n_missing)
		return 0;
	if (n_missing > 1) {
		d->unrecoverable++;
		return 0;
	}
	if (p->dsns[missing] < nxt) {
		d->late++;
		return 0;
	}
	if (!xor_held(d, p, slots, missing, out, &rebuilt_len) || !rebuilt_ok(out, rebuilt_len, p->payload_len)) {
		d->corrupt++;
		return -EBADMSG;
	}
	*dsn = p->dsns[missing];
	*len = rebuilt_len;
	wb_fec_note_received(d, *dsn, out, *len);
	d->recovered++;
	return 1;
}

/* ---- K --------------------------------------------------------------------------------- */

/*
 * residual(K) = p (1 - q^K) with q = 1 - p, in 32-bit fixed point (no
 * floating point: routers without an FPU pay dearly for it). It grows with
 * K, so K rises while the next one still meets the target.
 */
unsigned wb_fec_choose_k(uint32_t loss_ppm)
{
	const uint64_t one = 1ULL << 32;
	const uint64_t target = ((uint64_t)WB_FEC_TARGET_PPM << 32) / PPM;
	uint64_t p, q, qk;
	unsigned k;

	if (loss_ppm <= WB_FEC_TARGET_PPM)
		return 0;
	if (loss_ppm >= PPM)
		return 2; /* everything lost: the formula's answer, and p = 1 would overflow the products */
	p = ((uint64_t)loss_ppm << 32) / PPM;
	q = one - p;
	qk = q * q >> 32;
	for (k = 2; k < WB_FEC_MAX_BLOCK; k++) {
		uint64_t next = qk * q >> 32;

		if ((p * (one - next) >> 32) > target)
			break;
		qk = next;
	}
	return k;
}
