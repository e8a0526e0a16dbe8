#!/usr/bin/env bash
# The sweep in namespaces: seeded draws of uplinks (tests/tools/wbsweep.c,
# the simulator's sweep reads the same), each measured as a user would get
# it. For each draw and each inner congestion control (cubic, bbr) and
# direction (down, up), side by side in one run:
#
#   alone:K   plain TCP over uplink K alone, router to vps, no tunnel
#   mptcp     kernel MPTCP over the same paths (mptcpize, a subflow per path)
#   bond      TCP through wanbond, default configuration, in the draw's
#             topology: forwarded (lan to srv, through router and vps) or
#             local (router to the vps's tunnel address)
#
# Each run starts the daemons anew and measures the draw's own cell (its
# cc and direction) at the draw's moment: right after the tunnel comes up
# (fresh), after another transfer the same way (after), after 2 minutes
# idle while plain TCP fills each path alone in turn (idle2m), after 10
# quiet minutes (idle10m); then the draw's three other cells, each right
# after the one before (moment "after"). Goodput counts from the first
# second of the transfer (iperf3 without -O), for SECS seconds. Medians of
# RUNS runs (REF_RUNS for alone and MPTCP, which vary little).
#
# For each bond cell it also records what explains it: each uplink's share
# of the IP packets the sender put on them, AQM drops, reorder skips,
# reinjected bytes, the inner TCP's retransmissions, the daemons' CPU (% of
# one core); and the simulator's figure for the same cell
# (tests/sim/sweep_scenario.sh), to check that the two agree.
#
#   tests/bench/bench_sweep.sh [BUILD]
#
# Environment: SEED (1), FIRST (1), N (6): draws FIRST..FIRST+N-1 of SEED;
# RUNS (3), REF_RUNS (1), SECS (12), CCS ("cubic bbr"), DIRS ("down up"),
# OUT (BUILD/bench/sweep). `make bench BENCH=sweep SEED=... N=...`.
# A draw takes about RUNS x (its moment + 4 x (SECS + 5)) s plus its
# reference cells; a 10-minute idle draw about 40 minutes.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

SEED=${SEED:-1}
FIRST=${FIRST:-1}
N=${N:-6}
RUNS=${RUNS:-3}
REF_RUNS=${REF_RUNS:-1}
SECS=${SECS:-12}
CCS=${CCS:-cubic bbr}
DIRS=${DIRS:-down up}
OUT=${OUT:-$NT_BUILD/bench/sweep}
WANBOND=$NT_BUILD/bin/wanbond
# A transfer that stalls for good (an LTE trace's outage under iperf3's control connection) counts as 0.
export NT_IPERF_TIMEOUT=$((SECS + 30))
GEN=$NT_BUILD/tests/tools/wbsweep
SIM=$NT_BUILD/tests/sim/wbsim
MAX_UPLINKS=3
[ -x "$GEN" ] || nt_die "missing $GEN (make tool-bins)"
[ -x "$SIM" ] || nt_die "missing $SIM (make unit-bins)"
command -v mptcpize >/dev/null || nt_die "missing mptcpize (make deps installs it)"
command -v gnuplot >/dev/null || nt_die "missing gnuplot (make deps installs it)"

CC_ALLOWED=/proc/sys/net/ipv4/tcp_allowed_congestion_control
CC_ALLOWED_WAS=$(cat "$CC_ALLOWED")
restore_cc() { echo "$CC_ALLOWED_WAS" >"$CC_ALLOWED"; }
nt_init
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
for ns in router vps; do nt_run "$ns" ip mptcp limits set subflow 8 add_addr_accepted 8; done
for k in $(seq 2 "$MAX_UPLINKS"); do
	nt_run router ip rule add from "10.100.$k.1" table "10$k"
	nt_run router ip route add 10.100.1.2/32 via "10.100.$k.2" dev "wan$k" table "10$k"
done

set_cc() { for ns in router vps lan srv; do nt_run "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$1"; done; }
draw_field() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
draw_uplinks() { grep -c '^uplink' "$1"; }

# start_paths DRAWFILE: the draw's emulators (up is a2b: a faces the router), MPTCP's endpoints.
start_paths() {
	local d=$1 n k words
	n=$(draw_uplinks "$d")
	nt_run router ip mptcp endpoint flush
	for k in $(seq "$MAX_UPLINKS"); do
		nt_uplink_stop "$k"
		[ "$k" -le "$n" ] || continue
		# The direction words become linkem's (a trace's file name keeps its .up and .down).
		words=$(awk -v k="$k" '$1 == "uplink" && ++i == k {
			$1 = ""; $2 = ""
			for (f = 3; f <= NF; f++) { if ($f == "up") $f = "a2b"; else if ($f == "down") $f = "b2a" }
			print }' "$d")
		# shellcheck disable=SC2086 # linkem's words
		nt_uplink_start "$k" $words seed "$k"
		[ "$k" -ge 2 ] && nt_run router ip mptcp endpoint add "10.100.$k.1" dev "wan$k" subflow
	done
	return 0
}

