#!/usr/bin/env bash
# The latency benchmark: what a voice call or a game gets from the bond,
# alone and beside a bulk TCP, side by side in one run (docs/testing.md,
# "Latency benchmark"). A stream of wb-latprobe packets runs both ways at
# once between the LAN host (lan, behind the router's client daemon) and the
# host behind the server (srv), as a call does:
#
#   voice   50 packets/s of 200 bytes (UDP payload), DSCP EF
#   game    60 packets/s of 100 bytes, DSCP CS4 (RFC 4594's real-time interactive)
#
# each with no other traffic, and beside an inner bulk TCP (iperf3, BULK_CC)
# upload (lan to srv) and download (srv to lan); the stream going the
# bulk's way is the cell that matters, the other way is kept in the results.
# Every uplink set (SETS) is measured with these contenders (CONTENDERS):
#
#   alone:1, alone:2   the bond with only that uplink, the same load on it
#   default            the bond, default policy, classes off
#   redundant          the bond with scheduler { policy = "redundant"; }
#   classes            the bond with the traffic classes on (interactive:
#                      duplicate); skipped, and said so, when this wanbondd
#                      refuses the classes group
#   classes-nofec      the same with fec = "off": what FEC adds, and costs
#                      the bulk, where it turns on (not in the default list)
#
# Uplink sets (one way delay; queues as time at the rate):
#
#   clean   dsl 50 Mbit/s 10 ms, queue 50 ms; lte 20 Mbit/s 30 ms, queue 100 ms
#   burst   the same, lte losing in bursts both ways: Gilbert-Elliott
#           P = 0.51%, R = 25%, 1-H = 100%, 1-K = 0: 2.0% mean loss in
#           bursts of 4 packets on average
#   lte     dsl as above beside the real LTE trace tests/traces/TMobile-LTE-short
#           (16.7 Mbit/s down, 13.3 up on average), 30 ms, queue 100 ms;
#           the trace starts again before each measurement
#   lossy   the clean pair, both uplinks losing in bursts both ways:
#           Gilbert-Elliott P = 1%, R = 25%: 3.8% mean loss each, so a
#           packet and its copy are both lost 0.15% of the time, above the
#           0.1% at which the classes' FEC turns on (not in the default list)
#
# For each cell a row (medians of RUNS runs): p50 / p99 / p99.9 ms, jitter,
# loss, the bulk's Mbit/s and its ratio to the same contender's bulk alone,
# and the targets, PASS or MISS (a miss is reported, never a failure):
#   (a) beside the bulk, the bond's p99 <= the best uplink alone's + 10 ms,
#       and on the burst set its loss <= 0.1%;
#   (b) the bulk beside the stream >= 0.95 of the bulk alone;
#   (c) with no bulk, the bond no worse than its best uplink alone in p99,
#       jitter and loss (each against the best of the uplinks, within
#       TOL_MS for the two times).
# The targets are the classes contender's; the other bond contenders are
# judged the same way, for reference.
#
#   tests/bench/bench_latency.sh [BUILD]
#
# Environment: RUNS (3), SECS (20: the stream's seconds; the bulk runs 2 s
# more, left out), SETS ("clean burst lte"), STREAMS ("voice game"), BULK
# ("none up down"), BULK_CC (cubic; or bbr), CONTENDERS ("alone:1 alone:2
# default redundant classes"), TOL_MS (0.5), OUT (BUILD/bench/latency).
# After each contender, the client's and the server's FEC counters
# (fec_parity_sent, fec_repaired) go to the results, summed over both ends. LAT_QUICK=1: one run
# of 8 s, the clean set only (for development). A whole run takes about
# 2.5 hours: per set and run, each contender runs 8 measurements of SECS + 4 s.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

if [ "${LAT_QUICK:-0}" = 1 ]; then
	RUNS=${RUNS:-1} SECS=${SECS:-8} SETS=${SETS:-clean}
