#!/usr/bin/env bash
# The CPU benchmark: what the tunnel costs a router in CPU. TCP from the LAN
# host behind the router to the host behind the VPS, through wanbond, over
# three cells of emulated uplinks (linkem):
#
#   one        one uplink, 100 Mbit/s 20 ms RTT
#   b100_50    a bond of 100 Mbit/s 16 ms + 50 Mbit/s 40 ms
#   b200_200   a bond of 200 Mbit/s 20 ms + 200 Mbit/s 30 ms
#
# with the client daemon (the router's) uncapped and then held by a cgroup
# CPU quota to 100%, 50% and 25% of one core; the server daemon is never
# capped. In the one-uplink cell, Debian's wireguard-go between the same two
# namespaces over the same path, under the same caps, is the anchor. For
# each measurement: goodput, the CPU seconds per GB carried of each daemon
# (user and system), packets per system call on the TUN and UDP paths and
# event-loop waits (the daemons' SIGUSR1 counters), memory, and how often
# the cgroup throttled. One table per cell, cc and direction, the targets
# PASS or MISS, a PNG and a TSV of every run in OUT.
#
#   tests/bench/bench_cpu.sh [BUILD]
#
# Environment: RUNS (3), SECS (15 measured seconds, after 2 s left out),
# CCS ("cubic"; "cubic bbr"), DIRS ("up down"), CAPS ("none 100 50 25": %
# of one core, none = no quota), CELLS ("one b100_50 b200_200"), OUT
# (BUILD/bench-cpu). The defaults take about 35 minutes.
# Exit status 1 when a target is missed.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

RUNS=${RUNS:-3}
SECS=${SECS:-15}
CCS=${CCS:-cubic}
DIRS=${DIRS:-up down}
CAPS=${CAPS:-none 100 50 25}
CELLS=${CELLS:-one b100_50 b200_200}
OUT=${OUT:-$NT_BUILD/bench-cpu}
OMIT=2
SRV=10.2.0.2
# A transfer that stalls for good must not hold the bench.
export NT_IPERF_TIMEOUT=$((SECS + OMIT + 30))

for cap in $CAPS; do
	case $cap in
	none) ;;
	*[!0-9]* | "" | 0) nt_die "CAPS: '$cap' is neither none nor a percentage of one core" ;;
	esac
done
for d in $DIRS; do
	case $d in up | down) ;; *) nt_die "DIRS: '$d' is neither up nor down" ;; esac
done

# cell_uplinks CELL: one line of linkem words per uplink.
cell_uplinks() {
	case $1 in
	one) echo "rate 100mbit delay 10ms limit 50ms" ;;
	b100_50)
		echo "rate 100mbit delay 8ms limit 50ms"
		echo "rate 50mbit delay 20ms limit 50ms"
		;;
	b200_200)
		echo "rate 200mbit delay 10ms limit 50ms"
		echo "rate 200mbit delay 15ms limit 50ms"
		;;
	*) return 1 ;;
	esac
}
cell_title() {
	case $1 in
	one) echo "one uplink, 100 Mbit/s 20 ms RTT" ;;
	b100_50) echo "bond of 100 Mbit/s 16 ms + 50 Mbit/s 40 ms RTT" ;;
	b200_200) echo "bond of 200 Mbit/s 20 ms + 200 Mbit/s 30 ms RTT" ;;
	esac
}
for cell in $CELLS; do cell_uplinks "$cell" >/dev/null || nt_die "CELLS: unknown cell '$cell' (one b100_50 b200_200)"; done

