#!/usr/bin/env bash
# Runs the unit tests, the fuzz-corpus replays and the command-line checks (linkem, wb-latprobe, wanbond) of
# one build (plain or sanitized). Prints one line per binary, in a fixed order; fails on any failure.
# JOBS of them at once (default: the machine's cores), each writing to its own file, printed in order.
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-build}
JOBS=${JOBS:-$(nproc)}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
fails=0 n=0 pids=()

# run LABEL CMD...: CMD in the background (at most JOBS at once); its line in $OUT/N.
run() {
	local label=$1; shift
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	(
		if out=$("$@" 2>&1); then
			printf '  ok    %s\n' "$label"
			echo 0 >"$OUT/$n.rc"
		else
			printf '  FAIL  %s\n%s\n' "$label" "$(printf '%s\n' "$out" | tail -n 30)"
			echo 1 >"$OUT/$n.rc"
		fi
	) >"$OUT/$n" 2>&1 &
	pids[n]=$!
	n=$((n + 1))
}

for t in "$BUILD"/tests/unit/test_*; do
	[ -x "$t" ] && run "unit $(basename "$t")" "$t"
done
# Every harness replays its committed corpus (seeds and crash reproducers).
for harness in tests/fuzz/fuzz_*.c; do
	name=$(basename "$harness" .c)
	run "fuzz replay $name" "$BUILD/tests/fuzz/replay_$name" "tests/fuzz/corpus/$name"
done
run "fuzz seeds as gen_corpus writes them" tests/fuzz/check_corpus.sh "$BUILD/tests/fuzz/gen_corpus"
run "linkem command line" tests/unit/linkem_cli.sh "$BUILD/bin/linkem"
run "wb-latprobe command line" tests/unit/latprobe_cli.sh "$BUILD/bin/wb-latprobe"
run "wanbond command line" tests/unit/wanbond_cli.sh "$BUILD/bin/wanbond"
run "man pages" tests/unit/man_pages.sh "$BUILD"
run "example keys refused" tests/unit/example_keys.sh "$BUILD/bin/wanbondd"
for i in "${!pids[@]}"; do
	wait "${pids[i]}"
	cat "$OUT/$i"
	[ "$(cat "$OUT/$i.rc" 2>/dev/null)" = 0 ] || fails=$((fails + 1))
done
# The simulator's scenarios print their own lines (JOBS at once too).
JOBS=$JOBS tests/sim/run.sh "$BUILD" || fails=$((fails + 1))

[ "$fails" -eq 0 ] || { echo "$fails failed in $BUILD"; exit 1; }