fi
RUNS=${RUNS:-3}
SECS=${SECS:-20}
SETS=${SETS:-clean burst lte}
STREAMS=${STREAMS:-voice game}
BULK=${BULK:-none up down}
BULK_CC=${BULK_CC:-cubic}
CONTENDERS=${CONTENDERS:-alone:1 alone:2 default redundant classes}
TOL_MS=${TOL_MS:-0.5}
OUT=${OUT:-$NT_BUILD/bench/latency}
WARM=2 # the bulk's seconds before the stream starts, left out of its rate
LATPROBE=$NT_BUILD/bin/wb-latprobe
TRACE=tests/traces/TMobile-LTE-short
[ -x "$LATPROBE" ] || nt_die "missing $LATPROBE (make)"
command -v gnuplot >/dev/null || nt_die "missing gnuplot (make deps installs it)"

# stream_params NAME: "RATE SIZE DSCP"
stream_params() {
	case $1 in
	voice) echo "50 200 EF" ;;
	game) echo "60 100 CS4" ;;
	*) nt_die "unknown stream $1" ;;
	esac
}

# set_uplink SET K: "NAME LINKEM-WORDS..." of uplink K in an uplink set.
set_uplink() {
	local dsl="rate 50mbit delay 10ms limit 50ms" lte="rate 20mbit delay 30ms limit 100ms"
	case $1:$2 in
	clean:1 | burst:1 | lte:1) echo "dsl $dsl" ;;
	clean:2) echo "lte $lte" ;;
	burst:2) echo "lte-burst $lte loss gemodel 0.51% 25% 100% 0%" ;;
	lossy:1) echo "dsl-lossy $dsl loss gemodel 1% 25% 100% 0%" ;;
	lossy:2) echo "lte-lossy $lte loss gemodel 1% 25% 100% 0%" ;;
	lte:2) echo "lte-trace delay 30ms limit 100ms a2b trace $TRACE.up b2a trace $TRACE.down" ;;
	*) nt_die "unknown uplink set $1" ;;
	esac
}
set_title() {
	case $1 in
	clean) echo "clean pair: dsl 50 Mbit/s 10 ms + lte 20 Mbit/s 30 ms" ;;
	burst) echo "burst-loss pair: dsl + lte losing 2% in bursts (Gilbert-Elliott 0.51% 25% 100% 0%)" ;;
	lte) echo "real LTE: dsl + the TMobile LTE trace, 30 ms" ;;
	lossy) echo "lossy pair: dsl + lte, both losing 3.8% in bursts (Gilbert-Elliott 1% 25% 100% 0%)" ;;
	esac
}
uplink_name() { set_uplink "$1" "$2" | awk '{ print $1 }'; }

nt_init
nt_topology 2
nt_wb_keys server
nt_wb_keys home
SCONF=$NT_TMP/server.conf
CCONF=$NT_TMP/client.conf
# The bulk's congestion control: iperf3 -C sets it on both ends (TCP_CONGESTION;
# root in a namespace may pick any the kernel has, whatever the host allows by
# default).
grep -qw "$BULK_CC" /proc/sys/net/ipv4/tcp_available_congestion_control || modprobe "tcp_$BULK_CC" 2>/dev/null ||
	nt_die "the kernel has no $BULK_CC congestion control"

