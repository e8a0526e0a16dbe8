#!/usr/bin/env bash
# The Debian package (debian/, docs/debian.md), built, checked and installed
# on this machine's own root, then removed and purged:
#   - `make deb` builds it (parallel, no tests: make check runs them) and
#     lintian finds neither an error nor a warning;
#   - installed, it has the daemon, the CLI, their man pages, the units, the
#     examples and /etc/wanbond of mode 0700, and not linkem; the units pass
#     `systemd-analyze verify` as installed (an instance, wanbond@example,
#     and the target; their Documentation= pages are found); the target is
#     enabled and an instance enables into it; the installed wanbondd
#     refuses the examples (their keys are printed for all to see) and
#     checks a copy of vps.conf with keys it made itself;
#   - `dpkg -r` leaves nothing of the package but its conffiles and the
#     target's enablement, `dpkg -P` not even those: the machine's wanbond
#     files are the same as before the test.
# Needs root (dpkg -i); refuses to run where a wanbond package or
# /etc/wanbond is there already, which it would take over and then remove.
#   tests/pkg/test_deb.sh [BUILD]     the package goes to BUILD/deb/
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${1:-build}
source tests/assert.sh
installed=""
instance_enabled=""
TMP=""

die() {
	echo "test_deb: $*" >&2
	exit 1
}

# The package's state in dpkg's database: installed, config-files, ... or
# not-installed (also when dpkg has never heard of it).
package_state() {
	local state
	state=$(dpkg-query -W -f='${db:Status-Status}' wanbond 2>/dev/null) || state=""
	echo "${state:-not-installed}"
}

# Every path of this machine that names wanbond, where a package or its
# maintainer scripts put files: the same before the test and after it.
wanbond_paths() {
	find /etc /lib/systemd /usr/lib/systemd /var/lib/systemd /usr/bin /usr/sbin \
		/usr/share/man/man8 /usr/share/doc -name '*wanbond*' 2>/dev/null | sort -u
}

