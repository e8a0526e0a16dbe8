#!/usr/bin/env bash
# Resource bounds of a server with many routers (make bench BENCH=scale): a
# server configured with PEERS (200) routers, of which N connect (1, 10 and
# 50), each router a wanbondd client in its own namespace with two uplinks:
#
#   r1 .. rN   router i: wan1 10.100.1.(10+i) -- sw1 (a bridge) -- em1 (linkem) -- vps up1 10.100.1.2
#                        wan2 10.100.2.(10+i) -- sw2 (a bridge) -- em2 (linkem) -- vps up2 10.100.2.2
#   vps        the server, reached at 10.200.0.1 over both; peer i's TUN 10.254.x.y/30
#
# em1 delays 10 ms each way and em2 25 ms (at 200 and 100 Mbit/s, shared by
# every router): the server holds data in flight and out of order as over
# real uplinks. Each router pings its tunnel's far end once a second all
# along. For each N, a fresh server, then N clients, and three phases:
#
#   idle    IDLE_SECS (10) of pings only
#   busy    BUSY_SECS (20) of iperf3 --bidir at RATE (300 kbit/s) each way from every router
#   after   AFTER_SECS (20) of pings only: does the memory come back? (a pool gives
#           back what it no longer needs within two of its 5 s windows, a chunk
#           that had a buffer out one window later: 15 s at most)
#
# Then the same with FAST_ROUTERS (8) routers at FAST_RATE (6 Mbit/s), whose
# pools grow well past their first chunk, and those routers' busy phase once
# more under transport.pool_limit_mb = CAP_MB (1): the cap met.
#
# Measured, side by side in one run: the server's VmRSS (/proc/PID/status;
# busy: the most of its samples, every 2 s) against the same server before
# any router connected, per connected router; its CPU (utime + stime,
# /proc/PID/stat) over each phase as a share of one core, and per router;
# the packet pools of all its bonds as each phase ends (wanbond -j show:
# pool_bytes, pool_in_use_bytes, pool_high_water, pool_full_drops) and the
# daemon's own memory figure; after a busy phase, from its SIGUSR1 line, the
# most all the pools held at once and the buffers refused at the cap or a
# share. And what a configured, never connected peer costs: the server with
# 1 peer against the server with PEERS, nobody connected.
#
# Checks: every router connected; the busy phases carried what they offered
# (0.9 of it at least, the lesser way); after each busy phase the pools went
# back to their idle level, with at most a quarter of what the busy phase
# added left; under the small cap the pools never held more than the cap,
# and met it (pool_full_drops). Tables on stdout; they, the samples, the
# iperf3 results and the server's logs in BUILD/bench/scale/.
#
#   make bench BENCH=scale
#   make bench BENCH=scale COUNTS="1 10" BUSY_SECS=10    a shorter run
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

PEERS=${PEERS:-200}
COUNTS=${COUNTS:-1 10 50}
IDLE_SECS=${IDLE_SECS:-10}
BUSY_SECS=${BUSY_SECS:-20}
AFTER_SECS=${AFTER_SECS:-20}
RATE=${RATE:-300k}
FAST_ROUTERS=${FAST_ROUTERS:-8}
FAST_RATE=${FAST_RATE:-6M}
CAP_MB=${CAP_MB:-1}
OUT=$(realpath -m "$NT_BUILD/bench/scale")
CLI=$NT_BUILD/bin/wanbond
HZ=$(getconf CLK_TCK)

MAX=$FAST_ROUTERS
for n in $COUNTS; do [ "$n" -gt "$MAX" ] && MAX=$n; done
[ "$MAX" -le "$PEERS" ] || nt_die "COUNTS and FAST_ROUTERS: at most PEERS ($PEERS) routers"
[ "$MAX" -le 240 ] || nt_die "at most 240 routers (their addresses are 10.100.K.11..250)"

FAILS=0
check() { # check LABEL OK(0|1) DETAIL
	if [ "$2" = 1 ]; then
		printf '  ok    %-62s %s\n' "$1" "$3"
	else
		printf '  FAIL  %-62s %s\n' "$1" "$3"
		FAILS=$((FAILS + 1))
	fi
}

