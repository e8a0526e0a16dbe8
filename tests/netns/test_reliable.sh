#!/usr/bin/env bash
# The reliable layer end to end, through the real daemons over two emulated
# uplinks:
#   a. with 2% loss on each uplink (both ways), TCP through the bond against
#      TCP over one such uplink without the tunnel, in the same run: the bond
#      recovers the losses itself and adds the second uplink, so it must reach
#      at least 1.5 times the single uplink: the median of three pairs of
#      runs, each pair taken side by side, so one run slowed by the machine
#      does not decide it;
#   b. with loss and jitter on both uplinks, a file crosses the bond intact,
#      and the daemons' counters show the losses were resent.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

SRV=10.2.0.2
SECONDS_PER_RUN=5
RUNS=3

nt_init
command -v perl >/dev/null || nt_die "missing perl"
nt_topology 2
nt_wb_keys server
nt_wb_keys home
nt_wb_server_conf "$NT_TMP/server.conf" home:10.255.0.1/30:10.1.0.0/24
nt_wb_client_conf "$NT_TMP/client.conf" home 10.255.0.2/30 10.2.0.0/24 a:wan1 b:wan2
nt_wb_start vps "$NT_TMP/server.conf"
SPID=$NT_LAST_PID
nt_wb_start router "$NT_TMP/client.conf"
CPID=$NT_LAST_PID

links() { # PARAMS...: both uplinks get these emulator parameters
	for k in 1 2; do
		nt_uplink_stop "$k"
		nt_uplink_start "$k" "$@" seed "$k"
	done
}
mbit() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e6 }'; }

echo "a. 2% loss on each of two 30 Mbit/s uplinks"
links rate 30mbit delay 10ms limit 50ms loss 2%
nt_wait_log "$NT_TMP/client.conf.log" "session established" 10 || nt_die "no session"
sleep 1
# What the client's bond did in a run, so a slow run says why: its counters
# that move when the bond loses time (resends, AQM drops, gaps given up,
# timeouts, penalties) and its uplinks' timeouts, as differences.
BOND_COUNTERS="retransmits aqm_drops reorder_skips bond_timeouts penalised opp_reinject"
counters_now() {
	local status name
	status=$(nt_wb_status "$CPID" "$NT_TMP/client.conf.log")
	for name in $BOND_COUNTERS; do
		printf '%s ' "$(nt_wb_field "$(nt_wb_counters "$status" home)" "$name")"
	done
	for name in a b; do
		printf '%s ' "$(grep -E "^<[0-9]>home/$name: cwnd" <<<"$status" | grep -oE 'timeouts [0-9]+' | awk '{ print $2 }')"
	done
}
counters_moved() { # BEFORE AFTER: "name +N" for each counter
	awk -v names="$BOND_COUNTERS a.timeouts b.timeouts" -v b="$1" -v a="$2" 'BEGIN {
		n = split(names, k, " "); split(b, x, " "); split(a, y, " ")
		for (i = 1; i <= n; i++) printf "%s%s +%d", (i > 1) ? ", " : "", k[i], y[i] - x[i]
	}'
}
ratios=()
for run in $(seq "$RUNS"); do
	single=$(nt_iperf router vps 10.100.1.2 -t "$SECONDS_PER_RUN" -O 1 | jq -r '.end.sum_received.bits_per_second // 0')
	before=$(counters_now)
	bond=$(nt_iperf lan srv "$SRV" -t "$SECONDS_PER_RUN" -O 1 | jq -r '.end.sum_received.bits_per_second // 0')
	moved=$(counters_moved "$before" "$(counters_now)")
	ratios+=("$(awk -v a="$bond" -v b="$single" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')")
	echo "  (run $run: one uplink alone, plain TCP: $(mbit "$single") Mbit/s; the bond: $(mbit "$bond") Mbit/s)"
	echo "  (run $run, the client's bond: $moved)"
done
nt_expect_range "bond / one uplink alone, TCP goodput, median of $RUNS" "$(nt_median "${ratios[@]}")" 1.5 10

echo "b. a file over two uplinks with loss and jitter"
links rate 20mbit delay 15ms jitter 3ms loss 1% limit 60ms
sleep 1
head -c $((8 * 1024 * 1024)) /dev/urandom >"$NT_TMP/in.bin"
before=$(nt_wb_status "$SPID" "$NT_TMP/server.conf.log")
PORT=$(nt_free_port srv 6000)
nt_tcp_sink srv "$SRV" "$PORT" "$NT_TMP/out.bin"
SINK=$NT_LAST_PID
nt_tcp_send lan "$SRV" "$PORT" "$NT_TMP/in.bin"
for _ in $(seq 600); do kill -0 "$SINK" 2>/dev/null || break; sleep 0.1; done
after=$(nt_wb_status "$SPID" "$NT_TMP/server.conf.log")
resent=$(( $(nt_wb_field "$(nt_wb_counters "$after" home)" retransmits) - $(nt_wb_field "$(nt_wb_counters "$before" home)" retransmits) ))
echo "  ($(cat "$NT_TMP/sink-$PORT.log"); the server resent $resent packets meanwhile, on the return path)"
nt_expect_true "the file arrived whole, same sha256" \
	[ "$(sha256sum <"$NT_TMP/in.bin")" = "$(sha256sum <"$NT_TMP/out.bin" 2>/dev/null)" ]
client=$(nt_wb_status "$CPID" "$NT_TMP/client.conf.log")
nt_expect_range "packets the client resent (1% of its uplinks lost)" "$(nt_wb_field "$(nt_wb_counters "$client" home)" retransmits)" 1 100000
nt_finish