cleanup() {
	if [ -n "$instance_enabled" ]; then
		systemctl disable wanbond@example.service >/dev/null 2>&1 || true
	fi
	if [ -n "$installed" ]; then
		dpkg -P wanbond >/dev/null 2>&1 || echo "test_deb: dpkg -P wanbond failed: remove the package by hand" >&2
	fi
	[ -n "$TMP" ] && rm -rf "$TMP"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "test_deb: needs root (dpkg -i)" >&2
	exit 77
fi
for tool in dpkg-buildpackage dh lintian systemd-analyze systemctl man; do
	command -v "$tool" >/dev/null || die "missing $tool (run make deps)"
done
state=$(package_state)
[ "$state" = not-installed ] ||
	die "a wanbond package is on this machine already (dpkg state $state); this test installs and removes its own: remove that one first (dpkg -P wanbond)"
[ ! -e /etc/wanbond ] || die "/etc/wanbond exists: the package would take it over and remove it"
BEFORE=$(wanbond_paths)
trap cleanup EXIT
TMP=$(mktemp -d)

echo "case build"
VERSION=$(dpkg-parsechangelog -S Version)
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
DEB=$BUILD/deb/wanbond_${VERSION}_${ARCH}.deb
CHANGES=$BUILD/deb/wanbond_${VERSION}_${ARCH}.changes
mkdir -p "$BUILD/deb"
rm -f "$BUILD"/deb/wanbond_* "$BUILD"/deb/wanbond-dbgsym_*
start=$(date +%s)
RC=0
DEB_BUILD_OPTIONS="parallel=2 nocheck" nice make deb BUILD="$BUILD" >"$BUILD/deb/build.log" 2>&1 || RC=$?
[ "$RC" -eq 0 ] || tail -n 30 "$BUILD/deb/build.log" | sed 's/^/    /'
nt_expect_true "make deb: exit status 0 ($(($(date +%s) - start)) s; log in $BUILD/deb/build.log)" [ "$RC" -eq 0 ]
[ -f "$DEB" ] || die "no $DEB"
nt_expect_true "dpkg-buildpackage left nothing beside the source" \
	[ -z "$(find .. -maxdepth 1 -name "wanbond*_${VERSION}_*" 2>/dev/null)" ]

echo "case lintian"
RC=0
LINTIAN=$(lintian --fail-on error,warning "$CHANGES" 2>&1) || RC=$?
# lintian says that it runs as root; any other line is one of its tags.
TAGS=$(grep -v '^running with root privileges' <<<"$LINTIAN" || true)
[ -z "$TAGS" ] || printf '%s\n' "$TAGS" | sed 's/^/    /'
nt_expect_true "lintian: no error, no warning (exit status $RC)" [ "$RC" -eq 0 ]
nt_expect_true "lintian: no tag at all, info included" [ -z "$TAGS" ]

echo "case install"
RC=0
OUT=$(dpkg -i "$DEB" 2>&1) || RC=$?
installed=yes
[ "$RC" -eq 0 ] || printf '%s\n' "$OUT" | sed 's/^/    /'
nt_expect_true "dpkg -i: exit status 0" [ "$RC" -eq 0 ]
nt_expect_true "dpkg state: installed" [ "$(package_state)" = installed ]
FILES=$(dpkg -L wanbond)
UNITDIR=$(dirname "$(grep -m1 '/systemd/system/wanbond@.service$' <<<"$FILES")")
has_file() { grep -qx -- "$1" <<<"$FILES" && [ -e "$1" ]; }
nt_expect_true "the daemon: /usr/sbin/wanbondd" has_file /usr/sbin/wanbondd
nt_expect_true "the CLI: /usr/bin/wanbond" has_file /usr/bin/wanbond
nt_expect_true "not the test tool linkem" [ -z "$(grep linkem <<<"$FILES")" ]
nt_expect_true "the template unit: $UNITDIR/wanbond@.service" has_file "$UNITDIR/wanbond@.service"
nt_expect_true "the target: $UNITDIR/wanbond.target" has_file "$UNITDIR/wanbond.target"
nt_expect_true "the unit runs /usr/sbin/wanbondd" \
	grep -qx 'ExecStart=/usr/sbin/wanbondd -c /etc/wanbond/%i.conf' "$UNITDIR/wanbond@.service"
for example in vps router; do
	nt_expect_true "the example: /usr/share/doc/wanbond/examples/$example.conf" \
		has_file /usr/share/doc/wanbond/examples/$example.conf
done
nt_expect_true "/etc/wanbond: the package's directory" has_file /etc/wanbond
nt_expect_true "/etc/wanbond: root's, mode 0700 ($(stat -c %a:%U:%G /etc/wanbond 2>&1))" \
	[ "$(stat -c %F:%a:%U:%G /etc/wanbond 2>&1)" = directory:700:root:root ]
for page in wanbondd wanbond; do
	nt_expect_true "man 8 $page: /usr/share/man/man8/$page.8.gz" \
		[ "$(man -w 8 "$page" 2>/dev/null)" = "/usr/share/man/man8/$page.8.gz" ]
done

echo "case units"
RC=0
OUT=$(systemd-analyze verify "$UNITDIR/wanbond@example.service" "$UNITDIR/wanbond.target" 2>&1) || RC=$?
nt_expect_true "systemd-analyze verify wanbond@example.service wanbond.target: exit status 0" [ "$RC" -eq 0 ]
# verify exits 0 after warnings (an unknown key, a missing man page): any line naming our units fails.
OURS=$(grep wanbond <<<"$OUT" || true)
[ -z "$OURS" ] || printf '%s\n' "$OURS" | sed 's/^/    /'
nt_expect_true "systemd-analyze verify: nothing said about our units" [ -z "$OURS" ]
nt_expect_true "wanbond.target enabled by the package" \
	[ "$(systemctl is-enabled wanbond.target 2>/dev/null)" = enabled ]
RC=0
systemctl enable wanbond@example.service >/dev/null 2>&1 || RC=$?
instance_enabled=yes
nt_expect_true "systemctl enable wanbond@example.service: exit status 0" [ "$RC" -eq 0 ]
nt_expect_true "... linked into wanbond.target" [ -L /etc/systemd/system/wanbond.target.wants/wanbond@example.service ]
systemctl disable wanbond@example.service >/dev/null 2>&1
instance_enabled=""
nt_expect_true "systemctl disable wanbond@example.service: link removed" \
	[ ! -e /etc/systemd/system/wanbond.target.wants/wanbond@example.service ]

echo "case programs"
# The examples as installed: refused, their keys being examples printed
# for everyone to read (the examples say: make your own).
for example in vps router; do
	file=/usr/share/doc/wanbond/examples/$example.conf
	RC=0
	/usr/sbin/wanbondd --check -c "$file" >/dev/null 2>"$TMP/stderr" || RC=$?
	nt_expect_true "wanbondd --check -c $file: refused (exit status $RC), an example key" \
		sh -c "[ $RC -eq 1 ] && grep -q 'an example key printed in' '$TMP/stderr'"
done
# The server's example as docs/debian.md installs it: a private key of its
# own in a key file, the file readable by root only, and the peers' keys
# their routers' own. It checks without a warning.
(
	umask 077
	/usr/sbin/wanbondd --genkey >"$TMP/vps.key"
	sed "s|^private_key = .*|private_key_file = \"$TMP/vps.key\";|" /usr/share/doc/wanbond/examples/vps.conf >"$TMP/vps.conf"
	for key in public_key preshared_key; do
		grep -n "^ *$key = " "$TMP/vps.conf" | cut -d: -f1 | while read -r line; do
			own=$(/usr/sbin/wanbondd --genkey)
			[ "$key" = public_key ] && own=$(/usr/sbin/wanbondd --pubkey <<<"$own")
			sed -i "${line}s|= \".*\";|= \"$own\";|" "$TMP/vps.conf"
		done
	done
)
PUB=$(/usr/sbin/wanbondd --pubkey <"$TMP/vps.key")
nt_expect_true "wanbondd --genkey, --pubkey: a base64 key of 32 bytes" grep -qE '^[A-Za-z0-9+/]{43}=$' <<<"$PUB"
nt_expect_true "the copy names the key file" grep -q "^private_key_file = \"$TMP/vps.key\";" "$TMP/vps.conf"
nt_expect_true "... and no inline key" [ -z "$(grep '^private_key =' "$TMP/vps.conf")" ]
RC=0
OUT=$(/usr/sbin/wanbondd --check -c "$TMP/vps.conf" 2>"$TMP/stderr") || RC=$?
sed 's/^/    /' "$TMP/stderr"
nt_expect_true "wanbondd --check on the copy: ok, exit status $RC" [ "$OUT;$RC" = "$TMP/vps.conf: ok;0" ]
nt_expect_true "... and no warning" [ ! -s "$TMP/stderr" ]
mkdir "$TMP/empty"
RC=0
/usr/bin/wanbond -d "$TMP/empty" show >/dev/null 2>&1 || RC=$?
nt_expect_true "wanbond show without a daemon: exit status 3" [ "$RC" -eq 3 ]

echo "case remove"
CONFFILES=$(dpkg-query -W -f='${Conffiles}\n' wanbond | awk 'NF { print $1 }')
RC=0
OUT=$(dpkg -r wanbond 2>&1) || RC=$?
[ "$RC" -eq 0 ] || printf '%s\n' "$OUT" | sed 's/^/    /'
nt_expect_true "dpkg -r: exit status 0" [ "$RC" -eq 0 ]
nt_expect_true "dpkg state: config-files (until the purge)" [ "$(package_state)" = config-files ]
# Each path the package had is gone, but a conffile and a directory another package has too (/usr/bin).
left=""
looked=0
while IFS= read -r path; do
	[ "$path" = /. ] && continue
	looked=$((looked + 1))
	[ -e "$path" ] || continue
	grep -qxF -- "$path" <<<"$CONFFILES" && continue
	if [ -d "$path" ] && dpkg-query -S "$path" 2>/dev/null | grep -qv '^wanbond:'; then
		continue
	fi
	left="$left $path"
done <<<"$FILES"
nt_expect_true "nothing of the package's $looked paths left (${left:-none left})" [ -z "$left" ]
# deb-systemd-helper keeps the target's enablement until the purge, so that
# a package installed again comes back enabled (or not) as it was.
nt_expect_true "wanbond.target's enablement kept until the purge" \
	[ -L /etc/systemd/system/multi-user.target.wants/wanbond.target ]

echo "case purge"
RC=0
OUT=$(dpkg -P wanbond 2>&1) || RC=$?
[ "$RC" -eq 0 ] || printf '%s\n' "$OUT" | sed 's/^/    /'
nt_expect_true "dpkg -P: exit status 0" [ "$RC" -eq 0 ]
installed=""
nt_expect_true "dpkg state: not installed" [ "$(package_state)" = not-installed ]
nt_expect_true "wanbond.target's enablement gone" [ ! -L /etc/systemd/system/multi-user.target.wants/wanbond.target ]
AFTER=$(wanbond_paths)
[ "$AFTER" = "$BEFORE" ] || diff <(printf '%s\n' "$BEFORE") <(printf '%s\n' "$AFTER") | sed 's/^/    /'
nt_expect_true "the machine's wanbond paths as before the test" [ "$AFTER" = "$BEFORE" ]

nt_finish
