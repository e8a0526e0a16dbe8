#!/usr/bin/env bash
# The compare benchmark: what a user of the bond gets, side by side in one
# run. For each scenario (tests/bench/compare_scenarios.sh), a real kernel
# TCP, inner cubic and inner bbr, upload and download:
#
#   alone:NAME   plain TCP over that path, router to vps, no tunnel
#   mptcp        kernel MPTCP over the same paths (mptcpize, a subflow per path)
#   default      TCP from the LAN host to the server host through wanbond,
#                the default configuration
#   no-RULE      the same with one rule of the default policy off
#
# and for each wanbond cell what explains it: the daemons' CPU (% of a
# core), the inner TCP's retransmissions and out-of-order segments, the
# bond's counters. It prints a table of ratios (wanbond over the best path
# alone, over their sum, over MPTCP) with the targets of docs/scheduler.md,
# and a PNG chart.
#
#   tests/bench/bench_compare.sh [BUILD] [SCENARIO...]    (default: all)
#
# Environment: RUNS (3), REF_RUNS (runs of the rows without wanbond: each
# path alone and MPTCP; default RUNS), SECS (15: measured seconds, after 2 s left out),
# CCS ("cubic bbr"), DIRS ("down up"), ROWS (the wanbond rows, default
# "default no-arrival no-avoid_blocking no-penalise no-reinject"), OUT (the results'
# directory, default BUILD/bench/compare). A whole run takes hours; a
# scenario's cells take about RUNS x CCS x DIRS x rows x (SECS + 4) s.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
shift || true
source tests/netns/lib.sh
source tests/bench/compare_scenarios.sh

RUNS=${RUNS:-3}
REF_RUNS=${REF_RUNS:-$RUNS}
SECS=${SECS:-15}
CCS=${CCS:-cubic bbr}
DIRS=${DIRS:-down up}
ROWS=${ROWS:-default no-arrival no-avoid_blocking no-penalise no-reinject}
OUT=${OUT:-$NT_BUILD/bench/compare}
WBRR=$NT_BUILD/tests/tools/wbrr
WANBOND=$NT_BUILD/bin/wanbond
MAX_UPLINKS=3
[ -x "$WBRR" ] || nt_die "missing $WBRR (make tool-bins)"
command -v mptcpize >/dev/null || nt_die "missing mptcpize (make deps installs it)"
command -v gnuplot >/dev/null || nt_die "missing gnuplot (make deps installs it)"

# A namespace may pick only the congestion controls the host allows: add
# cubic (and bbr) for the run, and put the host's list back at the end.
CC_ALLOWED=/proc/sys/net/ipv4/tcp_allowed_congestion_control
CC_ALLOWED_WAS=$(cat "$CC_ALLOWED")
restore_cc() { echo "$CC_ALLOWED_WAS" >"$CC_ALLOWED"; }
nt_init
# set +e first: (exit $rc) must only hand the status on to nt_cleanup, not end the trap.
trap 'rc=$?; set +e; restore_cc; (exit $rc); nt_cleanup' EXIT
for cc in $CCS; do
	grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control || modprobe "tcp_$cc" 2>/dev/null ||
		nt_die "the kernel has no $cc congestion control"
done
echo "$CC_ALLOWED_WAS $CCS" | tr ' ' '\n' | sort -u | tr '\n' ' ' >"$CC_ALLOWED"

nt_topology "$MAX_UPLINKS"
nt_wb_keys server
nt_wb_keys home
SCONF=$NT_TMP/server.conf
CCONF=$NT_TMP/client.conf
nt_wb_server_conf "$SCONF" "home:10.255.0.1/30:10.1.0.0/24"

# Kernel MPTCP between router and vps: subflow K leaves by wanK (policy
# routing on its source address) to the vps's address on up1.
for ns in router vps; do nt_run "$ns" ip mptcp limits set subflow 8 add_addr_accepted 8; done
for k in $(seq 2 "$MAX_UPLINKS"); do
	nt_run router ip rule add from "10.100.$k.1" table "10$k"
	nt_run router ip route add 10.100.1.2/32 via "10.100.$k.2" dev "wan$k" table "10$k"