# ---- the network -------------------------------------------------------------------

# A switch namespace per uplink: a bridge joining the routers' wanK to emK's a.
add_switch() {
	local k=$1 sw="sw$1" em="em$1"
	nt_add_ns "$sw"
	nt_add_ns "$em"
	for ns in "$sw" "$em"; do
		nt_run "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	done
	nt_run "$sw" ip link add name br0 type bridge
	nt_run "$sw" ip link set dev br0 up
	nt_veth "$sw" e "$em" a
	nt_veth "$em" b vps "up$k"
	nt_offloads_off "$sw" e
	nt_offloads_off "$em" a
	nt_offloads_off "$em" b
	nt_offloads_off vps "up$k"
	nt_run "$sw" ip link set dev e master br0 up
	nt_run "$em" ip link set dev a up
	nt_run "$em" ip link set dev b up
	nt_run vps ip addr add "10.100.$k.2/24" dev "up$k"
	nt_run vps ip link set dev "up$k" up
}

# Router i on both switches, its route to the server over each (wan1 first).
add_router() {
	local i=$1 r="r$1" k
	nt_add_ns "$r"
	for k in 1 2; do
		nt_veth "$r" "wan$k" "sw$k" "p$i"
		nt_offloads_off "$r" "wan$k"
		nt_offloads_off "sw$k" "p$i"
		nt_run "sw$k" ip link set dev "p$i" master br0 up
		nt_run "$r" ip addr add "10.100.$k.$((10 + i))/24" dev "wan$k"
		nt_run "$r" ip link set dev "wan$k" up
		nt_run "$r" ip route add "$NT_SERVER_ADDR/32" via "10.100.$k.2" dev "wan$k" metric "$k"
	done
}

build_network() {
	nt_add_ns vps
	nt_run vps ip addr add "$NT_SERVER_ADDR/32" dev lo
	add_switch 1
	add_switch 2
	for i in $(seq "$MAX"); do add_router "$i"; done
	nt_uplink_start 1 rate 200mbit delay 10ms limit 50ms seed 1
	nt_uplink_start 2 rate 100mbit delay 25ms limit 60ms seed 2
}

# ---- keys and configurations ------------------------------------------------------------

# Peer i's tunnel: a /30 in 10.254.0.0/16; the server has .1 of it, the router .2.
tun_addr() { # tun_addr I SIDE(1|2)
	local base=$((4 * $1))
	printf '10.254.%d.%d' $((base / 256)) $((base % 256 + $2))
}

make_keys() {
	nt_wb_keys server
	for i in $(seq "$PEERS"); do nt_wb_keys "r$i"; done
}

# server_conf FILE PEERS [CAP_MB]: PEERS peers r1.., their TUN devices wb-rI.
server_conf() {
	local file=$1 n=$2 cap=${3:-} sep="" list="" i
	for i in $(seq "$n"); do
		list+="$sep{ name = \"r$i\"; public_key = \"$(cat "$NT_TMP/r$i.pub")\";"
		list+=" tun = { name = \"wb-r$i\"; address = [ \"$(tun_addr "$i" 1)/30\" ]; }; }"
		sep=$',\n  '
	done
	cat >"$file" <<CONF
role = "server";
name = "vps";
private_key_file = "$NT_TMP/server.key";
listen = { port = 51820; };
peers = (
  $list
);
control = { directory = "$NT_TMP/ctl-server"; };
CONF
	[ -z "$cap" ] || echo "transport = { pool_limit_mb = $cap; };" >>"$file"
}

client_conf() { # client_conf I
	cat >"$NT_TMP/r$1.conf" <<CONF
role = "client";
name = "r$1";
private_key_file = "$NT_TMP/r$1.key";
server = { address = "$NT_SERVER_ADDR"; port = 51820; public_key = "$(cat "$NT_TMP/server.pub")"; };
tun = { name = "wb-r$1"; address = [ "$(tun_addr "$1" 2)/30" ]; };
uplinks = ( { name = "dsl"; interface = "wan1"; }, { name = "lte"; interface = "wan2"; } );
control = { directory = "$NT_TMP/ctl-r$1"; };
CONF
}

