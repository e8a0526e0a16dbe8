# shellcheck shell=bash
# The checks of a test script and its summary line, one per line as
# "  ok    LABEL" or "  FAIL  LABEL": sourced by tests/netns/lib.sh and by the
# tests that need no namespace (tests/pkg/, tests/openwrt/).

NT_FAILS=0
NT_CHECKS=0

# nt_expect_range LABEL VALUE LO HI: pass if LO <= VALUE <= HI.
nt_expect_range() {
	NT_CHECKS=$((NT_CHECKS + 1))
	if awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v != "" && v + 0 >= lo + 0 && v + 0 <= hi + 0) }'; then
		printf '  ok    %-44s %s (within %s .. %s)\n' "$1" "$2" "$3" "$4"
	else
		printf '  FAIL  %-44s %s (outside %s .. %s)\n' "$1" "${2:-missing}" "$3" "$4"
		NT_FAILS=$((NT_FAILS + 1))
	fi
}

# nt_expect_true LABEL CMD...: pass if CMD succeeds.
nt_expect_true() {
	local label=$1; shift
	NT_CHECKS=$((NT_CHECKS + 1))
	if "$@"; then
		printf '  ok    %s\n' "$label"
	else
		printf '  FAIL  %s\n' "$label"
		NT_FAILS=$((NT_FAILS + 1))
	fi
}

# jqt ARGS... [FILE]: jq -e on FILE (a file's name last) or on stdin,
# quiet; false on no input at all, where jq -e alone is true: a check fed
# by a command that printed nothing (an object not on ubus yet) must fail.
jqt() {
	local last=${!#} in
	if [ $# -gt 1 ] && [ -f "$last" ]; then
		[ -s "$last" ] && jq -e "$@" >/dev/null 2>&1
	else
		in=$(cat) && [ -n "$in" ] && jq -e "$@" >/dev/null 2>&1 <<<"$in"
	fi
}

# nt_finish: summary line and exit status of a test script.
nt_finish() {
	if [ "$NT_FAILS" -eq 0 ]; then
		printf '%s: %d checks passed\n' "$(basename "$0" .sh)" "$NT_CHECKS"
		exit 0
	fi
	printf '%s: %d of %d checks FAILED\n' "$(basename "$0" .sh)" "$NT_FAILS" "$NT_CHECKS"
	exit 1
}