CLASSES_ON='classes: {
	enabled = true;
	interactive: {
		dscp = [ "EF", "CS4", "CS5", "CS6", "AF41", "AF42", "AF43" ];
		ports = [ ];
		policy = "duplicate";
		ordered = false;
		fec = "auto";
	};
};'
CLASSES_OFF=${CLASSES_ON/enabled = true/enabled = false}
CLASSES_NOFEC=${CLASSES_ON/fec = \"auto\"/fec = \"off\"}

# Does this wanbondd take the classes group? Its configuration check says, for
# a client (HAVE_CLASSES) and for a server (SERVER_CLASSES: the group goes in
# the server's file too, for what it sends, when it takes it).
HAVE_CLASSES=0
SERVER_CLASSES=0
CLASSES_NOTE=""
classes_check() {
	local conf=$NT_TMP/classes-check.conf out
	nt_wb_client_conf "$conf" home 10.255.0.2/30 10.2.0.0/24 dsl:wan1
	printf '%s\n' "$CLASSES_ON" >>"$conf"
	if ! out=$("$NT_WANBONDD" --check -c "$conf" 2>&1); then
		CLASSES_NOTE="the classes contender is skipped: this wanbondd refuses the classes group ($(head -n 1 <<<"${out//$conf/client.conf}"))"
		return 0
	fi
	HAVE_CLASSES=1
	nt_wb_server_conf "$conf" "home:10.255.0.1/30:10.1.0.0/24"
	printf '%s\n' "$CLASSES_ON" >>"$conf"
	if out=$("$NT_WANBONDD" --check -c "$conf" 2>&1); then
		SERVER_CLASSES=1
	else
		CLASSES_NOTE="a server refuses the classes group ($(head -n 1 <<<"${out//$conf/server.conf}")): classes on the client only"
	fi
}
classes_check

# start_paths SET: the set's emulators (again: a trace starts from its beginning).
start_paths() {
	local k words
	for k in 1 2; do
		nt_uplink_stop "$k"
		words=$(set_uplink "$1" "$k" | cut -d' ' -f2-)
		# shellcheck disable=SC2086 # linkem's words
		nt_uplink_start "$k" $words seed "$k"
	done
}

DAEMONS=()
# fec_counters SET CONTENDER RUN: the FEC counters of both ends, summed, as
# result lines (before the daemons stop).
fec_counters() {
	local k server client
	for k in fec_parity_sent fec_repaired; do
		server=$(nt_wb_counter "${DAEMONS[0]}" "$SCONF.log" "$k")
		client=$(nt_wb_counter "${DAEMONS[1]}" "$CCONF.log" "$k")
		echo "$1 - - counters $2 $3 $k $((${server:-0} + ${client:-0}))"
	done
}
stop_daemons() {
	for pid in "${DAEMONS[@]}"; do nt_stop "$pid"; done
	DAEMONS=()
	rm -f "$NT_TMP"/*.conf.log
}
# start_bond SET CONTENDER: both daemons, with the contender's uplinks and settings.
start_bond() {
	local set=$1 c=$2 ups=() extra="" classes
	case $c in
	alone:*) ups=("$(uplink_name "$set" "${c#alone:}"):wan${c#alone:}") ;;
	*) ups=("$(uplink_name "$set" 1):wan1" "$(uplink_name "$set" 2):wan2") ;;
	esac
	case $c in
	redundant) extra='scheduler = { policy = "redundant"; };' ;;
	esac
	nt_wb_server_conf "$SCONF" "home:10.255.0.1/30:10.1.0.0/24"
	nt_wb_client_conf "$CCONF" home 10.255.0.2/30 10.2.0.0/24 "${ups[@]}"
	for f in "$SCONF" "$CCONF"; do printf '%s\n' "$extra" >>"$f"; done
	if [ "$HAVE_CLASSES" = 1 ]; then
		case $c in
		classes) classes=$CLASSES_ON ;;
		classes-nofec) classes=$CLASSES_NOFEC ;;
		*) classes=$CLASSES_OFF ;;
		esac
		printf '%s\n' "$classes" >>"$CCONF"
		[ "$SERVER_CLASSES" = 1 ] && printf '%s\n' "$classes" >>"$SCONF"
	fi
	nt_wb_start vps "$SCONF"; DAEMONS+=("$NT_LAST_PID")
	nt_wb_start router "$CCONF"; DAEMONS+=("$NT_LAST_PID")
	nt_wait_log "$CCONF.log" "session established" 10 || nt_die "$set $c: no session"
	nt_wb_wait_up "$CCONF.log" "${#ups[@]}" 10 || nt_log "  $set $c: not all of its ${#ups[@]} uplinks came up in 10 s"
	sleep 1
}

# The ends of a direction: "SENDER RECEIVER RECEIVER_ADDR".
ends() { if [ "$1" = up ]; then echo "lan srv 10.2.0.2"; else echo "srv lan 10.1.0.2"; fi; }

PORT=7000
# measure SET CONTENDER RUN BULK STREAM: one measurement (BULK none, up or
# down; STREAM a stream or "-" for the bulk alone), as result lines
# "SET STREAM DIR BULKCELL CONTENDER RUN METRIC VALUE" with BULKCELL none
# (no bulk), same (the bulk goes the stream's way), reverse, or bulk (the
# bulk alone).
measure() {
	local set=$1 c=$2 run=$3 bulk=$4 stream=$5 rate size dscp expect d s r a port
	local iperf_pid="" iperf_log="" recv_pids=() send_pids=() dirs=()
	local tag=${set}_${stream}_${bulk}_${c/:/-}_$run
	[ "$set" = lte ] && { start_paths lte; sleep 1; }
	if [ "$bulk" != none ]; then
		port=$(nt_free_port srv 5201)
		nt_iperf_server srv 10.2.0.2 "$port"
		iperf_log=$OUT/raw/iperf-$tag.json
		local flag=""
		[ "$bulk" = down ] && flag=-R
		# iperf3 runs WARM + SECS seconds, WARM left out: its rate is over the stream's seconds.
		nt_bg lan "$iperf_log" timeout $((SECS + WARM + 30)) iperf3 -J -c 10.2.0.2 -p "$port" \
			-t "$SECS" -O "$WARM" -C "$BULK_CC" $flag
		iperf_pid=$NT_LAST_PID
		sleep "$WARM"
	fi
	if [ "$stream" != - ]; then
		read -r rate size dscp <<<"$(stream_params "$stream")"
		expect=$((rate * SECS))
		dirs=(up down)
		for d in "${dirs[@]}"; do
			read -r s r a <<<"$(ends "$d")"
			PORT=$((PORT + 1))
			nt_bg "$r" "$OUT/raw/recv-$tag-$d.json" "$LATPROBE" recv --bind "$a:$PORT" --duration $((SECS + 30)) \
				--expect "$expect" --stream "$PORT" --delays "$OUT/delays/$tag-$d.txt" -J
			recv_pids+=("$NT_LAST_PID")
			nt_wait_for 5 nt_run "$r" sh -c "ss -Hlun 'sport = :$PORT' | grep -q ." || nt_die "no receiver on $PORT"
			eval "port_$d=$PORT"
		done
		for d in "${dirs[@]}"; do
			read -r s r a <<<"$(ends "$d")"
			local p_var="port_$d"
			nt_bg "$s" "$OUT/raw/send-$tag-$d.json" "$LATPROBE" send --to "$a:${!p_var}" --rate "$rate" \
				--size "$size" --dscp "$dscp" --duration "$SECS" --stream "${!p_var}" -J
			send_pids+=("$NT_LAST_PID")
		done
		for p in "${send_pids[@]}"; do wait "$p" || true; done
		sleep 1 # the last packets' way through the queues
		for p in "${recv_pids[@]}"; do nt_stop "$p"; done
		for d in "${dirs[@]}"; do
			local cell=none j
			[ "$bulk" = "$d" ] && cell=same
			[ "$bulk" != none ] && [ "$bulk" != "$d" ] && cell=reverse
			j=$(grep '^{' "$OUT/raw/recv-$tag-$d.json" | tail -n 1)
			[ -n "$j" ] || { nt_log "  $tag $d: no figures from the receiver"; continue; }
			jq -r --arg p "$set $stream $d $cell $c $run" '
				["p50_ms", "p99_ms", "p999_ms", "max_ms", "jitter_ms", "loss_pct", "sent", "received",
				 "duplicates", "reordered", "dscp"][] as $k | "\($p) \($k) \(.[$k] // "-")"' <<<"$j"
			local sent
			sent=$(grep '^{' "$OUT/raw/send-$tag-$d.json" | jq -r '.sent' 2>/dev/null || echo -)
			echo "$set $stream $d $cell $c $run sender_sent $sent"
		done
	fi
	if [ -n "$iperf_pid" ]; then
		wait "$iperf_pid" || true
		local mbit cc
		mbit=$(jq -r '(.end.sum_received.bits_per_second // 0) / 1e6' "$iperf_log" 2>/dev/null || echo 0)
		cc=$(jq -r '.end.sender_tcp_congestion // "?"' "$iperf_log" 2>/dev/null || echo "?")
		[ "$cc" = "$BULK_CC" ] || nt_log "  $tag: the bulk's sender ran $cc, not $BULK_CC"
		if [ "$stream" = - ]; then
			echo "$set - $bulk bulk $c $run bulk_mbit $mbit"
			eval "BULK_ALONE_$bulk=$mbit"
		else
			local alone_var="BULK_ALONE_$bulk"
			echo "$set $stream $bulk same $c $run bulk_mbit $mbit"
			echo "$set $stream $bulk same $c $run bulk_ratio $(awk -v m="$mbit" -v a="${!alone_var:-0}" \
				'BEGIN { if (a > 0) print m / a; else print "-" }')"
		fi
	fi
	sleep 1 # the queues drain before the next
}

# run_contender SET CONTENDER RUN: its measurements, the bulk alone before the stream beside it.
run_contender() {
	local set=$1 c=$2 run=$3 b s
	start_bond "$set" "$c"
	for b in $BULK; do
		[ "$b" != none ] && measure "$set" "$c" "$run" "$b" -
		for s in $STREAMS; do measure "$set" "$c" "$run" "$b" "$s"; done
	done >>"$OUT/results.txt"
	fec_counters "$set" "$c" "$run" >>"$OUT/results.txt"
	stop_daemons
}

mkdir -p "$OUT"
rm -rf "$OUT/raw" "$OUT/delays" "$OUT"/cdf-*.png
mkdir -p "$OUT/raw" "$OUT/delays"
: >"$OUT/results.txt"
: >"$OUT/titles.txt"
ACTIVE=""
for c in $CONTENDERS; do
	case $c in classes*) [ "$HAVE_CLASSES" != 1 ] && continue ;; esac
	ACTIVE+="$c "
done
echo "latency benchmark: $RUNS run(s) of $SECS s per cell; sets: $SETS; streams: $STREAMS; bulk: $BULK"
echo "contenders: $ACTIVE"
[ -n "$CLASSES_NOTE" ] && echo "note: $CLASSES_NOTE"
{
	echo "secs $SECS"
	echo "runs $RUNS"
	echo "tol_ms $TOL_MS"
	echo "cc $BULK_CC"
	echo "contenders $ACTIVE"
	[ -n "$CLASSES_NOTE" ] && echo "note $CLASSES_NOTE"
	for set in $SETS; do
		echo "set $set $(set_title "$set")"
		for k in 1 2; do echo "name $set alone:$k $(uplink_name "$set" "$k")"; done
	done
} >>"$OUT/titles.txt"
for set in $SETS; do
	start_paths "$set"
	for run in $(seq "$RUNS"); do
		for c in $ACTIVE; do run_contender "$set" "$c" "$run"; done
		echo "  $set: run $run of $RUNS done ($(date +%H:%M:%S))" >&2
	done
done
awk -f tests/bench/median.awk -f tests/bench/latency_tables.awk "$OUT/titles.txt" "$OUT/results.txt" | tee "$OUT/tables.txt"
tests/bench/latency_chart.sh "$OUT" && echo "charts: $OUT/cdf-*.png"
exit 0
