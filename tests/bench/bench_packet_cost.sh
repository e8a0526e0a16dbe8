#!/usr/bin/env bash
# What the daemons' packet path costs, with no emulator in the way (one
# uplink that is a plain veth pair):
#   a. TCP through the tunnel, each way: goodput, the two daemons' CPU, and
#      goodput per core they used;
#   b. instructions per forwarded IP packet, counted by valgrind's callgrind
#      (repeatable, whatever else the machine does): both daemons run under
#      it twice, forwarding N1 and then N2 UDP packets one way, and the
#      difference over N2 - N1 leaves out start-up and the handshake.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
N1=${N1:-1000}
N2=${N2:-5000}
SRV=10.2.0.2

nt_init
command -v valgrind >/dev/null || nt_die "missing valgrind (run make deps)"
nt_build_base
nt_add_direct_uplink 1
nt_wb_keys server
nt_wb_keys home
nt_wb_server_conf "$NT_TMP/server.conf" home:10.255.0.1/30:10.1.0.0/24
nt_wb_client_conf "$NT_TMP/client.conf" home 10.255.0.2/30 10.2.0.0/24 wire:wan1

cpu_seconds() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }

start_daemons() { # [WRAPPER...]: both daemons, optionally under a wrapper
	rm -f "$NT_TMP"/*.conf.log
	nt_bg vps "$NT_TMP/server.conf.log" "$@" "$NT_WANBONDD" -c "$NT_TMP/server.conf"
	SPID=$NT_LAST_PID
	nt_bg router "$NT_TMP/client.conf.log" "$@" "$NT_WANBONDD" -c "$NT_TMP/client.conf"
	CPID=$NT_LAST_PID
	nt_wait_log "$NT_TMP/client.conf.log" "session established" 60 || nt_die "no session"
	sleep 1
}

echo "a. TCP through the tunnel over a veth uplink (no emulator), ${SECONDS_PER_RUN} s each way"
printf '%-10s %10s %22s %s\n' "direction" "Mbit/s" "daemons' CPU (of one core)" "Mbit/s per core used"
start_daemons
for dir in upload download; do
	flag=""; [ "$dir" = download ] && flag=-R
	c0=$(awk -v a="$(cpu_seconds "$SPID")" -v b="$(cpu_seconds "$CPID")" 'BEGIN { print a + b }')
	t0=$(date +%s.%N)
	bps=$(nt_iperf lan srv "$SRV" -t "$SECONDS_PER_RUN" $flag | jq -r '.end.sum_received.bits_per_second // 0')
	t1=$(date +%s.%N)
	c1=$(awk -v a="$(cpu_seconds "$SPID")" -v b="$(cpu_seconds "$CPID")" 'BEGIN { print a + b }')
	awk -v b="$bps" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v d="$dir" 'BEGIN {
		share = (c1 - c0) / (t1 - t0)
		printf "%-10s %10.1f %21.0f%% %20.1f\n", d, b / 1e6, 100 * share, (share > 0) ? b / 1e6 / share : 0 }'
done
nt_stop "$CPID"
nt_stop "$SPID"

# ir_of FILE: the total instructions a callgrind output file counted.
ir_of() { awk '/^(summary|totals):/ { print $2; exit }' "$1"; }

# run_counted N: forwards N UDP packets of 1200 bytes lan -> srv with both daemons under callgrind.
run_counted() {
	local n=$1
	start_daemons valgrind --tool=callgrind --callgrind-out-file="$NT_TMP/cg-%p.out" -q
	nt_iperf lan srv "$SRV" -u -b 2M -l 1200 -n $((n * 1200)) >/dev/null
	sleep 1
	nt_stop "$CPID"
	nt_stop "$SPID"
	CLIENT_IR=$(ir_of "$(ls "$NT_TMP"/cg-"$CPID".out 2>/dev/null || true)")
	SERVER_IR=$(ir_of "$(ls "$NT_TMP"/cg-"$SPID".out 2>/dev/null || true)")
	[ -n "$CLIENT_IR" ] && [ -n "$SERVER_IR" ] || nt_die "callgrind wrote no counts"
}

echo
echo "b. instructions per forwarded IP packet (callgrind; UDP, 1200 bytes, lan -> srv; runs of $N1 and $N2 packets)"
run_counted "$N1"
c1=$CLIENT_IR s1=$SERVER_IR
run_counted "$N2"
c2=$CLIENT_IR s2=$SERVER_IR
awk -v c1="$c1" -v c2="$c2" -v s1="$s1" -v s2="$s2" -v n1="$N1" -v n2="$N2" 'BEGIN {
	printf "client (TUN -> uplink: seal, send, its acks): %8.0f instructions per packet\n", (c2 - c1) / (n2 - n1)
	printf "server (uplink -> TUN: open, reorder, deliver): %6.0f instructions per packet\n", (s2 - s1) / (n2 - n1) }'
