#!/usr/bin/env bash
# Runs every simulator scenario (tests/sim/scenarios/*.sim) with the given
# build's wbsim, and checks determinism: the same scenario and seed twice give
# the same report, bit for bit, and another seed a different one. JOBS
# scenarios at once (default: the machine's cores; each is single-threaded
# and in virtual time), their lines printed in the scenarios' order.
set -u
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
SIM=$BUILD/tests/sim/wbsim
JOBS=${JOBS:-$(nproc)}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
fails=0

# spawn NAME CMD...: CMD in the background (at most JOBS at once), its output in $OUT/NAME.
spawn() {
	local name=$1; shift
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	"$@" >"$OUT/$name" 2>&1 &
}
# one SCENARIO: its line, and its report on a failure; N.rc says which.
one() {
	local s=$1 i=$2 out
	if out=$("$SIM" "$s" 2>&1); then
		printf '  ok    sim %s\n' "$(basename "$s" .sim)"
		echo 0 >"$OUT/$i.rc"
	else
		printf '  FAIL  sim %s\n%s\n' "$(basename "$s" .sim)" "$out"
		echo 1 >"$OUT/$i.rc"
	fi
}

n=0
for s in tests/sim/scenarios/*.sim; do
	spawn "$n" one "$s" "$n"
	n=$((n + 1))
done
probe=tests/sim/scenarios/two_links_loss1.sim
report() { "$SIM" -s "$1" "$probe" 2>/dev/null; }
spawn a report 5
spawn b report 5
spawn c report 6
wait
for ((i = 0; i < n; i++)); do
	cat "$OUT/$i"
	[ "$(cat "$OUT/$i.rc" 2>/dev/null)" = 0 ] || fails=$((fails + 1))
done
a=$(cat "$OUT/a") b=$(cat "$OUT/b") c=$(cat "$OUT/c")
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$c" ]; then
	printf '  ok    sim determinism (same seed: same report; another seed: another)\n'
else
	printf '  FAIL  sim determinism\n'
	diff <(echo "$a") <(echo "$b") | head -n 10
	fails=$((fails + 1))
fi
exit $((fails > 0))
