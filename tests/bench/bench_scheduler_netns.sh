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
source tests/bench/scheduler_scenarios.sh

RUNS=${RUNS:-3}
SECS=${SECS:-8}
BUDGET=${BUDGET:-150}
WBRR=$NT_BUILD/tests/tools/wbrr
OUT=$NT_BUILD/bench/scheduler-netns
WINDOW_KB=6144
[ -x "$WBRR" ] || nt_die "missing $WBRR (make tool-bins)"
command -v mptcpize >/dev/null || nt_die "missing mptcpize (make deps installs it)"

# The sum of a scenario's rates, a trace counting as its mean (about 17 Mbit/s).
rate_sum() {
	for k in 1 2; do sched_uplink "$1" "$k"; done | awk '{ s += $3 == "trace" ? 17 : $3 } END { print s }'
}
# The scale of a scenario: 1, or BUDGET over the sum of its rates.
scale_of() {
	awk -v s="$(rate_sum "$1")" -v b="$BUDGET" 'BEGIN { printf "%.3f", (s > b) ? b / s : 1 }'
}
link_name() { sched_uplink "$1" "$2" | awk '{ print $1 }'; }

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
	nt_wb_wait_up "$conf.log" "$#" 10 || nt_log "  not every uplink came up in 10 s"
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
		reinjected=$(nt_wb_field "$st" opp_reinject_bytes)
		echo "$prefix reinject_ratio_$dir $(awk -v r="${reinjected:-0}" -v b="$bytes" 'BEGIN { print b ? r / b : 0 }')"
		echo "$prefix penalised_$dir $(nt_wb_field "$st" penalised)"
		echo "$prefix skips $(nt_wb_field "$rt" reorder_skips)"
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
		nt_uplink_start "$k" $(sched_linkem_words "$sc" "$k" "$f") seed "$k"
	done
	kernel_buffers "$f"
	if sched_is_requests "$sc"; then
		dirs=down rows="alone:$n1 none both default mptcp"
	elif [ "$sc" = S8 ]; then
		dirs="down up" rows="default"
	else
		dirs="down up" rows="alone:$n1 alone:$n2 none penalise reinject both default mptcp"
	fi
	echo "$sc $(sched_title "$sc")" >>"$OUT/titles.txt"
	for run in $(seq "$RUNS"); do
		for row in $rows; do
			if [ "$row" != mptcp ]; then
				# shellcheck disable=SC2046
				start_bond "$f" "$(sched_mode_off "$row")" $(uplinks_of "$sc" "$row")
			fi
			for dir in $dirs; do
				if sched_is_requests "$sc"; then
					rr "$sc" "$row" "$run" "$([ "$row" = mptcp ] && echo mptcp || echo bond)"
				else
					measure "$sc" "$dir" "$row" "$run" "$([ "$row" = mptcp ] && echo mptcp || echo bond)"
				fi
			done >>"$OUT/results.txt"
			if [ "$sc" = S8 ] && [ "$row" = default ]; then
				local st
				st=$(nt_wb_status "$CLIENT_PID" "$NT_TMP/client.conf.log"; nt_wb_status "$SERVER_PID" "$NT_TMP/server.conf.log") || true
				# IP packets the two ends sent on the backup uplink, both directions of the run.
				echo "S8 down $VARIANT default $run ip_packets_spare_down $(grep -E '/spare: counters: ' <<<"$st" |
					grep -oE '(data_packets|retransmits|reinjected) [0-9]+' | awk '{ s += $NF } END { print s + 0 }')" >>"$OUT/results.txt"
			fi
			if [ "$row" != mptcp ]; then stop_daemons; fi
		done
	done
}

SCENARIOS=${*:-$SCHED_SCENARIOS}
mkdir -p "$OUT"
: >"$OUT/results.txt"
: >"$OUT/titles.txt"
echo "scheduler benchmark in namespaces: $RUNS run(s) of ${SECS} s per row; budget $BUDGET Mbit/s; kernel MPTCP with mptcpize"
for sc in $SCENARIOS; do run_scenario "$sc"; done
awk -f tests/bench/median.awk -f tests/bench/scheduler_tables.awk "$OUT/titles.txt" "$OUT/results.txt" | tee "$OUT/tables.txt"
exit "${PIPESTATUS[0]}"
