// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the input is a datagram received from the network, by
 * a server and by a client device, each with its peer configured
 * (fuzz_pair.h). It arrives twice: while the client's first handshake is in
 * flight (the server has no session yet, the client waits for a response or
 * a cookie reply), and again once the session runs (data messages with a
 * receiver index that exists). Then the timers run for a few seconds.
 *
 * A fresh pair per input, about a millisecond of work: every run of an
 * input is the same, whatever ran before it. The seeds (gen_corpus.c) are
 * real messages of this very pair: an initiation, a response, a cookie
 * reply, and data messages sealed with its session keys at counters not yet
 * used, so the fuzzer starts past the cryptography.
 *
 * What must hold: no crash, no leak, no sanitizer report; every datagram is
 * counted as received; nothing is delivered while neither side has a
 * session; every IP packet delivered is counted by its bond.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz_pair.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fp f;

/* The input, to both devices, from where a peer's datagrams come from. */
static void receive_both(const uint8_t *data, size_t size)
{
	uint64_t rx_s = wb_device_counters(f.s.dev)->rx_datagrams, rx_c = wb_device_counters(f.c.dev)->rx_datagrams;

	fp_receive(&f, &f.s, 0, &f.client_ep[0], data, size);
	fp_receive(&f, &f.c, 0, &f.server_ep, data, size);
	assert(wb_device_counters(f.s.dev)->rx_datagrams == rx_s + 1);
	assert(wb_device_counters(f.c.dev)->rx_datagrams == rx_c + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct wb_bond_counters *sc, *cc;

	if (size > WB_MAX_DATAGRAM || fp_init(&f))
		return 0;
	fp_start_handshake(&f);
	receive_both(data, size);
	/* Without a session on either side yet, nothing can have been delivered. */
	assert(!f.s.delivered && !f.c.delivered);
	fp_flush(&f);

	f.now += 1 * FP_MS;
	receive_both(data, size);
	fp_flush(&f);
	fp_run_until(&f, f.now + 3 * FP_SEC);

	/* Every IP packet delivered was counted as delivered by its bond. */
	sc = wb_bond_counters(f.s.bond);
	cc = wb_bond_counters(f.c.bond);
	assert(sc->tun_tx_packets == f.s.delivered && sc->tun_tx_bytes == f.s.delivered_bytes);
	assert(cc->tun_tx_packets == f.c.delivered && cc->tun_tx_bytes == f.c.delivered_bytes);
	fp_free(&f);
	return 0;
}
