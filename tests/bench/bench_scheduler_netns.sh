#!/usr/bin/env bash
# The scheduler benchmark in network namespaces: the two daemons over linkem
# uplinks, TCP through the bond (iperf3, lan to srv), side by side with each
# uplink alone through the bond and with Linux kernel MPTCP over the same
# emulated paths (iperf3 under mptcpize, router to vps, one subflow per
# uplink). Same scenarios, rows and tables as the simulator's half.
#
#   tests/bench/bench_scheduler_netns.sh [BUILD] [SCENARIO...]   (S1 ... S8; default all)
#
# A scenario whose uplinks add up to more than BUDGET Mbit/s (default 150:
# what two daemons, two emulators and the TCP ends carry together on a
# two-core machine with room to spare) runs with its rates, and the bond's
# and the kernel's buffers, scaled down by the same factor: the shape of the
# problem (how long the window lasts at the fast uplink's rate against the
# slow one's delay) stays the same. Environment: RUNS (default 3), SECS
# (seconds per measurement, default 8), BUDGET.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
shift || true
source tests/netns/lib.sh

RUNS=${RUNS:-3}
SECS=${SECS:-8}
BUDGET=${BUDGET:-150}
WBRR=$NT_BUILD/tests/tools/wbrr
OUT=$NT_BUILD/bench/scheduler-netns
TRACE=tests/traces/TMobile-LTE-short
WINDOW_KB=6144
[ -x "$WBRR" ] || nt_die "missing $WBRR (make tool-bins)"
command -v mptcpize >/dev/null || nt_die "missing mptcpize (make deps installs it)"

# Uplink K of a scenario: its full rate in Mbit/s, then linkem's other words.
# A trace-driven uplink has no rate (its mean counts against the budget).
uplink() {
	case $1-$2 in
	S1-1) echo "400 delay 10ms limit 40ms" ;;  S1-2) echo "15 delay 120ms limit 120ms" ;;
	S2-1) echo "40 delay 10ms limit 40ms" ;;   S2-2) echo "2 delay 250ms limit 250ms loss 5%" ;;
	S3-*) echo "50 delay 10ms limit 40ms" ;;
	S4-*) echo "50 delay 10ms limit 40ms loss 1%" ;;
	S5-1) echo "50 delay 10ms limit 40ms" ;;   S5-2) echo "10 delay 20ms limit 1s" ;;
	S6-1) echo "20 delay 10ms limit 50ms" ;;
	S6-2) echo "trace a2b trace $TRACE.up b2a trace $TRACE.down both delay 25ms jitter 10ms limit 200ms" ;;
	S7a-*) uplink S1 "$2" ;;
	S7b-*) uplink S2 "$2" ;;
	S7c-1) echo "40 delay 5ms limit 40ms" ;;   S7c-2) echo "5 delay 50ms limit 100ms" ;;
	S8-1) echo "50 delay 10ms limit 40ms" ;;   S8-2) echo "20 delay 20ms limit 40ms" ;;
	esac
}
link_name() {
	case $1 in
	S3 | S4) [ "$2" = 1 ] && echo a || echo b ;;
	S5) [ "$2" = 1 ] && echo fast || echo bloated ;;
	S6) [ "$2" = 1 ] && echo dsl || echo lte ;;
	S8) [ "$2" = 1 ] && echo main || echo spare ;;
	*) [ "$2" = 1 ] && echo fast || echo slow ;;
	esac
}
title() {
	case $1 in
	S1) echo "fast 400 Mbit/s 20 ms + slow 15 Mbit/s 240 ms" ;;
	S2) echo "fast 40 Mbit/s 20 ms + slow 2 Mbit/s 500 ms, 5% loss on the slow one" ;;
	S3) echo "two balanced 50 Mbit/s 20 ms" ;;
	S4) echo "two 50 Mbit/s 20 ms, 1% loss each" ;;
	S5) echo "fast 50 Mbit/s 20 ms + 10 Mbit/s 40 ms with a 1 s queue (bufferbloat)" ;;
	S6) echo "DSL 20 Mbit/s 20 ms + LTE (T-Mobile trace, 50 ms, jitter 10 ms)" ;;
	S7a) echo "requests of 1 MB every 100 ms over S1's pair" ;;
	S7b) echo "requests of 1 MB every 100 ms over S2's pair" ;;
	S7c) echo "requests of 1 MB every 100 ms over 40 Mbit/s 10 ms + 5 Mbit/s 100 ms" ;;
	S8) echo "50 Mbit/s 20 ms + a 20 Mbit/s 40 ms backup" ;;
	esac
}
# The scale of a scenario: 1, or BUDGET over the sum of its rates (a trace counts 17).
scale_of() {
	local sum
	sum=$(for k in 1 2; do uplink "$1" "$k" | awk '{ print $1 == "trace" ? 17 : $1 }'; done | awk '{ s += $1 } END { print s }')
	awk -v s="$sum" -v b="$BUDGET" 'BEGIN { printf "%.3f", (s > b) ? b / s : 1 }'
}
# linkem's words for uplink K at a scale.
linkem_args() {
	uplink "$1" "$2" | awk -v f="$3" '$1 == "trace" { $1 = ""; print; next } { r = $1 * f; $1 = ""; printf "rate %.3fmbit%s\n", r, $0 }'
}
mode_off() {
	case $1 in
	none) echo "penalise reinject avoid_blocking" ;;
	penalise) echo "reinject avoid_blocking" ;;
	reinject) echo "penalise avoid_blocking" ;;
	both) echo "avoid_blocking" ;;
	default) echo "" ;;
	esac
}

