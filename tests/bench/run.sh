#!/usr/bin/env bash
# `make bench`: the long measurements, each printing its own table.
# Figures are ratios measured side by side in one run, never bare times.
set -u
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
fails=0
if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root (network namespaces)" >&2
	exit 1
fi
# BENCH=word runs only the benchmarks whose name holds it (make bench BENCH=scheduler).
for b in tests/bench/bench_*"${BENCH:-}"*.sh; do
	echo "==== $(basename "$b" .sh)"
	"$b" "$BUILD" || fails=$((fails + 1))
done
exit $((fails > 0))