done

set_cc() { # CC: the default congestion control of every TCP end
	for ns in router vps lan srv; do nt_run "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$1"; done
}
uplink_count() { cmp_uplinks "$1" | wc -l; }
uplink_name() { cmp_uplinks "$1" | sed -n "$2p" | awk '{ print $1 }'; }
has_trace() { cmp_uplinks "$1" | grep -qw trace; }

# start_paths SC: the scenario's emulators, and MPTCP's endpoints on its paths.
start_paths() {
	local sc=$1 k n words
	n=$(uplink_count "$sc")
	nt_run router ip mptcp endpoint flush
	for k in $(seq "$MAX_UPLINKS"); do
		nt_uplink_stop "$k"
		[ "$k" -le "$n" ] || continue
		words=$(cmp_uplinks "$sc" | sed -n "${k}p" | cut -d' ' -f3-)
		# shellcheck disable=SC2086 # linkem's words
		nt_uplink_start "$k" $words seed "$k"
		[ "$k" -ge 2 ] && nt_run router ip mptcp endpoint add "10.100.$k.1" dev "wan$k" subflow
	done
	return 0
}
# A trace-driven path starts its trace again for each measurement.
restart_traces() {
	has_trace "$1" || return 0
	start_paths "$1"
	sleep 1 # the bond's uplinks answer their probes again
}

