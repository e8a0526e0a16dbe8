#!/usr/bin/env bash
# The scheduler benchmark in the simulator, at the scenarios' full rates.
#
# For each scenario (scheduler_scenarios.sh), direction and buffer variant,
# side by side in one run: each uplink alone through the bond, their sum,
# and the bond with each set of the scheduler's rules; goodput min/median/
# max over seeds, the shares, the reinjected bytes, the reorder skips. Then
# the targets (docs/scheduler.md).
#
#   tests/bench/bench_scheduler_sim.sh [BUILD] [SCENARIO...]   (S1 ... S8; default all)
#
# Environment: SEEDS (default "1 2 3"), JOBS (parallel runs, default the cores).
set -u
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
shift || true
source tests/bench/scheduler_scenarios.sh
WBSIM=$BUILD/tests/sim/wbsim
SEEDS=${SEEDS:-1 2 3}
JOBS=${JOBS:-$(nproc)}
OUT=$BUILD/bench/scheduler-sim
MODES="none penalise penalise-noguard reinject both avoid default"
[ -x "$WBSIM" ] || { echo "bench_scheduler_sim: $WBSIM missing (make unit-bins)" >&2; exit 1; }

# The scenario's links as simulator lines; with ONLY, that link alone.
links() {
	local sc=$1 only=${2:-} name role rate
	for k in 1 2; do
		read -r name role rate _ <<<"$(sched_uplink "$sc" "$k")"
		[ -n "$only" ] && [ "$name" != "$only" ] && continue
		echo "link $name $([ "$role" = backup ] && echo backup) $(sched_linkem_words "$sc" "$k")"
	done
}

variant_lines() {
	case $1 in
	rwnd512k) echo "bond receive_window 512k" ;;
	sndbuf512k) echo "bond send_buffer 512k" ;;
	esac
}

# One job per line: scenario dir variant row seed. Rows: alone:LINK, or a set of rules.
jobs() {
	local sc dirs variants modes name role
	for sc in $SCENARIOS; do
		if sched_is_requests "$sc"; then
			dirs=down variants=6mb modes="none both default"
		elif [ "$sc" = S8 ]; then
			dirs="down up" variants=6mb modes=default
		else
			dirs="down up" variants="6mb rwnd512k sndbuf512k" modes=$MODES
		fi
		for dir in $dirs; do for v in $variants; do for seed in $SEEDS; do
			for k in 1 2; do
				read -r name role _ <<<"$(sched_uplink "$sc" "$k")"
				[ "$role" = active ] && echo "$sc $dir $v alone:$name $seed"
			done
			for m in $modes; do echo "$sc $dir $v $m $seed"; done
		done; done; done
	done
}

# Runs one job, prints "scenario dir variant row seed metric value" lines.
run_one() {
	local sc=$1 dir=$2 v=$3 row=$4 seed=$5 f
	f=$(mktemp)
	{
		if sched_is_requests "$sc"; then
			echo "duration 21s"; echo "warmup 1s"; echo "app rr size 1m think 100ms"
		else
			echo "duration 10s"; echo "warmup 2s"; echo "app bulk $dir"
		fi
		echo "bond aqm off"
		if [ "${row%%:*}" = alone ]; then
			links "$sc" "${row#alone:}"
		else
			links "$sc"
			for r in $(sched_mode_off "$row"); do echo "bond $r off"; done
		fi
		variant_lines "$v"
	} >"$f"
	"$WBSIM" -m -s "$seed" "$f" 2>/dev/null | awk -v k="$sc $dir $v $row $seed" '$1 == "metric" { print k, $2, $3 }'
	rm -f "$f"
}
export -f run_one links variant_lines sched_uplink sched_linkem_words sched_is_requests sched_mode_off
export WBSIM SCHED_TRACE

SCENARIOS=${*:-$SCHED_SCENARIOS}
mkdir -p "$OUT"
echo "scheduler benchmark in the simulator: seeds $SEEDS; each uplink alone, then the bond (rows: the rules on)"
jobs | xargs -P "$JOBS" -L 1 bash -c 'run_one "$@"' _ >"$OUT/results.txt"
for sc in $SCENARIOS; do echo "$sc $(sched_title "$sc")"; done >"$OUT/titles.txt"
awk -f tests/bench/median.awk -f tests/bench/scheduler_tables.awk "$OUT/titles.txt" "$OUT/results.txt" | tee "$OUT/tables.txt"
status=${PIPESTATUS[0]}
echo "results in $OUT/ (results.txt: every metric of every run)"
exit "$status"
