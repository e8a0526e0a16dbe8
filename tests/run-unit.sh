#!/usr/bin/env bash
# Runs the unit tests, the fuzz-corpus replays and the command-line checks (linkem, wanbond) of
# one build (plain or sanitized). Prints one line per binary; fails on any failure.
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-build}
fails=0

run() {
	local label=$1 out; shift
	if out=$("$@" 2>&1); then
		printf '  ok    %s\n' "$label"
	else
		printf '  FAIL  %s\n%s\n' "$label" "$(printf '%s\n' "$out" | tail -n 30)"
		fails=$((fails + 1))
	fi
}

for t in "$BUILD"/tests/unit/test_*; do
	[ -x "$t" ] && run "unit $(basename "$t")" "$t"
done
# Every harness replays its committed corpus (seeds and crash reproducers).
for harness in tests/fuzz/fuzz_*.c; do
	name=$(basename "$harness" .c)
	run "fuzz replay $name" "$BUILD/tests/fuzz/replay_$name" "tests/fuzz/corpus/$name"
done
run "linkem command line" tests/unit/linkem_cli.sh "$BUILD/bin/linkem"
run "wanbond command line" tests/unit/wanbond_cli.sh "$BUILD/bin/wanbond"
run "man pages" tests/unit/man_pages.sh "$BUILD"
run "example keys refused" tests/unit/example_keys.sh "$BUILD/bin/wanbondd"
# The simulator's scenarios print their own lines.
tests/sim/run.sh "$BUILD" || fails=$((fails + 1))

[ "$fails" -eq 0 ] || { echo "$fails failed in $BUILD"; exit 1; }
