#!/usr/bin/env bash
# Calibration table of the link emulator on this machine: for each rate, with
# 20 ms RTT, TCP goodput over configured goodput on one uplink alone and on
# two uplinks at once (two emulators and two transfers sharing the CPUs); then
# the highest rate at which both uplinks stay within 3% of their configuration.
# "lateness" is how late the emulator sent frames against their schedule, on
# average (the worse uplink): its fidelity, which a rate alone does not show.
# Later benchmarks scale their scenarios to that rate; it is written to
# BUILD/bench/linkem_max_rate_mbit.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
RATES=${RATES:-10 25 50 100 200}
SEARCH=${SEARCH:-300 400 500 600 800 1000 1200}
MTU=1500

nt_init
nt_topology 2

# CPU seconds (user + system) a process has used so far.
cpu_seconds() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }

start_links() {
	for k in 1 2; do
		nt_uplink_start "$k" rate "${1}mbit" delay 10ms limit 40ms seed "$k"
	done
}

stop_links() { nt_uplink_stop 1; nt_uplink_stop 2; }

# tcp_ratio_json FILE RATE_MBIT: TCP goodput over the configured rate's payload share.
tcp_ratio_json() {
	jq -r --arg r "$2" --arg mtu "$MTU" \
		'.end.sum_received.bits_per_second / (($r | tonumber) * 1e6 * .start.tcp_mss_default / ($mtu | tonumber))' "$1" |
		awk '{ printf "%.3f", $1 }'
}

run_tcp() { # K RATE_MBIT: a transfer over uplink K into its json file
	nt_iperf router vps "10.100.$1.2" -t "$SECONDS_PER_RUN" -O 1 >"$NT_TMP/tcp$1.json"
}

# measure RATE_MBIT: sets ALONE, BOTH1, BOTH2, and CPU: the emulators' share of one core with two uplinks busy
measure() {
	local rate=$1 c0 c1 t0 t1
	start_links "$rate"
	run_tcp 1
	ALONE=$(tcp_ratio_json "$NT_TMP/tcp1.json" "$rate")
	c0=$(awk -v a="$(cpu_seconds "$NT_LINKEM_PID_1")" -v b="$(cpu_seconds "$NT_LINKEM_PID_2")" 'BEGIN { print a + b }')
	t0=$(date +%s.%N)
	# Concurrent clients in subshells: give each its own range of server ports.
	(NT_PORT_BASE=6201; run_tcp 1) & p1=$!
	(NT_PORT_BASE=7201; run_tcp 2) & p2=$!
	wait "$p1" "$p2"
	BOTH1=$(tcp_ratio_json "$NT_TMP/tcp1.json" "$rate")
	BOTH2=$(tcp_ratio_json "$NT_TMP/tcp2.json" "$rate")
	t1=$(date +%s.%N)
	c1=$(awk -v a="$(cpu_seconds "$NT_LINKEM_PID_1")" -v b="$(cpu_seconds "$NT_LINKEM_PID_2")" 'BEGIN { print a + b }')
	LATE=$(awk -v a="$(nt_uplink_counter 1 a2b late_avg_us)" -v b="$(nt_uplink_counter 2 a2b late_avg_us)" \
		'BEGIN { printf "%.0f", (a > b) ? a : b }')
	CPU=$(awk -v c="$(awk -v a="$c1" -v b="$c0" 'BEGIN { print a - b }')" -v t="$t1" -v s="$t0" 'BEGIN { printf "%.0f%%", 100 * c / (t - s) }')
	stop_links
}

within() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= 0.97 && a <= 1.03 && b >= 0.97 && b <= 1.03) }'; }

echo "linkem calibration: TCP goodput / configured goodput, 20 ms RTT, 40 ms queue, ${SECONDS_PER_RUN} s runs"
printf '%-10s %-8s %-18s %-12s %s\n' "rate" "alone" "two uplinks" "lateness" "CPU of both emulators (of one core)"

# The table's rates, then higher ones until both uplinks miss 3%: the best
# rate is the highest of an unbroken run of passing rates from the bottom.
best=0
broken=0
for rate in $RATES $SEARCH; do
	case " $RATES " in *" $rate "*) ;; *) [ "$broken" -eq 1 ] && break ;; esac
	measure "$rate"
	printf '%-10s %-8s %-8s %-9s %-12s %s\n' "${rate}mbit" "$ALONE" "$BOTH1" "$BOTH2" "${LATE} us" "$CPU"
	if [ "$broken" -eq 0 ] && within "$BOTH1" "$BOTH2"; then
		best=$rate
	else
		broken=1
	fi
done
mkdir -p "$NT_BUILD/bench"
echo "$best" >"$NT_BUILD/bench/linkem_max_rate_mbit"
echo "highest rate with two uplinks both within 3%: ${best} Mbit/s per uplink"