# ---- the daemons --------------------------------------------------------------------------
SPID=""
CPIDS=()
PINGS=()
IPERF_SERVERS=()
UP=0

# start_server CONF: waits until every peer's control socket is there.
start_server() {
	local n
	rm -rf "$NT_TMP/ctl-server"
	nt_wb_start vps "$1"
	SPID=$NT_LAST_PID
	n=$(grep -c 'name = "r' "$1" || true)
	for _ in $(seq 200); do
		[ "$(find "$NT_TMP/ctl-server" -name '*.sock' 2>/dev/null | wc -l)" -ge "$n" ] && return 0
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$1.log" >&2
	nt_die "the server with $n peers did not start"
}

# forget PID...: out of NT_PIDS. A pid stopped, or ended by itself and reaped, may be
# another process's by the time the teardown would signal it.
forget() {
	local keep=() p q drop
	for p in "${NT_PIDS[@]}"; do
		drop=0
		for q in "$@"; do [ "$p" = "$q" ] && drop=1; done
		[ "$drop" = 1 ] || keep+=("$p")
	done
	NT_PIDS=("${keep[@]}")
}

# stop_child PID...: ends each, if it is still this shell's child (nt_bg's), or collects it; then forgets it.
stop_child() {
	local pid
	for pid in "$@"; do
		if [ "$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null)" = "$$" ]; then
			nt_stop "$pid"
		else
			wait "$pid" 2>/dev/null || true
		fi
	done
	forget "$@"
}

stop_all() {
	stop_child "${PINGS[@]}" "${IPERF_SERVERS[@]}" "${CPIDS[@]}" $SPID
	PINGS=()
	IPERF_SERVERS=()
	CPIDS=()
	SPID=""
}

# start_clients N: starts routers 1..N; UP: how many have a session within 30 s.
start_clients() {
	local n=$1 i
	for i in $(seq "$n"); do
		client_conf "$i"
		nt_wb_start "r$i" "$NT_TMP/r$i.conf"
		CPIDS+=("$NT_LAST_PID")
	done
	for _ in $(seq 600); do
		UP=$(grep -l 'session established' "$NT_TMP"/r*.conf.log 2>/dev/null | wc -l)
		[ "$UP" -ge "$n" ] && break
		sleep 0.05
	done
}

# A ping a second from each router through its tunnel, all along.
start_pings() {
	local i
	for i in $(seq "$1"); do
		nt_bg "r$i" "$NT_TMP/ping-r$i.log" ping -n -q -i 1 "$(tun_addr "$i" 1)"
		PINGS+=("$NT_LAST_PID")
	done
}

# ---- measurements --------------------------------------------------------------------------
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$SPID/status"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$SPID/stat"; }
now_s() { date +%s.%N; }

