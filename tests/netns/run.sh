#!/usr/bin/env bash
# Runs every namespace test (tests/netns/test_*.sh) in turn; each builds and
# tears down its own topology. Needs root.
set -u
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
fails=0

if [ "$(id -u)" -ne 0 ]; then
	echo "netns: these tests need root (network namespaces)" >&2
	exit 77
fi
for t in tests/netns/test_*.sh; do
	echo "== $(basename "$t" .sh)"
	start=$(date +%s)
	if "$t" "$BUILD"; then
		echo "   ($(($(date +%s) - start)) s)"
	else
		echo "   FAILED ($(($(date +%s) - start)) s)"
		fails=$((fails + 1))
	fi
done
exit $((fails > 0))
