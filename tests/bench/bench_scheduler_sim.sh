#!/usr/bin/env bash
# The scheduler benchmark in the simulator, at the scenarios' full rates.
#
# For each scenario, direction and buffer variant, side by side in one run:
# each uplink alone through the bond, their sum, and the bond with each set
# of the scheduler's rules; goodput min/median/max over seeds, the shares,
# the reinjected bytes, the reorder skips. Then the targets (docs/scheduler.md).
#
#   tests/bench/bench_scheduler_sim.sh [BUILD] [SCENARIO...]   (S1 ... S8; default all)
#
# Environment: SEEDS (default "1 2 3"), JOBS (parallel runs, default the cores).
set -u
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
shift || true
WBSIM=$BUILD/tests/sim/wbsim
SEEDS=${SEEDS:-1 2 3}
JOBS=${JOBS:-$(nproc)}
OUT=$BUILD/bench/scheduler-sim
TRACE=tests/traces/TMobile-LTE-short
[ -x "$WBSIM" ] || { echo "bench_scheduler_sim: $WBSIM missing (make unit-bins)" >&2; exit 1; }

# The uplinks of each scenario: linkem's words (both directions unless a2b/b2a).
links() {
	case $1 in
	S1) echo "link fast rate 400mbit delay 10ms limit 40ms"
	    echo "link slow rate 15mbit delay 120ms limit 120ms" ;;
	S2) echo "link fast rate 40mbit delay 10ms limit 40ms"
	    echo "link slow rate 2mbit delay 250ms limit 250ms loss 5%" ;;
	S3) echo "link a rate 50mbit delay 10ms limit 40ms"
	    echo "link b rate 50mbit delay 10ms limit 40ms" ;;
	S4) echo "link a rate 50mbit delay 10ms limit 40ms loss 1%"
	    echo "link b rate 50mbit delay 10ms limit 40ms loss 1%" ;;
	S5) echo "link fast rate 50mbit delay 10ms limit 40ms"
	    echo "link bloated rate 10mbit delay 20ms limit 1s" ;;
	S6) echo "link dsl rate 20mbit delay 10ms limit 50ms"
	    echo "link lte a2b trace $TRACE.up b2a trace $TRACE.down delay 25ms jitter 10ms limit 200ms" ;;
	S7a) links S1 ;;
	S7b) links S2 ;;
	S7c) echo "link fast rate 40mbit delay 5ms limit 40ms"
	     echo "link slow rate 5mbit delay 50ms limit 100ms" ;;
	S8) echo "link main rate 50mbit delay 10ms limit 40ms"
	    echo "link spare backup rate 20mbit delay 20ms limit 40ms" ;;
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

# The bond's rows: the rules each one turns off.
MODES="none penalise penalise-noguard reinject both avoid default"
mode_off() {
	case $1 in
	none) echo "penalise reinject avoid_blocking" ;;
	penalise) echo "reinject avoid_blocking" ;;
	penalise-noguard) echo "penalise_guard reinject avoid_blocking" ;;
	reinject) echo "penalise avoid_blocking" ;;
	both) echo "avoid_blocking" ;;
	avoid) echo "penalise reinject" ;;
	default) echo "" ;;
	esac
}

variant_lines() {
	case $1 in
	6mb) ;;
	rwnd512k) echo "bond receive_window 512k" ;;
	sndbuf512k) echo "bond send_buffer 512k" ;;
	esac
}

# One job per line: scenario dir variant row seed. Rows: alone:LINK, or a mode.
jobs() {
	for sc in $SCENARIOS; do
		case $sc in
		S7*) dirs=down variants=6mb modes="none both default" ;;
		S8) dirs="down up" variants=6mb modes="default" ;;
		*) dirs="down up" variants="6mb rwnd512k sndbuf512k" modes=$MODES ;;
		esac
		for dir in $dirs; do for v in $variants; do for seed in $SEEDS; do
			for l in $(links "$sc" | grep -v backup | awk '{print $2}'); do echo "$sc $dir $v alone:$l $seed"; done
			for m in $modes; do echo "$sc $dir $v $m $seed"; done
		done; done; done
	done
}

# Runs one job, prints "scenario dir variant row seed metric value" lines.
run_one() {
	local sc=$1 dir=$2 v=$3 row=$4 seed=$5 f
	f=$(mktemp)
	{
		case $sc in
		S7*) echo "duration 21s"; echo "warmup 1s"; echo "app rr size 1m think 100ms" ;;
		*) echo "duration 10s"; echo "warmup 2s"; echo "app bulk $dir" ;;
		esac
		echo "bond aqm off"
		if [ "${row%%:*}" = alone ]; then
			links "$sc" | awk -v l="${row#alone:}" '$2 == l'
		else
			links "$sc"
			for r in $(mode_off "$row"); do echo "bond $r off"; done
		fi
		variant_lines "$v"
	} >"$f"
	"$WBSIM" -m -s "$seed" "$f" 2>/dev/null | awk -v k="$sc $dir $v $row $seed" '$1 == "metric" { print k, $2, $3 }'
	rm -f "$f"
}
export -f run_one links mode_off variant_lines
export WBSIM TRACE

SCENARIOS=${*:-S1 S2 S3 S4 S5 S6 S7a S7b S7c S8}
mkdir -p "$OUT"
echo "scheduler benchmark in the simulator: seeds $SEEDS; each uplink alone, then the bond (rows: the rules on)"
jobs | xargs -P "$JOBS" -L 1 bash -c 'run_one "$@"' _ >"$OUT/results.txt"

export -f title
# The tables and the targets, from the results.
for sc in $SCENARIOS; do echo "$sc $(title "$sc")"; done >"$OUT/titles.txt"
awk -f tests/bench/scheduler_tables.awk "$OUT/titles.txt" "$OUT/results.txt" | tee "$OUT/tables.txt"
status=${PIPESTATUS[0]}
echo "results in $OUT/ (results.txt: every metric of every run)"
exit "$status"
