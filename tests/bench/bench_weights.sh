#!/usr/bin/env bash
# The uplinks' weights through the real daemons: two emulated uplinks alike
# (100 Mbit/s, 10 ms each way), 40 Mbit/s of traffic both have room for,
# lan -> srv for 5 s, under weights 1:1, 1:3 and 3:1 (set at run time with
# `wanbond uplink set NAME weight N`). Each line: the goodput and uplink dsl's
# share of the bytes the client sent, for a smooth UDP stream and for a TCP
# capped at 40 Mbit/s (iperf3 -b: its window comes in bursts). A weight
# shares what both uplinks could carry as soon as each other; a burst the
# favoured one cannot take at once goes on the other (docs/scheduler.md,
# "Weights"). With equal weights the split is the speed rules' alone.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

SRV=10.2.0.2
nt_init
nt_topology 2
nt_wb_home_pair
nt_wb_start vps "$SCONF"
nt_wb_start router "$CCONF"
for k in 1 2; do
	nt_uplink_stop "$k"
	nt_uplink_start "$k" rate 100mbit delay 10ms limit 40ms seed "$k"
done
nt_wait_log "$CCONF.log" "session established" 10 || nt_die "no session"
sleep 1

wb() { "$NT_BUILD/bin/wanbond" -d "$NT_TMP/ctl-client" "$@"; }
tx_bytes() { wb -j show home | jq -r '[.[0].uplinks[] | .counters.tx_bytes] | @tsv'; }
# run LABEL IPERF_ARGS...: one line of the table.
run() {
	local label=$1 a0 b0 a1 b1 g; shift
	read -r a0 b0 <<<"$(tx_bytes)"
	g=$(nt_iperf lan srv "$SRV" -t 5 "$@" | jq -r '.end.sum_received.bits_per_second // .end.sum.bits_per_second // 0')
	read -r a1 b1 <<<"$(tx_bytes)"
	awk -v l="$label" -v g="$g" -v a=$((a1 - a0)) -v b=$((b1 - b0)) \
		'BEGIN { printf "| %-22s | %8.1f | %9.3f |\n", l, g / 1e6, (a + b) ? a / (a + b) : 0 }'
}

echo "| weights dsl:lte, traffic | Mbit/s | dsl's share |"
echo "| --- | --- | --- |"
for w in 1:1 1:3 3:1; do
	wb uplink set dsl weight "${w%:*}" >/dev/null
	wb uplink set lte weight "${w#*:}" >/dev/null
	run "$w, UDP 40 Mbit/s" -u -b 40M -l 1200
	run "$w, TCP at 40 Mbit/s" -b 40M
done
nt_finish