# ---- cgroups: the client's CPU quota ------------------------------------------
# cgroup v2 when its cpu controller is there (cpu.max), else v1's cpu
# hierarchy (cpu.cfs_quota_us). A cgroup of this run's own per client
# process, named with the pid, holding that process alone.
CG_KIND="" CG_ROOT="" CG_SEQ=0 CG_PATH="" CG_ENABLED_CPU=""
CG_PERIOD_US=100000
cg_detect() {
	local m type opts
	while read -r _ m type opts _; do
		if [ "$type" = cgroup2 ] && [ -z "$CG_KIND" ] && grep -qw cpu "$m/cgroup.controllers" 2>/dev/null; then
			CG_KIND=v2 CG_ROOT=$m
		fi
	done </proc/mounts
	[ -n "$CG_KIND" ] && return 0
	while read -r _ m type opts _; do
		if [ "$type" = cgroup ] && [[ ",$opts," == *,cpu,* ]] && [ -w "$m/cpu.cfs_quota_us" ]; then
			CG_KIND=v1 CG_ROOT=$m
			return 0
		fi
	done </proc/mounts
	nt_die "no cgroup CPU controller: neither cgroup v2 with cpu in cgroup.controllers nor cgroup v1's cpu hierarchy (cpu.cfs_quota_us) is mounted"
}
cg_setup() {
	cg_detect
	if [ "$CG_KIND" = v2 ] && ! grep -qw cpu "$CG_ROOT/cgroup.subtree_control"; then
		echo +cpu >"$CG_ROOT/cgroup.subtree_control" || nt_die "cannot enable cpu in $CG_ROOT/cgroup.subtree_control"
		CG_ENABLED_CPU=1
	fi
}
# cg_new: a new empty cgroup in CG_PATH, no quota.
cg_new() {
	CG_SEQ=$((CG_SEQ + 1))
	CG_PATH=$CG_ROOT/wanbond-bench-cpu-$$-$CG_SEQ
	mkdir "$CG_PATH" || nt_die "cannot create the cgroup $CG_PATH"
	cg_cap "$CG_PATH" none
}
# cg_move CG PID: PID (its every thread) into CG.
cg_move() {
	echo "$2" >"$1/cgroup.procs" || nt_die "cannot move $2 into $1"
	grep -q "$(basename "$1")" "/proc/$2/cgroup" || nt_die "$2 is not in $1"
}
# cg_cap CG CAP: a quota of CAP% of one core per 100 ms period, or none.
cg_cap() {
	local quota=-1
	[ "$2" = none ] || quota=$((CG_PERIOD_US * $2 / 100))
	if [ "$CG_KIND" = v2 ]; then
		[ "$quota" = -1 ] && quota=max
		echo "$quota $CG_PERIOD_US" >"$1/cpu.max"
	else
		echo -1 >"$1/cpu.cfs_quota_us"
		echo "$CG_PERIOD_US" >"$1/cpu.cfs_period_us"
		echo "$quota" >"$1/cpu.cfs_quota_us"
	fi
}
# cg_stat CG: "periods throttled throttled_us" so far.
cg_stat() {
	awk '$1 == "nr_periods" { p = $2 } $1 == "nr_throttled" { t = $2 }
		$1 == "throttled_time" { us = $2 / 1000 } $1 == "throttled_usec" { us = $2 }
		END { printf "%d %d %d\n", p, t, us }' "$1/cpu.stat"
}
# cg_remove CG: the cgroup goes (its process was stopped; anything left, ours, back to the root first).
cg_remove() {
	local pid
	[ -d "$1" ] || return 0
	while read -r pid; do echo "$pid" >"$CG_ROOT/cgroup.procs" 2>/dev/null; done <"$1/cgroup.procs"
	rmdir "$1" 2>/dev/null || nt_log "cpu bench: cannot remove the cgroup $1"
}
cg_cleanup() {
	local d
	for d in "$CG_ROOT/wanbond-bench-cpu-$$-"*; do [ -d "$d" ] && cg_remove "$d"; done
	[ -n "$CG_ENABLED_CPU" ] && echo -cpu >"$CG_ROOT/cgroup.subtree_control" 2>/dev/null
	return 0
}

# ---- set up --------------------------------------------------------------------
command -v gnuplot >/dev/null || nt_die "missing gnuplot (make deps installs it)"
command -v wireguard-go >/dev/null || nt_die "missing wireguard-go (make deps installs it)"
command -v wg >/dev/null || nt_die "missing wg (wireguard-tools; make deps installs it)"

# A namespace may pick only the congestion controls the host allows: add
# the CCS for the run, and put the host's list back at the end.
CC_ALLOWED=/proc/sys/net/ipv4/tcp_allowed_congestion_control
CC_ALLOWED_WAS=$(cat "$CC_ALLOWED")
restore_cc() { echo "$CC_ALLOWED_WAS" >"$CC_ALLOWED"; }
nt_init
# set +e first: (exit $rc) must only hand the status on to nt_cleanup, not end the trap.
trap 'rc=$?; set +e; restore_cc; (exit $rc); nt_cleanup; cg_cleanup; exit $rc' EXIT
for cc in $CCS; do
	grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control || modprobe "tcp_$cc" 2>/dev/null ||
		nt_die "the kernel has no $cc congestion control"
