#!/usr/bin/env bash
# The simulator's sweep: draws of uplinks and moments (tests/tools/wbsweep.c)
# instead of a list of named cells. For each draw, one inner TCP through the
# bond for 12 s from the draw's moment, beside a plain TCP over each uplink
# alone (the same inner congestion control and direction, its own run);
# goodput counted from the transfer's first packet, as a user sees it
# (tests/sim/sweep_scenario.sh writes the scenarios).
#
#   tests/sim/sweep.sh [-b BUILD] [-s SEED] [-f FIRST] [-n N] [-j JOBS] [-c | -g] [-e LINE]... [-k]
#
#   -s SEED   the generator's seed (default 1); -f FIRST, -n N: draws FIRST..FIRST+N-1 (1, 50)
#   -j JOBS   simulations at once (default: $JOBS, else the machine's cores)
#   -c        check the targets (docs/scheduler.md, "The sweep"): the bond at
#             least 0.93 of the best uplink alone in every draw, and the
#             median at least 0.90 of the sum; exit 1 on a miss
#   -g        guard where the project stands (make check): the targets' state
#             is printed, and it fails below the floors GUARD_* below
#   -e LINE   a line added to every bond's scenario (e.g. -e 'bond reinject off')
#   -k        keep the scenarios and reports (in BUILD/sweep)
#
# One line per draw: the draw, its uplinks and moment, best alone, sum,
# the bond, its ratios, each uplink's share of the bytes, and what explains
# the cell (AQM drops, reorder skips, the reinjected share, the inner TCP's
# resends and timeouts); then the medians.
set -u
cd "$(dirname "$0")/../.."
# Where the project stands on seed 1's first 50 draws (docs/scheduler.md,
# "The sweep"): the targets are not all met yet, so make check holds what
# is, and fails on a change that loses ground. Before the idle fix the
# sweep gave a median of 0.84 of the best alone and 0.54 of the sum, with
# 31 draws below 0.93 of the best; raise these as the bond improves.
GUARD_MEDIAN_BEST=0.90
GUARD_MEDIAN_SUM=0.68
GUARD_MAX_BELOW=27
BUILD=build SEED=1 FIRST=1 N=50 JOBS=${JOBS:-$(nproc)} CHECK=0 GUARD=0 KEEP=0 EXTRA=()
while getopts b:s:f:n:j:cge:k opt; do
	case $opt in
	b) BUILD=$OPTARG ;;
	s) SEED=$OPTARG ;;
	f) FIRST=$OPTARG ;;
	n) N=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	c) CHECK=1 ;;
	g) GUARD=1 ;;
	e) EXTRA+=("$OPTARG") ;;
	k) KEEP=1 ;;
	*) sed -n '2,22p' "$0"; exit 2 ;;
	esac
done
SIM=$BUILD/tests/sim/wbsim
GEN=$BUILD/tests/tools/wbsweep
[ -x "$SIM" ] && [ -x "$GEN" ] || { echo "sweep: missing $SIM or $GEN (make unit-bins tool-bins)" >&2; exit 2; }
WORK=$BUILD/sweep/s$SEED
mkdir -p "$WORK"

# scenario DRAWFILE KIND [K]: the bond's scenario at the draw's moment, cc and direction (KIND bond), or uplink K alone.
scenario() {
	local d=$1 kind=$2 cc dir
	cc=$(awk '$1 == "cc" { print $2 }' "$d")
	dir=$(awk '$1 == "dir" { print $2 }' "$d")
	if [ "$kind" = alone ]; then
		tests/sim/sweep_scenario.sh "$d" alone "$cc" "$dir" "$3"
	else
		tests/sim/sweep_scenario.sh "$d" bond "$cc" "$dir" "$(awk '$1 == "moment" { print $2 }' "$d")"
		cat "$WORK/extra.lines"
	fi
}

metric() { awk -v m="$2" '$1 == "metric" && $2 == m { print $3; f = 1 } END { if (!f) print "nan" }' "$1"; }