nt_init
nt_topology 2
nt_wb_keys server
nt_wb_keys home
nt_wb_server_conf "$NT_TMP/server.conf" "home:10.255.0.1/30:10.1.0.0/24"

# Kernel MPTCP between router and vps: the second subflow leaves by wan2
# (policy routing on its source address) to the vps's address on up1.
nt_run router ip rule add from 10.100.2.1 table 102
nt_run router ip route add 10.100.1.2/32 via 10.100.2.2 dev wan2 table 102
for ns in router vps; do nt_run "$ns" ip mptcp limits set subflow 2 add_addr_accepted 2; done
nt_run router ip mptcp endpoint add 10.100.2.1 dev wan2 subflow

DAEMONS=()
stop_daemons() {
	for pid in "${DAEMONS[@]}"; do nt_stop "$pid"; done
	DAEMONS=()
	rm -f "$NT_TMP"/*.conf.log
}
# start_bond SCALE OFF UPLINK...: both daemons, with the rules in OFF turned off.
start_bond() {
	local f=$1 off=$2 conf=$NT_TMP/client.conf kb; shift 2
	kb=$(awk -v f="$f" -v w="$WINDOW_KB" 'BEGIN { printf "%d", f * w }')
	nt_wb_client_conf "$conf" home 10.255.0.2/30 10.2.0.0/24 "$@"
	for c in "$conf" "$NT_TMP/server.conf"; do
		sed -i '/^transport\|^scheduler/d' "$c"
		echo "transport = { receive_window_kb = $kb; send_buffer_kb = $kb; };" >>"$c"
		echo "scheduler = { $(for r in $off; do printf '%s = false; ' "$r"; done)};" >>"$c"
	done
	nt_wb_start vps "$NT_TMP/server.conf"; SERVER_PID=$NT_LAST_PID; DAEMONS+=("$NT_LAST_PID")
	nt_wb_start router "$conf"; CLIENT_PID=$NT_LAST_PID; DAEMONS+=("$NT_LAST_PID")
	nt_wait_log "$conf.log" "session established" 10 || nt_die "no session"
	nt_wait_log "$conf.log" "probing -> up" 10 || true
	sleep 1
}
# The kernel's buffers for MPTCP, scaled as the bond's window.
kernel_buffers() {
	local bytes
	bytes=$(awk -v f="$1" -v w="$WINDOW_KB" 'BEGIN { printf "%d", f * w * 1024 }')
	for ns in router vps; do
		nt_run "$ns" sysctl -qw net.ipv4.tcp_rmem="4096 131072 $bytes" net.ipv4.tcp_wmem="4096 16384 $bytes"
	done
}
link_bytes() { # K DIR: bytes linkem forwarded so far on uplink K in a direction (a2b up, b2a down)
	nt_uplink_counter "$1" "$2" out_bytes
}
joins() { nt_run router nstat -asz MPTcpExtMPJoinSynAckRx | awk '/MPJoinSynAckRx/ { print $2 }'; }

# measure SC DIR ROW RUN KIND: one measurement, as "SC DIR VARIANT ROW RUN METRIC VALUE" lines.
measure() {
	local sc=$1 dir=$2 row=$3 run=$4 kind=$5 flag="" json g b1 b2 a1 a2 l st dname
	[ "$dir" = down ] && flag=-R
	dname=$([ "$dir" = down ] && echo b2a || echo a2b)
	b1=$(link_bytes 1 "$dname"); b2=$(link_bytes 2 "$dname")
	case $kind in
	bond) json=$(nt_iperf lan srv 10.2.0.2 -t "$SECS" -O 2 $flag) ;;
	mptcp)
		local port j0
		port=$(nt_free_port vps 5301)
		j0=$(joins)
		nt_bg vps "$NT_TMP/mptcp-server.log" mptcpize run iperf3 -s -1 -B 10.100.1.2 -p "$port"
		nt_wait_listen vps "$port"
		json=$(nt_run router mptcpize run iperf3 -J -c 10.100.1.2 -p "$port" -t "$SECS" -O 2 $flag 2>/dev/null || true)
		echo "$sc $dir $VARIANT $row $run subflows_joined $(( $(joins) - j0 ))"
		;;
	esac
	a1=$(link_bytes 1 "$dname"); a2=$(link_bytes 2 "$dname")
	g=$(jq -r '.end.sum_received.bits_per_second // 0' <<<"$json")
	echo "$sc $dir $VARIANT $row $run goodput_${dir}_mbit $(awk -v g="$g" 'BEGIN { print g / 1e6 }')"
	for k in 1 2; do
		l=$(link_name "$sc" "$k")
		awk -v n="$sc $dir $VARIANT $row $run share_${l}_$dir" -v d1=$((a1 - b1)) -v d2=$((a2 - b2)) -v k="$k" \
			'BEGIN { t = d1 + d2; print n, t ? (k == 1 ? d1 : d2) / t : 0 }'
	done
	if [ "$kind" = bond ]; then
		local prefix="$sc $dir $VARIANT $row $run" bytes reinjected
		# The sender's counters (the vps sends a download), and the receiver's skips.
		local rt
		if [ "$dir" = down ]; then
			st=$(nt_wb_status "$SERVER_PID" "$NT_TMP/server.conf.log" || true)
			rt=$(nt_wb_status "$CLIENT_PID" "$NT_TMP/client.conf.log" || true)
		else
			st=$(nt_wb_status "$CLIENT_PID" "$NT_TMP/client.conf.log" || true)
			rt=$(nt_wb_status "$SERVER_PID" "$NT_TMP/server.conf.log" || true)
		fi
		bytes=$(jq -r '.end.sum_received.bytes // 0' <<<"$json")
		reinjected=$(grep -oE 'reinjected [0-9]+ pkts [0-9]+ B' <<<"$st" | head -n 1 | awk '{ print $4 }')
		echo "$prefix reinject_ratio_$dir $(awk -v r="${reinjected:-0}" -v b="$bytes" 'BEGIN { print b ? r / b : 0 }')"
		echo "$prefix penalised_$dir $(nt_wb_field "$st" penalised)"
		echo "$prefix skips $(nt_wb_field "$rt" 'given up')"
	fi
}

# rr SC ROW RUN KIND: the request-response client for 20 s.
rr() {
	local sc=$1 row=$2 run=$3 kind=$4 port line wrap=""
	[ "$kind" = mptcp ] && wrap="mptcpize run"
	if [ "$kind" = mptcp ]; then
		port=$(nt_free_port vps 5401)
		nt_bg vps "$NT_TMP/rr-$port.log" $wrap "$WBRR" server 10.100.1.2 "$port"
		nt_wait_listen vps "$port"
		line=$(nt_run router $wrap "$WBRR" client 10.100.1.2 "$port" 1048576 100 20 || true)
	else
		port=$(nt_free_port srv 5401)
		nt_bg srv "$NT_TMP/rr-$port.log" "$WBRR" server 10.2.0.2 "$port"
		nt_wait_listen srv "$port"
		line=$(nt_run lan "$WBRR" client 10.2.0.2 "$port" 1048576 100 20 || true)
	fi
	awk -v n="$sc down $VARIANT $row $run" '{ for (i = 1; i < NF; i += 2) print n, "rr_" $i, $(i + 1) }' <<<"$line"
}

uplinks_of() { # SC ROW: the client's uplinks for a row
	local sc=$1 row=$2 n1 n2
	n1=$(link_name "$sc" 1); n2=$(link_name "$sc" 2)
	case $row in
	alone:"$n1") echo "$n1:wan1" ;;
	alone:"$n2") echo "$n2:wan2" ;;
	*) [ "$sc" = S8 ] && echo "$n1:wan1 $n2:wan2:backup" || echo "$n1:wan1 $n2:wan2" ;;
	esac
}

run_scenario() {
	local sc=$1 f rows dirs n1 n2
	f=$(scale_of "$sc")
	VARIANT=x$f
	n1=$(link_name "$sc" 1); n2=$(link_name "$sc" 2)
	for k in 1 2; do
		nt_uplink_stop "$k"
		# shellcheck disable=SC2046
		nt_uplink_start "$k" $(linkem_args "$sc" "$k" "$f") seed "$k"
	done
	kernel_buffers "$f"
	case $sc in
	S7*) dirs=down rows="alone:$n1 none both default mptcp" ;;
	S8) dirs="down up" rows="default" ;;
	*) dirs="down up" rows="alone:$n1 alone:$n2 none penalise reinject both default mptcp" ;;
	esac
	echo "$sc $(title "$sc") (rates and buffers x$f)" >>"$OUT/titles.txt"
	for run in $(seq "$RUNS"); do
		for row in $rows; do
			if [ "$row" != mptcp ]; then
				# shellcheck disable=SC2046
				start_bond "$f" "$(mode_off "${row#alone:}" 2>/dev/null)" $(uplinks_of "$sc" "$row")
			fi
			for dir in $dirs; do
				case $sc in
				S7*) rr "$sc" "$row" "$run" "$([ "$row" = mptcp ] && echo mptcp || echo bond)" ;;
				*) measure "$sc" "$dir" "$row" "$run" "$([ "$row" = mptcp ] && echo mptcp || echo bond)" ;;
				esac
			done >>"$OUT/results.txt"
			if [ "$sc" = S8 ] && [ "$row" = default ]; then
				local st
				st=$(nt_wb_status "$CLIENT_PID" "$NT_TMP/client.conf.log"; nt_wb_status "$SERVER_PID" "$NT_TMP/server.conf.log") || true
				# IP packets the two ends sent on the backup uplink.
				echo "S8 down $VARIANT default $run ip_packets_spare_down $(grep -E '/spare: cwnd' <<<"$st" |
					grep -oE '(data sent|resent|reinjected) [0-9]+' | awk '{ s += $NF } END { print s + 0 }')" >>"$OUT/results.txt"
			fi
			[ "$row" != mptcp ] && stop_daemons
		done
	done
}

SCENARIOS=${*:-S1 S2 S3 S4 S5 S6 S7a S7b S7c S8}
mkdir -p "$OUT"
: >"$OUT/results.txt"
: >"$OUT/titles.txt"
echo "scheduler benchmark in namespaces: $RUNS run(s) of ${SECS} s per row; budget $BUDGET Mbit/s; kernel MPTCP with mptcpize"
for sc in $SCENARIOS; do run_scenario "$sc"; done
awk -f tests/bench/scheduler_tables.awk "$OUT/titles.txt" "$OUT/results.txt" | tee "$OUT/tables.txt"
exit "${PIPESTATUS[0]}"
