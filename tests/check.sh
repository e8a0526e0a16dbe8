#!/usr/bin/env bash
# `make check`: every test of wanbond, then a summary. Fails if anything failed.
#   1. the build, with warnings as errors
#   2. unit tests, fuzz-corpus replays and command-line checks
#   3. the simulator's sweep: 50 seeded draws of uplinks and moments (tests/sim/sweep.sh -g)
#   4. unit tests and scenarios under AddressSanitizer and UndefinedBehaviorSanitizer
#   5. the LuCI app: ESLint over its views, its menu, ACL and template (tests/openwrt/)
#   6. the Debian package (root): built, linted, installed, removed (tests/pkg/)
#   7. the network-namespace tests (root), over the link emulator
#
# Both cores (JOBS, default the machine's): the builds are make -jJOBS, the
# unit tests, the replays and the simulator's scenarios run JOBS at once
# (tests/run-unit.sh, tests/sim/run.sh), and so do the sweep's draws; each
# prints in a fixed order. The namespace tests stay one at a time: their
# namespaces are named by pid, but they check rates and times, and some
# share the machine's systemd, /run and installed package.
set -u
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
JOBS=${JOBS:-$(nproc)}
export JOBS
export UBSAN_OPTIONS=print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
results=()
failed=0

stage() {
	local name=$1 start rc; shift
	echo "==== $name"
	start=$(date +%s)
	"$@"; rc=$?
	case $rc in
	0) results+=("$(printf 'ok      %-34s %4d s' "$name" $(($(date +%s) - start)))") ;;
	77) results+=("$(printf 'SKIPPED %-34s (needs root)' "$name")") ;;
	*) results+=("$(printf 'FAILED  %-34s %4d s' "$name" $(($(date +%s) - start)))"); failed=1 ;;
	esac
	return 0
}

stage "build" $MAKE -s -j"$JOBS" all unit-bins replay-bins tool-bins
stage "unit tests" $MAKE -s -j"$JOBS" check-unit
stage "simulator sweep, 50 draws" $MAKE -s -j"$JOBS" check-sweep
stage "unit tests, ASan+UBSan" $MAKE -s -j"$JOBS" check-unit BUILD=build/san SAN=1
stage "LuCI app: lint, ACL, template" tests/openwrt/test_luci_lint.sh build
stage "Debian package" tests/pkg/test_deb.sh build
stage "namespace tests" tests/netns/run.sh build

echo
echo "==== summary"
printf '%s\n' "${results[@]}"
if [ "$failed" -ne 0 ]; then
	echo "make check: FAILED"
	exit 1
fi
echo "make check: passed"