done
echo "$CC_ALLOWED_WAS $CCS" | tr ' ' '\n' | sort -u | tr '\n' ' ' >"$CC_ALLOWED"
cg_setup

# Cycles only where perf can count them (virtual machines often cannot).
PERF=""
if command -v perf >/dev/null && perf stat -x, -e cycles true 2>&1 >/dev/null | grep -Eq '^[0-9]+,'; then
	PERF=1
fi

nt_topology 2
nt_wb_keys server
nt_wb_keys home
SCONF=$NT_TMP/server.conf
CCONF=$NT_TMP/client.conf
nt_wb_server_conf "$SCONF" "home:10.255.0.1/30:10.1.0.0/24"
for side in wgc wgs; do
	(umask 077 && wg genkey >"$NT_TMP/$side.key")
	wg pubkey <"$NT_TMP/$side.key" >"$NT_TMP/$side.pub"
done
# wireguard-go's control sockets are /var/run/wireguard/NAME.sock, shared by
# every namespace: names of this run's own.
WGC=wgc$$ WGS=wgs$$
WG_PORT=51900

set_cc() { for ns in router vps lan srv; do nt_run "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$1"; done; }

start_paths() { # CELL: its emulators, the others stopped
	local k=0 words
	nt_uplink_stop 1
	nt_uplink_stop 2
	while read -r words; do
		k=$((k + 1))
		# shellcheck disable=SC2086 # linkem's words
		nt_uplink_start "$k" $words seed "$k"
	done <<<"$(cell_uplinks "$1")"
}

# ---- the tunnels -----------------------------------------------------------------
# start_tunnel KIND CELL: sets CPID (the router's end, in a new cgroup CG_PATH), SPID, CLOG, SLOG.
start_tunnel() {
	local kind=$1 cell=$2 ups=() k n
	n=$(cell_uplinks "$cell" | wc -l)
	if [ "$kind" = wanbond ]; then
		for k in $(seq "$n"); do ups+=("u$k:wan$k"); done
		nt_wb_client_conf "$CCONF" home 10.255.0.2/30 10.2.0.0/24 "${ups[@]}"
		nt_wb_start vps "$SCONF"; SPID=$NT_LAST_PID SLOG=$SCONF.log
		nt_wb_start router "$CCONF"; CPID=$NT_LAST_PID CLOG=$CCONF.log
		nt_wait_log "$CLOG" "session established" 10 || nt_die "$cell: no wanbond session"
		# shellcheck disable=SC2016 # expanded by that bash
		nt_wait_for 10 bash -c '[ "$(grep -c -- "-> up" "$0")" -ge "$1" ]' "$CLOG" "$n" ||
			nt_log "cpu bench: $cell: not every uplink came up"
	else
		nt_bg vps "$NT_TMP/wgs.log" env WG_PROCESS_FOREGROUND=1 LOG_LEVEL=error wireguard-go -f "$WGS"
		SPID=$NT_LAST_PID SLOG=$NT_TMP/wgs.log
		nt_bg router "$NT_TMP/wgc.log" env WG_PROCESS_FOREGROUND=1 LOG_LEVEL=error wireguard-go -f "$WGC"
		CPID=$NT_LAST_PID CLOG=$NT_TMP/wgc.log
		nt_wait_for 10 test -S "/var/run/wireguard/$WGS.sock" -a -S "/var/run/wireguard/$WGC.sock" ||
			{ cat "$SLOG" "$CLOG" >&2; nt_die "wireguard-go did not start"; }
		nt_run vps wg set "$WGS" listen-port "$WG_PORT" private-key "$NT_TMP/wgs.key" \
			peer "$(cat "$NT_TMP/wgc.pub")" allowed-ips 10.254.0.2/32,10.1.0.0/24
		nt_run router wg set "$WGC" private-key "$NT_TMP/wgc.key" \
			peer "$(cat "$NT_TMP/wgs.pub")" allowed-ips 10.254.0.1/32,10.2.0.0/24 endpoint "$NT_SERVER_ADDR:$WG_PORT"
		nt_run vps ip addr add 10.254.0.1/30 dev "$WGS"
		nt_run vps ip link set dev "$WGS" up
		nt_run vps ip route add 10.1.0.0/24 dev "$WGS"
		nt_run router ip addr add 10.254.0.2/30 dev "$WGC"
		nt_run router ip link set dev "$WGC" up
		nt_run router ip route add 10.2.0.0/24 dev "$WGC"
		nt_wait_for 10 nt_run lan ping -c 1 -W 1 "$SRV" || nt_die "no traffic through wireguard-go"
	fi
	sleep 1
	cg_new
	cg_move "$CG_PATH" "$CPID"
}
stop_tunnel() {
	nt_stop "$CPID"
	nt_stop "$SPID"
	cg_remove "$CG_PATH"
	rm -f "$CLOG" "$SLOG"
}

