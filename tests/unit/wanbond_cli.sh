#!/usr/bin/env bash
# The wanbond CLI's command line without a daemon: the command table's
# dispatch and usage, the uplink commands' checks (exit code 1 before any
# socket is opened), and exit code 3 for a command that reaches for one.
set -u
CLI=${1:-build/bin/wanbond}
NONE=$(mktemp -d) # a control directory with no socket in it
fails=0

# expect CODE MESSAGE_PART ARGS...
expect() {
	local code=$1 part=$2 out rc; shift 2
	out=$("$CLI" -d "$NONE" "$@" 2>&1); rc=$?
	if [ "$rc" -ne "$code" ] || ! grep -qF -- "$part" <<<"$out"; then
		echo "wanbond $*: exit $rc, said: $out (wanted exit $code and '$part')"
		fails=$((fails + 1))
	fi
}

expect 0 "usage: wanbond" --help
expect 0 "  monitor [BOND]" -h
expect 0 "rules: arrival avoid_blocking" --help
expect 1 "usage: wanbond" --bogus
expect 0 "  uplink NAME dev DEV up|down" uplink --help
expect 0 "changes need root or a member of control.admin_group" uplink set --help
expect 0 "reinject_on_sndbuf" sched --help
expect 0 "  dump [BOND]" frobnicate --help
expect 1 "unknown command 'frobnicate'" frobnicate
expect 1 "sched: which command?" sched
expect 1 "uplink: which command?" uplink
expect 1 "sched set: nothing to set" sched set
expect 1 "sched set: 'nosuch' is neither a policy nor a rule" sched set nosuch on
expect 1 "show: one bond at most" show a b
expect 1 "monitor: one bond at most" monitor a b
expect 1 "stats: one bond at most" stats a b
expect 1 "stats: unknown option '--prom'" stats --prom
expect 1 "stats: --prometheus prints every counter" stats -s --prometheus
expect 1 "stats: --prometheus prints every counter" -j stats --prometheus
expect 0 "stats [-s|--prometheus] [BOND]" stats --help
expect 1 "uplink set: which uplink?" uplink set
expect 1 "uplink set: weight: 0 is out of range 1..1000" uplink set lte weight 0
expect 1 "uplink: unexpected 'sideways'" uplink lte dev wan2 sideways
expect 1 "uplink add: needs at least one of interface, source and fwmark" uplink add lte
expect 1 "uplink add: name: 'l t e' has characters other than" uplink add "l t e" dev wan2
expect 1 "uplink add: fwmark: '-1' is not a number" uplink add lte fwmark -1
expect 1 "uplink del: unexpected 'weight'" uplink del lte weight 2
# Past the checks, each needs a daemon: there is none.
expect 3 "no daemon running" show
expect 3 "no daemon running" stats
expect 3 "no daemon running" stats reset
expect 3 "no daemon running" stats --prometheus
# ... and the output is well-formed still: every family's HELP and TYPE, no sample.
out=$("$CLI" -d "$NONE" stats --prometheus 2>/dev/null)
if ! grep -qx '# TYPE wanbond_uplink_tx_bytes_total counter' <<<"$out" || grep -qv '^# ' <<<"$out"; then
	echo "wanbond stats --prometheus with no daemon: not HELP and TYPE lines alone: $out"
	fails=$((fails + 1))
fi
expect 3 "no daemon running" sched set arrival off
expect 3 "no daemon running" uplink add lte dev wan2 fwmark 010 weight 0x10
expect 3 "no daemon running" uplink lte dev wan2 down
rmdir "$NONE"

exit $((fails > 0))