# run_draw I: the draw's runs; one result line on stdout.
run_draw() {
	local i=$1 d="$WORK/d$1" n k best=0 sum=0 bond shares="" dir alone v
	"$GEN" -s "$SEED" "$i" >"$d.draw"
	n=$(grep -c '^uplink' "$d.draw")
	dir=$(awk '$1 == "dir" { print $2 }' "$d.draw")
	scenario "$d.draw" bond >"$d.bond.sim"
	"$SIM" -m "$d.bond.sim" >"$d.bond.out" 2>&1
	bond=$(metric "$d.bond.out" app1_goodput_mbit)
	alone=""
	for k in $(seq "$n"); do
		scenario "$d.draw" alone "$k" >"$d.alone$k.sim"
		"$SIM" -m "$d.alone$k.sim" >"$d.alone$k.out" 2>&1
		v=$(metric "$d.alone$k.out" path_goodput_${dir}_mbit)
		alone+="$v "
		best=$(awk -v a="$best" -v b="$v" 'BEGIN { print (b > a) ? b : a }')
		sum=$(awk -v a="$sum" -v b="$v" 'BEGIN { print a + b }')
		shares+="$(metric "$d.bond.out" "share_u${k}_$dir") "
	done
	printf '%s %s %s %s %s %s %s | alone %s| shares %s| aqm %s skips %s reinj %s retrans %s rto %s\n' \
		"$i" "$n" "$(awk '$1 == "moment" { print $2 }' "$d.draw")" \
		"$(awk '$1 == "topology" { print $2 }' "$d.draw")" "$(awk '$1 == "cc" { print $2 }' "$d.draw")" "$dir" \
		"$best $sum $bond" "$alone" "$shares" "$(metric "$d.bond.out" aqm_drops)" "$(metric "$d.bond.out" skips)" \
		"$(metric "$d.bond.out" "reinject_ratio_$dir")" "$(metric "$d.bond.out" "tcp_retrans_$dir")" \
		"$(metric "$d.bond.out" "tcp_rto_$dir")"
	[ "$KEEP" = 1 ] || rm -f "$d".*.out "$d".*.sim
}
export -f run_draw scenario metric
export SIM GEN SEED WORK KEEP
printf '%s\n' "${EXTRA[@]+"${EXTRA[@]}"}" >"$WORK/extra.lines"

seq "$FIRST" $((FIRST + N - 1)) | xargs -P "$JOBS" -I{} bash -c 'run_draw {}' | sort -n >"$WORK/results.txt"

awk -v check="$CHECK" -v guard="$GUARD" -v g_best="$GUARD_MEDIAN_BEST" -v g_sum="$GUARD_MEDIAN_SUM" \
	-v g_below="$GUARD_MAX_BELOW" '
function med(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
BEGIN { printf "%-5s %-2s %-8s %-10s %-6s %-5s %8s %8s %8s %6s %6s  %s\n", "draw", "n", "moment", "topology", "cc", "dir", "best", "sum", "bond", "/best", "/sum", "shares | counters" }
{
	rb = $7 > 0 ? $9 / $7 : 0; rs = $8 > 0 ? $9 / $8 : 0
	nb++; B[nb] = rb; S[nb] = rs
	rest = $0; sub(/^[^|]*\| alone [^|]*\| /, "", rest)
	flag = rb < 0.93 ? "  <0.93" : ""
	printf "%-5s %-2s %-8s %-10s %-6s %-5s %8.1f %8.1f %8.1f %6.2f %6.2f  %s%s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, rb, rs, rest, flag
	if (rb < 0.93) { miss++; missed = missed " " $1 }
}
END {
	if (!nb) { print "no draws"; exit 1 }
	mb = med(B, nb); ms = med(S, nb)
	printf "\n%d draws: median bond/best %.3f, median bond/sum %.3f; below 0.93 of the best alone: %d%s\n", nb, mb, ms, miss, miss ? " (" substr(missed, 2) ")" : ""
	met = !miss && ms >= 0.90
	print "sweep: targets " (met ? "met" : "MISSED") " (every draw >= 0.93 x best alone, median >= 0.90 x sum)"
	if (check && !met) exit 1
	if (guard) {
		bad = 0
		if (mb < g_best) { printf "sweep: median bond/best %.3f below the floor %s\n", mb, g_best; bad = 1 }
		if (ms < g_sum) { printf "sweep: median bond/sum %.3f below the floor %s\n", ms, g_sum; bad = 1 }
		if (miss > g_below) { printf "sweep: %d draws below 0.93 of the best alone, more than the %s allowed\n", miss, g_below; bad = 1 }
		if (bad) exit 1
		printf "sweep: within the floors (median bond/best >= %s, bond/sum >= %s, at most %s draws below 0.93)\n", g_best, g_sum, g_below
	}
}' "$WORK/results.txt"
