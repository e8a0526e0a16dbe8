#!/usr/bin/env bash
# `make check-cross`: wanbond on the routers' architectures. For each of
# CROSS_ARCHES (default: arm64 armhf mipsel s390x; s390x stands for the
# big-endian MIPS routers, which Debian 12 does not carry), builds the daemon,
# the CLI, linkem, the unit tests, the fuzz-corpus replays and the simulator
# with the cross compiler into build/cross-ARCH (warnings are errors, as in
# the native build), then runs under qemu-user, as tests/run-unit.sh and
# tests/sim/run.sh run them natively:
#   1. every unit test binary (tests/unit/test_*.c)
#   2. every fuzz-corpus replay (tests/fuzz/corpus/*)
#   3. the command-line checks (tests/unit/*.sh) on the cross-built programs
#   4. a subset of the simulator's scenarios (CROSS_SIM), each held to its
#      own checks and, besides, to give the same report, bit for bit, as
#      the native (amd64) simulator, but for the memory figures (sizes of
#      structures with pointers): the simulator is deterministic, and a
#      report that differs on another architecture is code that depends on
#      byte order or on the width of long, size_t or time_t.
# One verdict line per architecture; exits 1 if any failed. The packages come
# from tests/deps_cross.sh (make deps-cross), which `make check-cross` runs first.
#
# What does not run under qemu-user, and why (each named in the output):
#   - the simulator's other scenarios: 50 scenarios take ~15 s each under
#     qemu; the subset covers the scheduler, the reliable layer, PMTU, an
#     outage and an inner TCP, and `make check` runs them all natively.
#   - the sweep, the ASan+UBSan build, the Debian package and the namespace
#     tests of `make check`: the sweep is minutes natively; the sanitizers
#     reserve terabytes of shadow memory that qemu-user's address space
#     layout does not give; the package is the amd64 VPS one; the namespace
#     tests need TUN devices, network namespaces and netlink families
#     (generic netlink, the control family) that qemu-user does not translate.
#
# Environment: CROSS_ARCHES (architectures), CROSS_SIM (scenario names),
# CROSS_TIMEOUT (seconds for one binary under qemu, default 900), MAKE, JOBS.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
MAKE=${MAKE:-make}
JOBS=${JOBS:-$(nproc)}
TIMEOUT=${CROSS_TIMEOUT:-900}
ARCHES=${CROSS_ARCHES:-arm64 armhf mipsel s390x}
# Scenarios that run in a few seconds natively and ~5-15 s under qemu, one of
# each kind; two_links_loss1 is the one tests/sim/run.sh probes for determinism.
SIM_SUBSET=${CROSS_SIM:-sched_weights sched_s2_reinject sched_s8_backup pmtu_black_hole pmtu_shrinks reordering two_links tcp_b_down_cubic tcp_b_up_bbr one_link_loss1 two_links_loss1 link_dies}

# arch_info ARCH: sets TRIPLET (the compiler's prefix) and QEMU (qemu-user's binary).
arch_info() {
	case $1 in
	arm64) TRIPLET=aarch64-linux-gnu QEMU=qemu-aarch64-static ;;
	armhf) TRIPLET=arm-linux-gnueabihf QEMU=qemu-arm-static ;;
	mipsel) TRIPLET=mipsel-linux-gnu QEMU=qemu-mipsel-static ;;
	s390x) TRIPLET=s390x-linux-gnu QEMU=qemu-s390x-static ;;
	*) return 1 ;;
	esac
}

# A report with what may differ between architectures taken out: the memory
# figures, sums of sizeof() of structures holding pointers (smaller on 32 bits).
same_arch() { sed -E 's/memory client [0-9.]+ KB server [0-9.]+ KB/memory client (of this architecture)/'; }

verdicts=()
total_pass=0 total_fail=0 total_skip=0
any_failed=0

# The native simulator, for the reports the others must match.
NATIVE=build/cross-native
echo "==== native simulator (reference reports)"
native_ok=1
mkdir -p "$NATIVE"
rm -rf "$NATIVE/reports"
if ! $MAKE -s -j"$JOBS" BUILD=$NATIVE "$NATIVE/tests/sim/wbsim" >"$NATIVE/build.log" 2>&1; then
	echo "  FAIL  native build of wbsim (see $NATIVE/build.log)"
	grep -v '^  [A-Z][A-Z]* ' "$NATIVE/build.log" | tail -n 20
	native_ok=0
