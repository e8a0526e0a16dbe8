#!/usr/bin/env bash
# A bond that has been idle while other traffic used its paths (issue 24):
# the real daemons over two emulated uplinks (100 Mbit/s, 16 ms RTT; 50
# Mbit/s, 40 ms RTT with 3 ms of jitter: the issue's pair), a TCP through
# the bond from the LAN host:
#
#   a. after the tunnel sat idle while a plain TCP filled each path alone in
#      turn (8 s each, router to vps, as a benchmark before it). The idle
#      uplinks' probes saw that traffic's queue; their controllers ended
#      startup on it having measured nothing, and the bond left its second
#      uplink out: it ramped up only slowly (before the fix: 0.21 of the
#      packets against 0.33 in b, and 104.6 Mbit/s against 132.6; over 15 s
#      after two minutes of such traffic the issue saw 1-4%);
#   b. right after the daemons start again, the reference.
#
# After the fix the two agree (0.334 and 0.342 of the packets, 132.2 and
# 128.3 Mbit/s). The checks: the second uplink's share in a at least 0.8 of
# its share in b, the bond in a at least 0.85 of b and 0.93 of the faster
# path alone (the issue's target, within 10%, holds here and in the
# simulator's idle scenarios; this is a noisy shared machine).
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

SRV=10.2.0.2
SECS=8
WANBOND=$NT_BUILD/bin/wanbond

nt_init
nt_topology 2
nt_uplink_start 1 rate 100mbit delay 8ms limit 50ms seed 1
nt_uplink_start 2 rate 50mbit delay 20ms jitter 3ms limit 60ms seed 2
nt_wb_home_pair

start_bond() {
	nt_wb_start vps "$SCONF"; SPID=$NT_LAST_PID
	nt_wb_start router "$CCONF"; CPID=$NT_LAST_PID
	nt_wait_log "$CCONF.log" "session established" 10 || nt_die "no session"
	nt_wb_wait_up "$CCONF.log" 2 10 || nt_die "not both uplinks came up in 10 s"
	sleep 1
}
stop_bond() { nt_stop "$CPID"; nt_stop "$SPID"; rm -f "$CCONF.log" "$SCONF.log"; }
mbit() { jq -r '(.end.sum_received.bits_per_second // 0) / 1e6 | . * 10 | round / 10'; }
# The share of the IP packets the client sent on uplink lte, since its counters were reset.
lte_share() {
	"$WANBOND" -d "$NT_TMP/ctl-client" stats home | awk '
		$2 == "tx_ip_packets" && $1 == "home/dsl" { d = $3 } $2 == "tx_ip_packets" && $1 == "home/lte" { l = $3 }
		END { printf "%.3f\n", (d + l) ? l / (d + l) : 0 }'
}
through_bond() { # prints "GOODPUT SHARE"
	local g
	"$WANBOND" -d "$NT_TMP/ctl-client" stats reset home >/dev/null
	g=$(nt_iperf lan srv "$SRV" -t "$SECS" | mbit)
	echo "$g $(lte_share)"
}

echo "a. the tunnel idle while a plain TCP fills each path alone"
start_bond
alone1=$(nt_iperf router vps 10.100.1.2 -t "$SECS" | mbit)
alone2=$(nt_iperf router vps 10.100.2.2 -t "$SECS" | mbit)
read -r idle_g idle_share <<<"$(through_bond)"
echo "  (alone: $alone1 and $alone2 Mbit/s; then the bond: $idle_g Mbit/s, uplink lte carried $idle_share of its packets)"
stop_bond

echo "b. right after the daemons start"
start_bond
read -r fresh_g fresh_share <<<"$(through_bond)"
echo "  (the bond: $fresh_g Mbit/s, uplink lte carried $fresh_share of its packets)"
stop_bond

nt_expect_range "lte's share after idle / right after start" \
	"$(awk -v a="$idle_share" -v b="$fresh_share" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')" 0.8 10
nt_expect_range "bond after idle / right after start" \
	"$(awk -v a="$idle_g" -v b="$fresh_g" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')" 0.85 10
nt_expect_range "bond after idle / the faster path alone" \
	"$(awk -v a="$idle_g" -v b="$alone1" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')" 0.93 10
nt_finish
