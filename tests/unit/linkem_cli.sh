#!/usr/bin/env bash
# linkem's command line: bad arguments are refused with a clear message and exit code 2.
set -u
LINKEM=${1:-build/bin/linkem}
fails=0

# expect CODE MESSAGE_PART ARGS...
expect() {
	local code=$1 part=$2 out rc; shift 2
	out=$("$LINKEM" "$@" 2>&1); rc=$?
	if [ "$rc" -ne "$code" ] || ! grep -qF -- "$part" <<<"$out"; then
		echo "linkem $*: exit $rc, said: $out (wanted exit $code and '$part')"
		fails=$((fails + 1))
	fi
}

expect 2 "missing interface IF_A"
expect 2 "missing interface IF_B" a
expect 2 "'10mbs' is not a rate" a b rate 10mbs
expect 2 "unknown parameter 'bandwidth'" a b bandwidth 10mbit
expect 2 "delay: missing value" a b delay
expect 2 "'0p' is not a queue limit" a b limit 0p
expect 2 "'150%' is not a percentage" a b loss 150%
expect 2 "IF_A and IF_B are both 'a'" a a
expect 2 "unknown option '--bogus'" --bogus a b
expect 2 "no interface 'wbt-none0'" wbt-none0 wbt-none1 rate 1mbit
expect 2 "does-not-exist" a b trace /does-not-exist/trace
expect 0 "usage: linkem" -h

bad_trace=$(mktemp)
printf '5\n3\n' >"$bad_trace"
expect 2 "$bad_trace:2: time 3 goes back" a b trace "$bad_trace"
rm -f "$bad_trace"

exit $((fails > 0))
