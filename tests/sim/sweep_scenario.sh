#!/usr/bin/env bash
# One simulator scenario of a sweep draw (tests/tools/wbsweep.c prints draws):
#
#   tests/sim/sweep_scenario.sh DRAWFILE bond CC DIR MOMENT     the bond, a transfer from MOMENT on
#   tests/sim/sweep_scenario.sh DRAWFILE alone CC DIR K         plain TCP over uplink K alone
#
# The transfer lasts SECS (12) seconds and counts from its first packet, as
# iperf3 without -O: what a user sees. The moments: fresh (2 s after the
# tunnel comes up), after (a transfer the same way from 2 s to 12 s, this
# one at 14 s), idle2m (at 122 s; meanwhile a plain TCP fills each path
# alone in turn, as a benchmark before it), idle10m (at 602 s, quiet). The
# TCP ends have Linux's default socket buffers (tcp_wmem's most is 4 MB,
# tcp_rmem's 32 MB since 6.10), as the namespaces' have.
set -eu
draw=$1 kind=$2 cc=$3 dir=$4 arg=$5
SECS=${SECS:-12}
BUFS="rmem 32mb wmem 4mb"
case $kind in
bond) moment=$arg ;;
alone) moment=fresh ;;
*) echo "sweep_scenario: kind bond or alone" >&2; exit 2 ;;
esac
case $moment in
fresh) start=2 ;;
after) start=14 ;;
idle2m) start=122 ;;
idle10m) start=602 ;;
*) echo "sweep_scenario: unknown moment '$moment'" >&2; exit 2 ;;
esac
n=$(grep -c '^uplink' "$draw")
echo "seed $(awk '$1 == "draw" { split($2, a, "."); print a[2] }' "$draw")"
echo "duration $((start + SECS))s"
echo "warmup ${start}s"
echo "bond mtu 1433"
awk '$1 == "uplink" { $1 = "link"; print }' "$draw"
if [ "$kind" = alone ]; then
	echo "app tcp $dir cc $cc path u$arg $BUFS start ${start}s"
	exit 0
fi
echo "app tcp $dir cc $cc $BUFS start ${start}s" # app1: the one measured
case $moment in
after) echo "app tcp $dir cc $cc $BUFS start 2s stop 12s" ;;
idle2m)
	for i in $(seq "$n"); do echo "app tcp $dir cc $cc path u$i $BUFS start $((20 * i))s stop $((20 * i + 15))s"; done ;;
esac
