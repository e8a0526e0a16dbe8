#!/usr/bin/env bash
# wb-latprobe's command line: bad arguments are refused with a clear message and exit code 2.
set -u
LATPROBE=${1:-build/bin/wb-latprobe}
fails=0

# expect CODE MESSAGE_PART ARGS...
expect() {
	local code=$1 part=$2 out rc; shift 2
	out=$("$LATPROBE" "$@" 2>&1); rc=$?
	if [ "$rc" -ne "$code" ] || ! grep -qF -- "$part" <<<"$out"; then
		echo "wb-latprobe $*: exit $rc, said: $out (wanted exit $code and '$part')"
		fails=$((fails + 1))
	fi
}

expect 2 "a mode is required"
expect 2 "'listen': not a mode" listen
expect 2 "send: --to ADDR:PORT is required" send --rate 50 --size 200 --duration 1
expect 2 "--rate: '0' is not a rate" send --rate 0
expect 2 "--size: '20' is not a size of 32..65507 bytes" send --size 20
expect 2 "--dscp: 'XF' is not a DSCP" send --dscp XF
expect 2 "--to: '::1:9' is not ADDR:PORT" send --to ::1:9
expect 2 "--expect: not an option of send" send --expect 5
expect 2 "recv: --bind ADDR:PORT is required" recv --duration 1
expect 2 "--bind: '127.0.0.1' is not ADDR:PORT" recv --bind 127.0.0.1
expect 2 "--duration: missing value" recv --bind 127.0.0.1:9 --duration
expect 2 "'--bogus': unknown option" recv --bogus
expect 2 "see wb-latprobe -h" send
expect 0 "usage: wb-latprobe send" -h
expect 0 "usage: wb-latprobe send" recv --help

exit $((fails > 0))