# prune_pids: only the processes still running as this shell's children stay
# in NT_PIDS, so the teardown cannot signal a pid the system gave to another.
prune_pids() {
	local keep=() p
	for p in "${NT_PIDS[@]}"; do
		[ "$(awk '{ sub(/.*\) /, ""); print $2 }' "/proc/$p/stat" 2>/dev/null)" = "$$" ] && keep+=("$p")
	done
	NT_PIDS=("${keep[@]}")
}

# ---- what a measurement reads ---------------------------------------------------------
HZ=$(getconf CLK_TCK)
cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12, $13 }' "/proc/$1/stat"; } # utime stime
machine_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
mem_kb() { awk '$1 == "VmRSS:" { r = $2 } $1 == "VmHWM:" { h = $2 } END { print r + 0, h + 0 }' "/proc/$1/status"; }

# wb_counters PID LOG: the daemon's counters now (SIGUSR1), as "TUN_READ_PKTS
# TUN_READ_CALLS TUN_WRITE_PKTS TUN_WRITE_CALLS UDP_SENT UDP_SEND_CALLS
# UDP_RECEIVED UDP_RECEIVE_CALLS LOOP_WAITS POOL_BYTES POOL_PEAK" (sockets and bonds summed).
wb_counters() {
	local pid=$1 log=$2 before
	before=$(grep -c 'packets in [0-9]* calls, wrote' "$log" || true)
	kill -USR1 "$pid"
	# A throttled daemon answers within a period or two.
	# shellcheck disable=SC2016 # expanded by that bash
	nt_wait_for 10 bash -c '[ "$(grep -c "packets in [0-9]* calls, wrote" "$0")" -gt "$1" ]' "$log" "$before" ||
		nt_die "no counters from $pid in $log"
	# Only the lines after the last answer before this one: answers are
	# counted by their TUN line, the last of the lines read here.
	awk -v skip="$before" '
		{ is_tun = /packets in [0-9]+ calls, wrote/ }
		is_tun { tun++ }
		tun < skip || (tun == skip && is_tun) { next }
		/socket .*; sent [0-9]+ datagrams in/ {
			for (i = 1; i <= NF; i++) {
				if ($i == "sent" && $(i + 2) == "datagrams") { us += $(i + 1); usc += $(i + 4) }
				if ($i == "received" && $(i + 2) == "in") { ur += $(i + 1); urc += $(i + 3) }
			}
		}
		/event loop: [0-9]+ waits/ { for (i = 1; i < NF; i++) if ($i == "loop:") w = $(i + 1) }
		/packet buffers of [0-9]+ bonds:/ {
			for (i = 1; i < NF; i++) { if ($i == "bonds:") pb = $(i + 1); if ($i == "peak") pp = $(i + 1) }
		}
		/packets in [0-9]+ calls, wrote/ {
			for (i = 1; i <= NF; i++) {
				if ($i == "read" && $(i + 2) == "packets") { rp += $(i + 1); rc += $(i + 4) }
				if ($i == "wrote" && $(i + 2) == "packets") { wp += $(i + 1); wc += $(i + 4) }
			}
		}
		END { print rp + 0, rc + 0, wp + 0, wc + 0, us + 0, usc + 0, ur + 0, urc + 0, w + 0, pb + 0, pp + 0 }' "$log"
}