DAEMONS=()
stop_daemons() {
	for pid in "${DAEMONS[@]}"; do nt_stop "$pid"; done
	DAEMONS=()
	rm -f "$NT_TMP"/*.conf.log
}
start_bond() {
	local n=$1 k ups=()
	for k in $(seq "$n"); do ups+=("u$k:wan$k"); done
	nt_wb_client_conf "$CCONF" home 10.255.0.2/30 10.2.0.0/24 "${ups[@]}"
	nt_wb_start vps "$SCONF"; SERVER_PID=$NT_LAST_PID; DAEMONS+=("$NT_LAST_PID")
	nt_wb_start router "$CCONF"; CLIENT_PID=$NT_LAST_PID; DAEMONS+=("$NT_LAST_PID")
	nt_wait_log "$CCONF.log" "session established" 10 || nt_die "no session"
	nt_wb_wait_up "$CCONF.log" "$n" 10 || nt_log "  not every uplink came up in 10 s"
}

cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
tcp_stat() { nt_run "$1" nstat -asz "$2" | awk -v n="$2" '$1 == n { print $2 }'; }
ctl_dir() { [ "$1" = client ] && echo "$NT_TMP/ctl-client" || echo "$NT_TMP/ctl-server"; }
bond_stats() { "$WANBOND" -d "$(ctl_dir "$1")" stats home 2>/dev/null || true; }
stat_of() { awk -v n="$2" '$1 == "home" && $2 == n { print $3; f = 1 } END { if (!f) print 0 }' <<<"$1"; }

# ends KIND DIR TOPOLOGY: "CLIENT SERVER ADDR SENDER RECEIVER"
ends() {
	local kind=$1 dir=$2 topo=$3 c=router s=vps a=10.100.1.2
	case $kind in
	bond) if [ "$topo" = forwarded ]; then c=lan s=srv a=10.2.0.2; else a=10.255.0.1; fi ;;
	alone:*) a=10.100.${kind#alone:}.2 ;;
	esac
	if [ "$dir" = up ]; then echo "$c $s $a $c $s"; else echo "$c $s $a $s $c"; fi
}

iperf_goodput() { # KIND DIR TOPOLOGY: Mbit/s
	local kind=$1 dir=$2 client server addr port flag="" out
	read -r client server addr _ <<<"$(ends "$kind" "$dir" "$3")"
	[ "$dir" = down ] && flag=-R
	if [ "$kind" = mptcp ]; then
		port=$(nt_free_port vps 5301)
		nt_bg vps "$NT_TMP/mptcp-server.log" mptcpize run iperf3 -s -1 -B "$addr" -p "$port"
		nt_wait_listen vps "$port"
		out=$(nt_run router timeout "$NT_IPERF_TIMEOUT" mptcpize run iperf3 -J -c "$addr" -p "$port" -t "$SECS" $flag 2>/dev/null || true)
	else
		out=$(nt_iperf "$client" "$server" "$addr" -t "$SECS" $flag)
	fi
	jq -r '(.end.sum_received.bits_per_second // 0) / 1e6' <<<"$out" 2>/dev/null || echo 0
}

# measure DRAW CC DIR ROW RUN TOPOLOGY MOMENT: one cell, as "DRAW CC DIR ROW RUN METRIC VALUE" lines.
measure() {
	local draw=$1 cc=$2 dir=$3 row=$4 run=$5 topo=$6 moment=$7 kind=$4 p sender receiver retr0 cs0 ss0 t0 secs
	[ "${row#alone:}" = "$row" ] && [ "$row" != mptcp ] && kind=bond
	read -r _ _ _ sender receiver <<<"$(ends "$kind" "$dir" "$topo")"
	p="$draw $cc $dir $row $run"
	set_cc "$cc"
	retr0=$(tcp_stat "$sender" TcpRetransSegs)
	if [ "$kind" = bond ]; then
		"$WANBOND" -d "$(ctl_dir client)" stats reset home >/dev/null
		"$WANBOND" -d "$(ctl_dir server)" stats reset home >/dev/null
		cs0=$(cpu_ticks "$CLIENT_PID"); ss0=$(cpu_ticks "$SERVER_PID")
	fi
	t0=$(date +%s%N)
	echo "$p goodput $(iperf_goodput "$kind" "$dir" "$topo")"
	secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { print (b - a) / 1e9 }')
	echo "$p retrans $(($(tcp_stat "$sender" TcpRetransSegs) - retr0))"
	[ "$kind" = bond ] || return 0
	echo "$p moment $moment"
	local hz sst rst; hz=$(getconf CLK_TCK)
	echo "$p cpu_pct $(awk -v c=$(($(cpu_ticks "$CLIENT_PID") - cs0)) -v s=$(($(cpu_ticks "$SERVER_PID") - ss0)) -v t="$secs" -v hz="$hz" 'BEGIN { print 100 * (c + s) / hz / t }')"
	if [ "$dir" = down ]; then sst=$(bond_stats server); rst=$(bond_stats client); else sst=$(bond_stats client); rst=$(bond_stats server); fi
	for c in aqm_drops opp_reinject_bytes tun_rx_bytes; do echo "$p $c $(stat_of "$sst" "$c")"; done
	echo "$p reorder_skips $(stat_of "$rst" reorder_skips)"
	awk -v p="$p" '$1 ~ /^home\// && $2 == "tx_ip_packets" { sub(/^home\//, "", $1); n[++k] = $1; v[k] = $3; t += $3 }
		END { for (i = 1; i <= k; i++) print p, "share_" n[i], t ? v[i] / t : 0 }' <<<"$sst"
}

# The simulator's figure for a cell: "DRAW CC DIR sim RUN goodput X".
simulate() {
	local d=$1 draw=$2 cc=$3 dir=$4 moment=$5 sc="$OUT/sim.sc"
	tests/sim/sweep_scenario.sh "$d" bond "$cc" "$dir" "$moment" >"$sc"
	echo "$draw $cc $dir sim 1 goodput $("$SIM" -m "$sc" 2>/dev/null | awk '$2 == "app1_goodput_mbit" { print $3 }')"
}

# run_draw I: every row and cell of draw I.
run_draw() {
	local i=$1 d="$OUT/draw$1" n topo moment own_cc own_dir run cc dir k cells m
	"$GEN" -s "$SEED" "$i" >"$d"
	n=$(draw_uplinks "$d")
	topo=$(draw_field "$d" topology)
	moment=$(draw_field "$d" moment)
	own_cc=$(draw_field "$d" cc)
	own_dir=$(draw_field "$d" dir)
	echo "$i $(grep '^uplink' "$d" | sed 's/^uplink //' | tr '\n' '|') $moment $topo $own_cc $own_dir" >>"$OUT/draws.txt"
	start_paths "$d"
	# The draw's own cell first, then the others.
	cells="$own_cc:$own_dir"
	for cc in $CCS; do for dir in $DIRS; do
		[ "$cc:$dir" = "$own_cc:$own_dir" ] || cells+=" $cc:$dir"
	done; done
	for run in $(seq "$RUNS"); do
		if [ "$run" -le "$REF_RUNS" ]; then
			for cell in $cells; do
				for k in $(seq "$n"); do measure "$i" "${cell%:*}" "${cell#*:}" "alone:$k" "$run" "$topo" - >>"$OUT/results.txt"; done
				[ "$n" -gt 1 ] && measure "$i" "${cell%:*}" "${cell#*:}" mptcp "$run" "$topo" - >>"$OUT/results.txt"
			done
		fi
		start_bond "$n"
		case $moment in
		fresh) sleep 1 ;;
		after) sleep 1; iperf_goodput bond "$own_dir" "$topo" >/dev/null; sleep 1 ;;
		idle2m)
			local t_idle; t_idle=$(date +%s)
			for k in $(seq "$n"); do iperf_goodput "alone:$k" "$own_dir" "$topo" >/dev/null; done
			sleep $((120 - ($(date +%s) - t_idle))) 2>/dev/null || true ;;
		idle10m) sleep 600 ;;
		esac
		m=$moment
		for cell in $cells; do
			measure "$i" "${cell%:*}" "${cell#*:}" bond "$run" "$topo" "$m" >>"$OUT/results.txt"
			m=after
		done
		stop_daemons
		echo "  draw $SEED.$i: run $run of $RUNS done ($(date +%H:%M:%S))" >&2
	done
	m=$moment
	for cell in $cells; do simulate "$d" "$i" "${cell%:*}" "${cell#*:}" "$m" >>"$OUT/results.txt"; m=after; done
}

mkdir -p "$OUT"
: >"$OUT/results.txt"
: >"$OUT/draws.txt"
echo "sweep benchmark: draws $FIRST..$((FIRST + N - 1)) of seed $SEED; $RUNS run(s) of $SECS s per wanbond cell ($REF_RUNS of the others); inner $CCS; $DIRS"
for i in $(seq "$FIRST" $((FIRST + N - 1))); do run_draw "$i"; done
awk -f tests/bench/median.awk -f tests/bench/sweep_tables.awk "$OUT/draws.txt" "$OUT/results.txt" | tee "$OUT/tables.txt"
status=${PIPESTATUS[0]}
tests/bench/sweep_chart.sh "$OUT" && echo "chart: $OUT/sweep.png"
exit "$status"