else
	mkdir -p "$NATIVE/reports"
	for s in $SIM_SUBSET; do
		[ -f "tests/sim/scenarios/$s.sim" ] && "$NATIVE/tests/sim/wbsim" "tests/sim/scenarios/$s.sim" >"$NATIVE/reports/$s" 2>&1
	done
	echo "  ok    $NATIVE/tests/sim/wbsim, reports of: $SIM_SUBSET"
fi

for arch in $ARCHES; do
	if ! arch_info "$arch"; then
		echo "cross $arch: FAILED (unknown architecture; known: arm64 armhf mipsel s390x)"
		verdicts+=("cross $arch: FAILED (unknown architecture)")
		any_failed=1
		continue
	fi
	B=build/cross-$arch
	start=$(date +%s)
	pass=0 fail=0 skip=0 failed_names=() units=0 cases=0
	echo "==== $arch ($TRIPLET, $QEMU)"

	# t_start before a run; ok and bad add the seconds since (elapsed).
	t_start() { t0=$(date +%s%N); }
	elapsed() { local ms=$((($(date +%s%N) - t0) / 1000000)); printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100)); }
	t0=$(date +%s%N)
	ok() { printf '  ok    %s (%s)\n' "$1" "$(elapsed)"; pass=$((pass + 1)); }
	bad() { printf '  FAIL  %s (%s)\n' "$1" "$(elapsed)"; [ -n "${2:-}" ] && printf '%s\n' "$2" | tail -n 30; fail=$((fail + 1)); failed_names+=("$1"); }
	skipped() { printf '  skip  %s\n' "$1"; skip=$((skip + 1)); }

	# 1. The build: what run-unit.sh needs, of this architecture. With -k:
	# a file that does not build is a failure, named with the compiler's
	# errors, and what did build still runs; each binary it left missing is
	# named below as a failure.
	mkdir -p "$B"
	if $MAKE -s -k -j"$JOBS" BUILD="$B" CC="$TRIPLET-gcc" AR="$TRIPLET-ar" SYSTEMD=0 \
		PKG_CONFIG="$TRIPLET-pkg-config" unit-bins replay-bins \
		"$B/bin/wanbondd" "$B/bin/wanbond" "$B/bin/linkem" >"$B/build.log" 2>&1; then
		ok "build"
	else
		bad "build, warnings are errors ($B/build.log)" \
			"$(grep -E 'error:|Error [0-9]|undefined reference' "$B/build.log" | sort -u | head -n 30)"
	fi
	# missing FILE LABEL: a failure when the build left FILE missing.
	missing() {
		[ -x "$1" ] && return 1
		bad "$2: not built (see the build's errors)"
		return 0
	}
	# No binfmt_misc is assumed (a container has none): each program runs
	# as `QEMU program`; the dynamic loader and the libraries are the
	# multiarch ones (/lib/ld-*.so, /usr/lib/TRIPLET), so no -L is needed.
	# The shell checks call the programs by path: wrappers in $B/qemu/bin.
	mkdir -p "$B/qemu/bin"
	for p in wanbondd wanbond linkem; do
		printf '#!/bin/sh\nexec %s %s "$@"\n' "$QEMU" "$ROOT/$B/bin/$p" >"$B/qemu/bin/$p"
		chmod +x "$B/qemu/bin/$p"
	done

	# 2. Every unit test binary. cmocka's own skips (a test that needs
	# what the machine lacks) are named with the binary.
	for src in tests/unit/test_*.c; do
		name=$(basename "$src" .c)
		t=$B/tests/unit/$name
		missing "$t" "unit $name" && continue
		t_start
		out=$(timeout "$TIMEOUT" "$QEMU" "$t" 2>&1)
		rc=$?
		units=$((units + 1))
		n=$(sed -n 's/^\[==========\] \([0-9]*\) test(s) run\./\1/p' <<<"$out" | tail -n 1)
		cases=$((cases + ${n:-0}))
		while read -r s; do
			[ -n "$s" ] && skipped "unit $name: $s (cmocka skip(): see the test)"
		done < <(sed -n 's/^\[  SKIPPED \] \([A-Za-z_0-9]*\)$/\1/p' <<<"$out" | sort -u)
		if [ "$rc" -eq 0 ]; then
			ok "unit $name (${n:-?} tests)"
		elif [ "$rc" -eq 124 ]; then
			bad "unit $name: timed out after $TIMEOUT s" "$out"
		else
			bad "unit $name" "$(grep -E '^\[  (ERROR|FAILED)|^\[   LINE|^\[  FAILED' <<<"$out" | head -n 20)"
		fi
	done

	# qemu_run LABEL PROGRAM ARGS...: PROGRAM under qemu-user within the
	# timeout, ok or bad; OUT keeps what it printed.
	qemu_run() {
		local label=$1 prog=$2
		shift 2
		t_start
		if OUT=$(timeout "$TIMEOUT" "$QEMU" "$prog" "$@" 2>&1); then
			ok "$label"
			return 0
		fi
		bad "$label" "$OUT"
		return 1
	}

	# 3. The fuzz corpora: wire, frames, Noise, control family, rtnetlink
	# and configuration parsers on inputs made on amd64.
	for harness in tests/fuzz/fuzz_*.c; do
		name=$(basename "$harness" .c)
		missing "$B/tests/fuzz/replay_$name" "fuzz replay $name" && continue
		qemu_run "fuzz replay $name" "$B/tests/fuzz/replay_$name" "tests/fuzz/corpus/$name"
	done

	# 4. The command-line checks, on the programs of this architecture.
	run_sh() {
		local label=$1 prog=$2 out; shift 2
		missing "$prog" "$label" && return
		t_start
		if out=$("$@" 2>&1); then ok "$label"; else bad "$label" "$out"; fi
	}
	run_sh "linkem command line" "$B/bin/linkem" tests/unit/linkem_cli.sh "$B/qemu/bin/linkem"
	run_sh "wanbond command line" "$B/bin/wanbond" tests/unit/wanbond_cli.sh "$B/qemu/bin/wanbond"
	if [ -x "$B/bin/wanbondd" ]; then
		run_sh "man pages against --help" "$B/bin/wanbond" tests/unit/man_pages.sh "$B/qemu"
	else
		bad "man pages against --help: wanbondd not built"
	fi
	run_sh "example keys refused" "$B/bin/wanbondd" tests/unit/example_keys.sh "$B/qemu/bin/wanbondd"

	# 5. The simulator's subset: its checks, then the native report.
	for s in $SIM_SUBSET; do
		f=tests/sim/scenarios/$s.sim
		missing "$B/tests/sim/wbsim" "sim $s" && continue
		if [ ! -f "$f" ]; then
			bad "sim $s: no $f"
			continue
		fi
		qemu_run "sim $s" "$B/tests/sim/wbsim" "$f" || continue
		if [ "$native_ok" -eq 0 ]; then
			bad "sim $s: same report as amd64 (the native wbsim did not build)"
			continue
		fi
		t_start
		if [ "$(same_arch <<<"$OUT")" = "$(same_arch <"$NATIVE/reports/$s")" ]; then
			ok "sim $s: same report as amd64"
		else
			bad "sim $s: report differs from amd64's (< amd64, > $arch)" \
				"$(diff <(same_arch <"$NATIVE/reports/$s") <(same_arch <<<"$OUT") | head -n 20)"
		fi
	done
	others=()
	for f in tests/sim/scenarios/*.sim; do
		s=$(basename "$f" .sim)
		case " $SIM_SUBSET " in *" $s "*) ;; *) others+=("$s") ;; esac
	done
	if [ "${#others[@]}" -gt 0 ]; then
		printf '  skip  sim, %d scenarios not in the qemu subset (CROSS_SIM; make check runs them natively): %s\n' \
			"${#others[@]}" "${others[*]}"
		skip=$((skip + ${#others[@]}))
	fi

	secs=$(($(date +%s) - start))
	summary="$units unit binaries run ($cases tests), $pass passed, $fail failed, $skip skipped, $secs s"
	if [ "$fail" -eq 0 ]; then
		verdicts+=("$(printf 'cross %-7s ok      %s' "$arch:" "$summary")")
	else
		names=$(printf '%s; ' "${failed_names[@]:0:5}")
		names=${names%; }
		[ "$fail" -gt 5 ] && names="$names; and $((fail - 5)) more"
		verdicts+=("$(printf 'cross %-7s FAILED  %s: %s' "$arch:" "$summary" "$names")")
		any_failed=1
	fi
	total_pass=$((total_pass + pass)) total_fail=$((total_fail + fail)) total_skip=$((total_skip + skip))
done

echo
echo "==== not run under qemu-user (make check runs them natively)"
echo "  skip  simulator sweep: 50 draws, minutes natively"
echo "  skip  ASan+UBSan: the sanitizers' shadow memory does not fit qemu-user's address space"
echo "  skip  Debian package: built for the amd64 VPS"
echo "  skip  namespace tests: TUN, network namespaces, generic netlink are not translated by qemu-user"
echo
echo "==== cross summary"
printf '%s\n' "${verdicts[@]}"
echo "cross: $total_pass passed, $total_fail failed, $total_skip skipped"
exit "$any_failed"