# perf_start PID: cycles of PID from now (sets PERF_PID, PERF_OUT), when perf can count them.
perf_start() {
	PERF_PID="" PERF_OUT=$NT_TMP/perf-$1.csv
	[ -n "$PERF" ] || return 0
	perf stat -x, -e cycles -p "$1" -o "$PERF_OUT" 2>/dev/null &
	PERF_PID=$!
	NT_PIDS+=("$PERF_PID")
}
perf_stop() { # PID OUT: prints the cycles counted, or -
	if [ -n "$1" ]; then
		kill -INT "$1" 2>/dev/null
		wait "$1" 2>/dev/null || true
		awk -F, '$3 ~ /cycles/ && $1 ~ /^[0-9]+$/ { print $1; f = 1 } END { if (!f) print "-" }' "$2" 2>/dev/null || echo -
	else
		echo -
	fi
}

HEADER="cell cc dir tunnel cap run mbit bytes secs c_user_s c_sys_s s_user_s s_sys_s periods throttled throttled_ms machine_pct retrans"
HEADER+=" c_tun_rd_pkts c_tun_rd_calls c_tun_wr_pkts c_tun_wr_calls c_udp_tx_pkts c_udp_tx_calls c_udp_rx_pkts c_udp_rx_calls c_waits"
HEADER+=" s_tun_rd_pkts s_tun_rd_calls s_tun_wr_pkts s_tun_wr_calls s_udp_tx_pkts s_udp_tx_calls s_udp_rx_pkts s_udp_rx_calls s_waits"
HEADER+=" c_pool_b c_pool_peak_b s_pool_b s_pool_peak_b c_rss_kb c_hwm_kb s_rss_kb s_hwm_kb c_cycles s_cycles"