# pools: "bytes in_use high_water full_drops" summed over the server's bonds, then the daemon's
# memory figure of the bonds with a session, how many have one, and the figure of all.
pools() {
	"$CLI" -d "$NT_TMP/ctl-server" -j show 2>/dev/null | jq -r '
		[.[] | .counters] as $c |
		[([$c[].pool_bytes] | add // 0), ([$c[].pool_in_use_bytes] | add // 0),
		 ([$c[].pool_high_water] | add // 0), ([$c[].pool_full_drops] | add // 0),
		 ([.[] | select(.session) | .memory] | add // 0), ([.[] | select(.session)] | length),
		 ([.[].memory] | add // 0)] | @tsv' || echo "0	0	0	0	0	0	0"
}

# device_pool: "allocated cap peak refused" of all the bonds (cap "none" if none), from the server's SIGUSR1 line.
device_pool() {
	local before
	before=$(grep -c 'packet buffers of' "$SCONF.log" || true)
	kill -USR1 "$SPID"
	for _ in $(seq 100); do
		[ "$(grep -c 'packet buffers of' "$SCONF.log" || true)" -gt "$before" ] && break
		sleep 0.05
	done
	grep 'packet buffers of' "$SCONF.log" | tail -n 1 |
		sed -E 's/.*: ([0-9]+) B of ([0-9]+) B, peak ([0-9]+) B, refused at the cap or a share ([0-9]+).*/\1 \2 \3 \4/;
			s/.*: ([0-9]+) B of no cap, peak ([0-9]+) B, refused at the cap or a share ([0-9]+).*/\1 none \2 \3/'
}

# One row per phase: TAG N PHASE rss_kb base_kb pool in_use high_water drops memory cpu_share
ROWS=()
DEV="0 none 0 0"
# phase TAG N NAME SECS [PIDS...]: SECS (or until the pids are gone), VmRSS sampled every 2 s.
# The pools are read as the phase ends (the CLI's 400 round trips to the daemon take many
# seconds on a loaded machine); for busy, the most all of them held at once (SIGUSR1), in DEV.
phase() {
	local tag=$1 n=$2 name=$3 secs=$4 t0 c0 t1 c1 end rss peak_rss=0 pool line alive pid
	shift 4
	t0=$(now_s)
	c0=$(cpu_ticks)
	end=$(($(date +%s) + secs))
	while :; do
		sleep 2
		rss=$(rss_kb)
		[ "$rss" -gt "$peak_rss" ] && peak_rss=$rss
		echo "$tag,$n,$name,$(now_s),$rss" >>"$OUT/samples.csv"
		if [ $# -gt 0 ]; then
			alive=0
			for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
			[ "$alive" = 1 ] || break
		fi
		[ "$(date +%s)" -lt "$end" ] || break
	done
	t1=$(now_s)
	c1=$(cpu_ticks)
	line=$(pools)
	pool=$(cut -f1 <<<"$line")
	# idle and after: as they end; busy: the most seen.
	if [ "$name" = busy ]; then
		DEV=$(device_pool)
		pool=$(cut -d' ' -f3 <<<"$DEV")
	else
		peak_rss=$(rss_kb)
	fi
	ROWS+=("$tag $n $name $peak_rss $BASE_KB $pool $(cut -f2,3,4,5 <<<"$line" | tr '\t' ' ') $(awk -v a="$c0" -v b="$c1" -v s="$t0" -v e="$t1" -v hz="$HZ" 'BEGIN { printf "%.4f", (b - a) / hz / (e - s) }')")
}

# busy_traffic N RATE SECS TAG: iperf3 --bidir from each router to its tunnel's far end; sets BUSY_PIDS.
BUSY_PIDS=()
busy_traffic() {
	local n=$1 rate=$2 secs=$3 tag=$4 i
	BUSY_PIDS=()
	for i in $(seq "$n"); do
		nt_bg vps "$NT_TMP/iperf3-s-$i.log" iperf3 -s -1 -B "$(tun_addr "$i" 1)" -p 5201
		IPERF_SERVERS+=("$NT_LAST_PID")
	done
	for _ in $(seq 100); do
		[ "$(nt_run vps ss -Hltn 'sport = :5201' | wc -l)" -ge "$n" ] && break
		sleep 0.05
	done
	for i in $(seq "$n"); do
		# -l 8K: -b paces whole writes; at 300 kbit/s the default 128 KB ones come out 10-20% over.
		# --pacing-timer 20 ms, not 1: a hundred iperf3 waking 1000 times a second each filled both cores.
		nt_bg "r$i" "$OUT/iperf3-$tag-r$i.json" iperf3 -J -c "$(tun_addr "$i" 1)" -p 5201 -t "$secs" -b "$rate" \
			-l 8K --pacing-timer 20000 --bidir --connect-timeout 5000
		BUSY_PIDS+=("$NT_LAST_PID")
	done
}

# goodput TAG N: "up down" Mbit/s, summed over the routers: the bytes each iperf3 received over
# the test's duration. Not iperf3's own rate: on a loaded machine its closing exchange can
# take seconds, which its rate counts as part of the test.
goodput() {
	local tag=$1 n=$2 i
	for i in $(seq "$n"); do
		jq -r '.start.test_start.duration as $t |
			[(.end.sum_received.bytes // 0) * 8 / $t, (.end.sum_received_bidir_reverse.bytes // 0) * 8 / $t] | @tsv' \
			"$OUT/iperf3-$tag-r$i.json" 2>/dev/null || echo "0	0"
	done | awk '{ u += $1; d += $2 } END { printf "%.2f %.2f", u / 1e6, d / 1e6 }'
}

mbit() { awk -v s="$1" 'BEGIN { print s ~ /k$/ ? s / 1000 : s ~ /M$/ ? s + 0 : s / 1e6 }'; }

# ---- the runs ------------------------------------------------------------------------------

# What a peer costs configured and never connected: the server with 1 peer and with PEERS.
BASE1_KB=0
BASE1_MEM=0
BASEP_KB=0
BASEP_MEM=0
configured_cost() {
	SCONF=$NT_TMP/one.conf
	server_conf "$SCONF" 1
	start_server "$SCONF"
	sleep 2
	BASE1_KB=$(rss_kb)
	BASE1_MEM=$(pools | cut -f7)
	stop_all
	SCONF=$NT_TMP/all.conf
	server_conf "$SCONF" "$PEERS"
	start_server "$SCONF"
	sleep 2
	BASEP_KB=$(rss_kb)
	BASEP_MEM=$(pools | cut -f7)
	stop_all
}

# One line per run: TAG N RATE sessions up down | the device's "allocated cap peak refused" after busy
RUNS=()
# run TAG N RATE PHASES [CAP_MB]: a fresh server (with the cap if given) and N routers through the phases.
run() {
	local tag=$1 n=$2 rate=$3 phases=$4 cap=${5:-} ph
	SCONF=$NT_TMP/server-$tag.conf
	server_conf "$SCONF" "$PEERS" "$cap"
	rm -f "$NT_TMP"/r*.conf.log
	start_server "$SCONF"
	sleep 2
	BASE_KB=$(rss_kb)
	start_clients "$n"
	start_pings "$n"
	echo "  $tag: $n routers at $rate, $UP sessions; $phases" >&2
	for ph in $phases; do
		case $ph in
		idle) phase "$tag" "$n" idle "$IDLE_SECS" ;;
		busy)
			busy_traffic "$n" "$rate" "$BUSY_SECS" "$tag"
			# Until the last iperf3 is done: starting 2N of them in namespaces takes seconds on a loaded machine.
			phase "$tag" "$n" busy $((BUSY_SECS + 30)) "${BUSY_PIDS[@]}"
			stop_child "${BUSY_PIDS[@]}" "${IPERF_SERVERS[@]}"
			IPERF_SERVERS=()
			;;
		after) phase "$tag" "$n" after "$AFTER_SECS" ;;
		esac
	done
	RUNS+=("$tag $n $rate ${cap:-default} $UP $(goodput "$tag" "$n") $DEV")
	cp "$SCONF.log" "$OUT/server-$tag.log"
	stop_all
}

# ---- the report -------------------------------------------------------------------------------
kib() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1024 }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
row() { printf '%s\n' "${ROWS[@]}" | awk -v t="$1" -v p="$2" '$1 == t && $3 == p'; }
run_of() { printf '%s\n' "${RUNS[@]}" | awk -v t="$1" '$1 == t'; }

report_configured() {
	printf '%-34s %10s %14s\n' "server, nobody connected" "VmRSS" "own figure"
	printf '%-34s %6.1f MiB %10s MiB\n' "1 peer configured" "$(awk -v k="$BASE1_KB" 'BEGIN { print k / 1024 }')" "$(mib "$BASE1_MEM")"
	printf '%-34s %6.1f MiB %10s MiB\n' "$PEERS peers configured" "$(awk -v k="$BASEP_KB" 'BEGIN { print k / 1024 }')" "$(mib "$BASEP_MEM")"
	printf '%-34s %6.1f KiB %10.1f KiB\n' "a configured peer" \
		"$(awk -v a="$BASEP_KB" -v b="$BASE1_KB" -v n="$PEERS" 'BEGIN { print (a - b) / (n - 1) }')" \
		"$(awk -v a="$BASEP_MEM" -v b="$BASE1_MEM" -v n="$PEERS" 'BEGIN { print (a - b) / (n - 1) / 1024 }')"
}

report_phases() {
	local r tag n name rss base pool inuse hw drops mem cpu
	printf '%-6s %3s %-6s %8s %9s %9s %9s %8s %9s %9s %9s %8s %9s\n' "run" "N" "phase" "VmRSS" "+RSS/rtr" "pools" \
		"pool/rtr" "in use" "high wat" "own/rtr" "no buffer" "CPU" "CPU/rtr"
	printf '%-6s %3s %-6s %8s %9s %9s %9s %8s %9s %9s %9s %8s %9s\n' "" "" "" "MiB" "KiB" "KiB" "KiB" "KiB" "KiB" \
		"KiB" "" "of core" "of core"
	echo "(VmRSS as the phase ends, busy: the most; pools: all the bonds' as the phase ends, busy: the most at once;"
	echo " high wat: the sum of the bonds' own peaks; own: the daemon's memory figure of a connected bond)"
	for r in "${ROWS[@]}"; do
		read -r tag n name rss base pool inuse hw drops mem cpu <<<"$r"
		printf '%-6s %3s %-6s %8.1f %9.1f %9s %9.1f %8s %9s %9.0f %9s %7.2f%% %8.3f%%\n' "$tag" "$n" "$name" \
			"$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$(awk -v k="$rss" -v b="$base" -v n="$n" 'BEGIN { print (k - b) / n }')" \
			"$(kib "$pool")" "$(awk -v p="$pool" -v n="$n" 'BEGIN { print p / 1024 / n }')" "$(kib "$inuse")" "$(kib "$hw")" \
			"$(awk -v m="$mem" -v n="$n" 'BEGIN { print m / n / 1024 }')" "$drops" \
			"$(awk -v c="$cpu" 'BEGIN { print 100 * c }')" "$(awk -v c="$cpu" -v n="$n" 'BEGIN { print 100 * c / n }')"
	done
}

# memory_back TAG: "rss_ratio pool_ratio idle busy after" (above the server before any router; pools as they are).
memory_back() {
	local i b a
	i=$(row "$1" idle)
	b=$(row "$1" busy)
	a=$(row "$1" after)
	[ -n "$b" ] && [ -n "$a" ] || return 0
	awk -v i="$i" -v b="$b" -v a="$a" 'BEGIN {
		split(i, I, " "); split(b, B, " "); split(a, A, " ")
		rb = B[4] - B[5]; ra = A[4] - A[5]
		printf "%s %s %d %d %d\n", (rb > 0 ? sprintf("%.2f", ra / rb) : "-"), (B[6] > 0 ? sprintf("%.2f", A[6] / B[6]) : "-"), I[6], B[6], A[6] }'
}

report_back() {
	local r tag m
	echo "memory back after the busy phase: after / busy, VmRSS above the server before any router, and the pools"
	printf '  %-6s %10s %10s %12s %12s %12s\n' "run" "VmRSS" "pools" "pools idle" "busy" "after"
	for r in "${RUNS[@]}"; do
		tag=${r%% *}
		m=$(memory_back "$tag")
		[ -n "$m" ] || continue
		read -r rr pr pi pb pa <<<"$m"
		printf '  %-6s %10s %10s %8s KiB %8s KiB %8s KiB\n' "$tag" "$rr" "$pr" "$(kib "$pi")" "$(kib "$pb")" "$(kib "$pa")"
	done
}

report_runs() {
	local r tag n rate up gu gd dcap peak refused off base_u=0 base_d=0
	echo "busy phases: goodput of all the routers (received, Mbit/s, and over what they offered); all the pools at once"
	printf '  %-6s %3s %6s %10s %9s %18s %13s %12s %12s %10s %13s\n' "run" "N" "rate" "cap" "sessions" "goodput up / down" \
		"over offered" "pools' peak" "peak/router" "refused" "over default"
	for r in "${RUNS[@]}"; do
		read -r tag n rate _ up gu gd _ dcap peak refused <<<"$r"
		off=$(awk -v n="$n" -v m="$(mbit "$rate")" 'BEGIN { print n * m }')
		if [ "$tag" = fast ]; then
			base_u=$gu
			base_d=$gd
		fi
		printf '  %-6s %3s %6s %10s %9s %8.2f / %7.2f %6s / %s %8s KiB %8s KiB %10s %13s\n' "$tag" "$n" "$rate" \
			"$([ "$dcap" = none ] && echo none || echo "$(mib "$dcap") MiB")" "$up" "$gu" "$gd" \
			"$(ratio "$gu" "$off")" "$(ratio "$gd" "$off")" "$(kib "$peak")" \
			"$(awk -v p="$peak" -v n="$n" 'BEGIN { printf "%.0f", p / 1024 / n }')" "$refused" \
			"$([ "$tag" = capped ] && echo "$(ratio "$gu" "$base_u") / $(ratio "$gd" "$base_d")" || echo -)"
	done
}

report() {
	echo
	echo "scale: a server configured with $PEERS routers, N connected, each over two uplinks (10 and 25 ms one way);"
	echo "busy: iperf3 --bidir at RATE each way per router; a ping a second per router all along"
	echo
	report_configured
	echo
	report_phases
	echo
	report_back
	echo
	report_runs
}

checks() {
	local r tag n rate up gu gd dcap peak off m lo drops
	echo "checks"
	for r in "${RUNS[@]}"; do
		read -r tag n rate _ up gu gd _ dcap peak _ <<<"$r"
		check "$tag: every router has a session" "$([ "$up" -ge "$n" ] && echo 1 || echo 0)" "$up of $n"
		off=$(awk -v n="$n" -v m="$(mbit "$rate")" 'BEGIN { print n * m }')
		lo=$(awk -v u="$gu" -v d="$gd" -v o="$off" 'BEGIN { printf "%.2f", (u < d ? u : d) / o }')
		[ "$tag" = capped ] ||
			check "$tag: busy goodput over offered, the lesser way" "$(awk -v x="$lo" 'BEGIN { print (x >= 0.9) }')" "$lo (0.9 at least)"
		m=$(memory_back "$tag")
		if [ -n "$m" ]; then
			read -r _ _ pi pb pa <<<"$m"
			check "$tag: pools after, within a quarter of what busy added to idle" \
				"$(awk -v i="$pi" -v b="$pb" -v a="$pa" 'BEGIN { print (a <= i + (b > i ? b - i : 0) / 4) }')" \
				"$(kib "$pa") KiB (idle $(kib "$pi"), busy $(kib "$pb"))"
		fi
		if [ "$tag" = capped ]; then
			drops=$(row capped busy | awk '{ print $9 }')
			check "capped: all the pools at once within the cap" "$(awk -v p="$peak" -v c="$dcap" 'BEGIN { print (c != "none" && p <= c) }')" \
				"$(kib "$peak") of $(kib "$dcap") KiB"
			check "capped: packets met it (pool_full_drops)" "$([ "${drops:-0}" -gt 0 ] && echo 1 || echo 0)" "${drops:-0}"
		fi
	done
}

# ---- main ----------------------------------------------------------------------------------------
nt_init
rm -rf "$OUT"
mkdir -p "$OUT"
T_START=$(date +%s)
echo "scale: $MAX routers over two switches, a server with $PEERS peers" >&2
build_network
make_keys
configured_cost
for n in $COUNTS; do run "n$n" "$n" "$RATE" "idle busy after"; done
run fast "$FAST_ROUTERS" "$FAST_RATE" "idle busy after"
run capped "$FAST_ROUTERS" "$FAST_RATE" "busy" "$CAP_MB"
report | tee "$OUT/results.txt"
echo
checks >"$OUT/checks.txt" # not in a pipe: check counts the failures in this shell
cat "$OUT/checks.txt"
echo "scale: $(($(date +%s) - T_START)) s" | tee -a "$OUT/results.txt"
[ "$FAILS" -eq 0 ] || { echo "scale: $FAILS checks FAILED"; exit 1; }
echo "scale: every check passed"