DAEMONS=()
stop_daemons() {
	for pid in "${DAEMONS[@]}"; do nt_stop "$pid"; done
	DAEMONS=()
	rm -f "$NT_TMP"/*.conf.log
}
# start_bond SC ROW: both daemons over the scenario's paths, the row's rule off.
start_bond() {
	local sc=$1 row=$2 k n ups=() rule
	n=$(uplink_count "$sc")
	for k in $(seq "$n"); do
		ups+=("$(cmp_uplinks "$sc" | awk -v k="$k" 'NR == k { print $1 ":wan" k ($2 == "backup" ? ":backup" : "") }')")
	done
	nt_wb_client_conf "$CCONF" home 10.255.0.2/30 10.2.0.0/24 "${ups[@]}"
	sed -i '/^scheduler/d' "$SCONF"
	rule=${row#no-}
	if [ "$rule" != "$row" ]; then
		for c in "$CCONF" "$SCONF"; do echo "scheduler = { $rule = false; };" >>"$c"; done
	fi
	nt_wb_start vps "$SCONF"; SERVER_PID=$NT_LAST_PID; DAEMONS+=("$NT_LAST_PID")
	nt_wb_start router "$CCONF"; CLIENT_PID=$NT_LAST_PID; DAEMONS+=("$NT_LAST_PID")
	nt_wait_log "$CCONF.log" "session established" 10 || nt_die "$sc $row: no session"
	nt_wb_wait_up "$CCONF.log" "$n" 10 || nt_log "  $sc $row: not every uplink came up in 10 s"
	sleep 1
}

cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
machine_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
tcp_stat() { # NS NAME: a TCP counter of the namespace, absolute
	nt_run "$1" nstat -asz "$2" | awk -v n="$2" '$1 == n { print $2 }'
}
ctl_dir() { [ "$1" = client ] && echo "$NT_TMP/ctl-client" || echo "$NT_TMP/ctl-server"; }
bond_stats() { "$WANBOND" -d "$(ctl_dir "$1")" stats home 2>/dev/null || true; }
stat_of() { # TEXT NAME: a bond counter from `wanbond stats`
	awk -v n="$2" '$1 == "home" && $2 == n { print $3; f = 1 } END { if (!f) print 0 }' <<<"$1"
}
uplink_tx() { # TEXT: "NAME BYTES" per uplink from `wanbond stats`
	awk '$1 ~ /^home\// && $2 == "tx_bytes" { sub(/^home\//, "", $1); print $1, $3 }' <<<"$1"
}

# The ends of a measurement, by kind and direction: "CLIENT SERVER ADDR SENDER RECEIVER".
ends() {
	local kind=$1 dir=$2 c s a
	case $kind in
	bond) c=lan s=srv a=10.2.0.2 ;;
	*) c=router s=vps a=10.100.1.2 ;;
	esac
	[ "${kind#alone:}" != "$kind" ] && a=10.100.${kind#alone:}.2
	if [ "$dir" = up ]; then echo "$c $s $a $c $s"; else echo "$c $s $a $s $c"; fi
}

# iperf over KIND: bulk goodput; JSON on stdout.
run_iperf() {
	local kind=$1 dir=$2 client server addr port flag=""
	read -r client server addr _ <<<"$(ends "$kind" "$dir")"
	[ "$dir" = down ] && flag=-R
	if [ "$kind" = mptcp ]; then
		port=$(nt_free_port vps 5301)
		nt_bg vps "$NT_TMP/mptcp-server.log" mptcpize run iperf3 -s -1 -B "$addr" -p "$port"
		nt_wait_listen vps "$port"
		nt_run router mptcpize run iperf3 -J -c "$addr" -p "$port" -t "$SECS" -O 2 $flag 2>/dev/null || true
	else
		nt_iperf "$client" "$server" "$addr" -t "$SECS" -O 2 $flag
	fi
}

# wbrr over KIND: "requests N p50_ms X ..." (requests) or "seconds X" (transfer).
run_wbrr() {
	local kind=$1 dir=$2 what=$3 client server addr port wrap=""
	read -r client server addr _ <<<"$(ends "$kind" "$dir")"
	[ "$kind" = mptcp ] && wrap="mptcpize run"
	port=$(nt_free_port "$server" 5401)
	nt_bg "$server" "$NT_TMP/wbrr-$port.log" $wrap "$WBRR" server "$addr" "$port"
	nt_wait_listen "$server" "$port"
	case $what in
	requests) nt_run "$client" $wrap "$WBRR" client "$addr" "$port" 1048576 100 "$SECS" || true ;;
	transfer) timeout 120 ip netns exec "$(nt_ns "$client")" $wrap "$WBRR" transfer "$addr" "$port" "$dir" 16777216 || true ;;
	esac
}

# measure SC CC DIR ROW RUN: one cell, as "SC CC DIR ROW RUN METRIC VALUE" lines.
measure() {
	local sc=$1 cc=$2 dir=$3 row=$4 run=$5 kind=$row sender receiver out p
	local retr0 ofo0 cs0 ss0 busy0 t0 sst rst
	[ "${row#alone:}" = "$row" ] && [ "$row" != mptcp ] && kind=bond
	read -r _ _ _ sender receiver <<<"$(ends "$kind" "$dir")"
	p="$sc $cc $dir $row $run"
	restart_traces "$sc"
	retr0=$(tcp_stat "$sender" TcpRetransSegs); ofo0=$(tcp_stat "$receiver" TcpExtTCPOFOQueue)
	if [ "$kind" = bond ]; then
		"$WANBOND" -d "$(ctl_dir client)" stats reset home >/dev/null
		"$WANBOND" -d "$(ctl_dir server)" stats reset home >/dev/null
		cs0=$(cpu_ticks "$CLIENT_PID"); ss0=$(cpu_ticks "$SERVER_PID")
	fi
	read -r busy0 t0 <<<"$(machine_busy)"
	local start_ns; start_ns=$(date +%s%N)
	case $(cmp_kind "$sc") in
	bulk)
		out=$(run_iperf "$kind" "$dir")
		echo "$p goodput $(jq -r '(.end.sum_received.bits_per_second // 0) / 1e6' <<<"$out")"
		;;
	requests)
		out=$(run_wbrr "$kind" "$dir" requests)
		awk -v n="$p" '{ for (i = 1; i < NF; i += 2) print n, $i, $(i + 1) }' <<<"$out"
		;;
	transfer)
		out=$(run_wbrr "$kind" "$dir" transfer)
		echo "$p seconds $(awk '{ print $2 }' <<<"$out")"
		;;
	esac
	local secs busy1 t1
	secs=$(awk -v a="$start_ns" -v b="$(date +%s%N)" 'BEGIN { print (b - a) / 1e9 }')
	read -r busy1 t1 <<<"$(machine_busy)"
	echo "$p machine_busy_pct $(awk -v b=$((busy1 - busy0)) -v t=$((t1 - t0)) 'BEGIN { print t ? 100 * b / t : 0 }')"
	echo "$p retrans $(($(tcp_stat "$sender" TcpRetransSegs) - retr0))"
	echo "$p ofo $(($(tcp_stat "$receiver" TcpExtTCPOFOQueue) - ofo0))"
	[ "$kind" = bond ] || return 0
	local hz; hz=$(getconf CLK_TCK)
	echo "$p cpu_client_pct $(awk -v d=$(($(cpu_ticks "$CLIENT_PID") - cs0)) -v s="$secs" -v hz="$hz" 'BEGIN { print 100 * d / hz / s }')"
	echo "$p cpu_server_pct $(awk -v d=$(($(cpu_ticks "$SERVER_PID") - ss0)) -v s="$secs" -v hz="$hz" 'BEGIN { print 100 * d / hz / s }')"
	# The sender's counters (the server sends a download) and the receiver's.
	if [ "$dir" = down ]; then sst=$(bond_stats server); rst=$(bond_stats client); else sst=$(bond_stats client); rst=$(bond_stats server); fi
	for c in aqm_drops queue_drops retransmits bond_timeouts opp_reinject penalised; do
		echo "$p $c $(stat_of "$sst" "$c")"
	done
	for c in reorder_skips reorder_held_max rx_duplicates; do
		echo "$p $c $(stat_of "$rst" "$c")"
	done
	uplink_tx "$sst" | awk -v p="$p" '{ n[NR] = $1; b[NR] = $2; t += $2 } END { for (i = 1; i <= NR; i++) print p, "share_" n[i], t ? b[i] / t : 0 }'
}

run_scenario() {
	local sc=$1 n rows k
	n=$(uplink_count "$sc")
	start_paths "$sc"
	echo "$sc $(cmp_title "$sc")" >>"$OUT/titles.txt"
	[ "$(cmp_kind "$sc")" = transfer ] && echo "$sc bound $(cmp_transfer_bound "$sc")" >>"$OUT/titles.txt"
	rows=""
	for k in $(seq "$n"); do
		rows+="alone:$k "
		[ "$(cmp_kind "$sc")" = requests ] && break # the fast path alone is the reference
	done
	[ "$n" -gt 1 ] && rows+="mptcp "
	rows+=$([ "$n" -gt 1 ] && echo "$ROWS" || echo default)
	for k in $(seq "$n"); do echo "$sc name alone:$k $(uplink_name "$sc" "$k")" >>"$OUT/titles.txt"; done
	for run in $(seq "$RUNS"); do
		for row in $rows; do
			case $row in
			alone:* | mptcp) [ "$run" -le "$REF_RUNS" ] || continue ;;
			*) start_bond "$sc" "$row" ;;
			esac
			for cc in $CCS; do
				set_cc "$cc"
				for dir in $DIRS; do
					measure "$sc" "$cc" "$dir" "$row" "$run" >>"$OUT/results.txt"
					[ "$(cmp_kind "$sc")" = requests ] && break # requests: the answers flow down
				done
			done
			case $row in alone:* | mptcp) ;; *) stop_daemons ;; esac
		done
		echo "  $sc: run $run of $RUNS done ($(date +%H:%M:%S))" >&2
	done
}

SCENARIOS=${*:-$CMP_SCENARIOS_ALL}
mkdir -p "$OUT"
: >"$OUT/results.txt"
: >"$OUT/titles.txt"
echo "compare benchmark: $RUNS run(s) of $SECS s per wanbond cell ($REF_RUNS of the others); inner $CCS; $DIRS; wanbond rows: $ROWS"
for sc in $SCENARIOS; do run_scenario "$sc"; done
awk -f tests/bench/median.awk -f tests/bench/compare_tables.awk "$OUT/titles.txt" "$OUT/results.txt" | tee "$OUT/tables.txt"
status=${PIPESTATUS[0]}
tests/bench/compare_chart.sh "$OUT" && echo "chart: $OUT/compare.png"
exit "$status"