# measure KIND CELL CC DIR CAP RUN: one TSV line, in LINE.
measure() {
	local kind=$1 cell=$2 cc=$3 dir=$4 cap=$5 run=$6 flag="" out mbit bytes retrans
	local cb="" sb="" ca="" sa="" c0 s0 c1 s1 g0 g1 m0 m1 t0 t1 cpp cpo spp spo ccyc scyc dc ds
	[ "$dir" = down ] && flag=-R
	cg_cap "$CG_PATH" "$cap"
	sleep 1 # the last transfer's queues drain
	if [ "$kind" = wanbond ]; then
		cb=$(wb_counters "$CPID" "$CLOG")
		sb=$(wb_counters "$SPID" "$SLOG")
	fi
	perf_start "$CPID"; cpp=$PERF_PID cpo=$PERF_OUT
	perf_start "$SPID"; spp=$PERF_PID spo=$PERF_OUT
	c0=$(cpu_ticks "$CPID"); s0=$(cpu_ticks "$SPID"); g0=$(cg_stat "$CG_PATH"); m0=$(machine_busy)
	t0=$(date +%s%N)
	out=$(nt_iperf lan srv "$SRV" -t "$SECS" -O "$OMIT" $flag)
	t1=$(date +%s%N)
	c1=$(cpu_ticks "$CPID"); s1=$(cpu_ticks "$SPID"); g1=$(cg_stat "$CG_PATH"); m1=$(machine_busy)
	ccyc=$(perf_stop "$cpp" "$cpo"); scyc=$(perf_stop "$spp" "$spo")
	if [ "$kind" = wanbond ]; then
		ca=$(wb_counters "$CPID" "$CLOG")
		sa=$(wb_counters "$SPID" "$SLOG")
	fi
	# The bytes carried while the CPU was counted: the measured seconds' and the left-out ones'.
	[ -n "$out" ] || out='{}'
	read -r mbit bytes retrans <<<"$(jq -r '[(.end.sum_received.bits_per_second // 0) / 1e6,
		(.end.sum_received.bytes // 0) + ([.intervals[]? | select(.sum.omitted) | .sum.bytes] | add // 0),
		(.end.sum_sent.retransmits // 0)] | @tsv' <<<"$out" 2>/dev/null || echo "0 0 0")"
	dc=$(awk -v a="$cb" -v b="$ca" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
		if (!n) { print "- - - - - - - - - - -"; exit }
		for (i = 1; i <= 9; i++) printf "%d ", y[i] - x[i]; print y[10], y[11] }')
	ds=$(awk -v a="$sb" -v b="$sa" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
		if (!n) { print "- - - - - - - - - - -"; exit }
		for (i = 1; i <= 9; i++) printf "%d ", y[i] - x[i]; print y[10], y[11] }')
	LINE=$(awk -v cell="$cell" -v cc="$cc" -v dir="$dir" -v kind="$kind" -v cap="$cap" -v run="$run" \
		-v mbit="$mbit" -v bytes="$bytes" -v retrans="$retrans" -v t0="$t0" -v t1="$t1" -v hz="$HZ" \
		-v c0="$c0" -v c1="$c1" -v s0="$s0" -v s1="$s1" -v g0="$g0" -v g1="$g1" -v m0="$m0" -v m1="$m1" \
		-v dc="$dc" -v ds="$ds" -v cm="$(mem_kb "$CPID")" -v sm="$(mem_kb "$SPID")" -v ccyc="$ccyc" -v scyc="$scyc" 'BEGIN {
		split(c0, a, " "); split(c1, b, " "); split(s0, c, " "); split(s1, d, " ")
		split(g0, e, " "); split(g1, f, " "); split(m0, p, " "); split(m1, q, " ")
		split(dc, x, " "); split(ds, y, " "); split(cm, u, " "); split(sm, v, " ")
		OFS = "\t"
		print cell, cc, dir, kind, cap, run, mbit, bytes, (t1 - t0) / 1e9,
			(b[1] - a[1]) / hz, (b[2] - a[2]) / hz, (d[1] - c[1]) / hz, (d[2] - c[2]) / hz,
			f[1] - e[1], f[2] - e[2], (f[3] - e[3]) / 1000,
			(q[2] > p[2]) ? 100 * (q[1] - p[1]) / (q[2] - p[2]) : 0, retrans,
			x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9],
			y[1], y[2], y[3], y[4], y[5], y[6], y[7], y[8], y[9],
			x[10], x[11], y[10], y[11], u[1], u[2], v[1], v[2], ccyc, scyc
	}')
}

# ---- the runs -----------------------------------------------------------------------------
mkdir -p "$OUT"
RAW=$OUT/runs.tsv
echo "$HEADER" | tr ' ' '\t' >"$RAW"
: >"$OUT/cells.txt"
echo "CPU benchmark: $RUNS run(s) of $SECS s (after $OMIT s left out) per measurement; inner $CCS; $DIRS;" \
	"client capped at: $CAPS (% of one core; cgroup $CG_KIND at $CG_ROOT, ${CG_PERIOD_US} us periods); the server uncapped"
[ -n "$PERF" ] || echo "cycles: not supported on this machine"
for cell in $CELLS; do
	echo "$cell $(cell_title "$cell")" >>"$OUT/cells.txt"
	start_paths "$cell"
	kinds=wanbond
	[ "$cell" = one ] && kinds="wanbond wireguard-go"
	for run in $(seq "$RUNS"); do
		for cc in $CCS; do
			set_cc "$cc"
			for dir in $DIRS; do
				for kind in $kinds; do
					start_tunnel "$kind" "$cell"
					for cap in $CAPS; do
						measure "$kind" "$cell" "$cc" "$dir" "$cap" "$run"
						echo "$LINE" >>"$RAW"
						awk -F'\t' '{ printf "  %s %s %s %s, cap %s, run %s: %.1f Mbit/s, client %.0f%% of a core, throttled in %d of %d periods\n",
							$1, $2, $3, $4, $5, $6, $7, ($9 > 0 ? 100 * ($10 + $11) / $9 : 0), $15, $14 }' <<<"$LINE" >&2
					done
					stop_tunnel
					prune_pids
				done
			done
		done
	done
done
echo
awk -f tests/bench/median.awk -f tests/bench/cpu_tables.awk -v caps="$CAPS" -v out="$OUT" "$OUT/cells.txt" "$RAW" | tee "$OUT/tables.txt"
status=${PIPESTATUS[0]}
tests/bench/cpu_chart.sh "$OUT" && echo "chart: $OUT/cpu.png"
echo "runs: $RAW"
exit "$status"
