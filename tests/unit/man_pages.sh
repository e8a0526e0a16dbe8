#!/usr/bin/env bash
# The man pages (docs/man/) against the programs they describe: each page
# renders without a warning from groff, wanbondd.8 has every option of
# `wanbondd --help`, and wanbond.8 every option, command (with its
# synopsis, as the command table writes it) and scheduler rule of
# `wanbond --help`. A new option or command without its line in the page
# fails here.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
fails=0

fail() {
	echo "$*"
	fails=$((fails + 1))
}

# The page as text, one paragraph to a line (no wrapping), plain ASCII.
render() {
	MANWIDTH=1000 man -E ascii -l "$1"
}

# has PAGE_TEXT PAGE WHAT: the page's text has WHAT, verbatim.
has() {
	grep -qF -- "$3" <<<"$1" || fail "$2: no '$3'"
}

for page in docs/man/wanbondd.8 docs/man/wanbond.8; do
	warnings=$(man --warnings -E ascii -l "$page" 2>&1 >/dev/null)
	[ -z "$warnings" ] || fail "$page: groff says: $warnings"
done

DAEMON_PAGE=$(render docs/man/wanbondd.8)
DAEMON_USAGE=$("$BUILD/bin/wanbondd" --help) || fail "wanbondd --help failed"
for option in $(grep -oE -- '(^| )--?[a-z]+' <<<"$DAEMON_USAGE" | sort -u); do
	has "$DAEMON_PAGE" wanbondd.8 "$option"
done

CLI_PAGE=$(render docs/man/wanbond.8)
CLI_USAGE=$("$BUILD/bin/wanbond" --help) || fail "wanbond --help failed"
# The usage: the synopsis line, the commands (two spaces, the synopsis, and
# after two or more spaces a summary), "options:" and its lines, the rules.
has "$CLI_PAGE" wanbond.8 "$(sed -n 's/^usage: //p' <<<"$CLI_USAGE")"
commands=$(sed -n '2,/^options:/p' <<<"$CLI_USAGE" | sed '$d' | sed -E 's/^  //; s/  +.*//')
[ "$(wc -l <<<"$commands")" -ge 8 ] || fail "wanbond --help: fewer commands than expected: $commands"
while IFS= read -r synopsis; do
	has "$CLI_PAGE" wanbond.8 "$synopsis"
done <<<"$commands"
for option in $(sed -n '/^options:/,/^rules:/p' <<<"$CLI_USAGE" | grep -oE -- '(^| )--?[a-z]+' | sort -u); do
	has "$CLI_PAGE" wanbond.8 "$option"
done
rules=$(sed -n '/^rules:/,$p' <<<"$CLI_USAGE" | sed 's/^rules://')
[ -n "$rules" ] || fail "wanbond --help: no rules"
for rule in $rules; do
	has "$CLI_PAGE" wanbond.8 "$rule"
done

exit $((fails > 0))
