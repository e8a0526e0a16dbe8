#!/usr/bin/env bash
# The systemd side of wanbondd, without a running systemd:
#   - the units in init/ pass `systemd-analyze verify` and the offline
#     security review, and `systemctl --root` enables them as documented;
#   - daemon/notify.c sends what the sd_notify protocol expects, to a path and
#     to an abstract socket, built with libsystemd (notify_probe, when the
#     build found it) and with its own sender (notify_probe-nosd, as on
#     OpenWrt): tests/tools/notify_probe plays systemd's end.
#
#   notify  a namespace of its own, so the abstract socket names are private
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

PROBES=("$NT_BUILD/tests/tools/notify_probe" "$NT_BUILD/tests/tools/notify_probe-nosd")
WATCHDOG_USEC=30000000

nt_init
command -v systemd-analyze >/dev/null || nt_die "missing systemd-analyze (run make deps)"
command -v systemctl >/dev/null || nt_die "missing systemctl (run make deps)"
[ -x "$NT_WANBONDD" ] || nt_die "missing $NT_WANBONDD (run make)"
for p in "${PROBES[@]}"; do
	[ -x "$p" ] || nt_die "missing $p (run make tool-bins)"
done
nt_add_ns notify

same() { [ "$1" = "$2" ]; }
has_line() { grep -Fxq -- "$2" <<<"$1"; }

echo "case units"
# verify wants ExecStart's binary to exist: a copy of the units runs the one just built.
UNITS=$NT_TMP/units
mkdir -p "$UNITS"
WANBONDD=$(realpath "$NT_WANBONDD")
sed "s|^\(Exec[A-Za-z]*\)=/usr/sbin/wanbondd |\1=$WANBONDD |" init/wanbond@.service >"$UNITS/wanbond@.service"
cp init/wanbond.target "$UNITS/"
nt_expect_true "the copy's ExecStart runs $WANBONDD" grep -q "^ExecStart=$WANBONDD -c /etc/wanbond/%i.conf\$" "$UNITS/wanbond@.service"
# systemctl reload fails on a file that does not parse: the check comes before the signal.
nt_expect_true "ExecReload: the check of the unit's file, then the SIGHUP" same \
	"$(grep '^ExecReload=' "$UNITS/wanbond@.service")" \
	"ExecReload=$WANBONDD --check -c /etc/wanbond/%i.conf
ExecReload=/bin/kill -HUP \$MAINPID"
# verify runs man for each Documentation= page: the pages of docs/man, in a
# man directory of the test's own (the Debian package's test checks them
# installed).
mkdir -p "$NT_TMP/man/man8"
cp docs/man/wanbondd.8 docs/man/wanbond.8 "$NT_TMP/man/man8/"
RC=0
OUT=$(MANPATH=$NT_TMP/man systemd-analyze verify "$UNITS/wanbond@.service" "$UNITS/wanbond@home.service" "$UNITS/wanbond.target" 2>&1) || RC=$?
nt_expect_range "systemd-analyze verify: exit status" "$RC" 0 0
# verify exits 0 after warnings (an unknown key, say): any line naming our units is a failure.
OURS=$(grep -c wanbond <<<"$OUT" || true)
[ "$OURS" -eq 0 ] || printf '%s\n' "$OUT" | sed 's/^/    /'
nt_expect_range "systemd-analyze verify: warnings about our units" "$OURS" 0 0

# The offline security review: each protection the unit sets is one systemd
# sees in effect (a misspelt or misplaced line is not), and the overall
# exposure (4.3 when written) stays low.
RC=0
OUT=$(systemd-analyze security --offline=yes --threshold=45 "$UNITS/wanbond@home.service" 2>&1) || RC=$?
nt_expect_true "security review: exposure at most 4.5 ($(grep -o 'exposure level.*' <<<"$OUT" | head -n 1))" same "$RC" 0
REVIEW=$(systemd-analyze security --offline=yes --json=short "$UNITS/wanbond@home.service" 2>/dev/null || true)
for setting in NoNewPrivileges= NotifyAccess= ProtectSystem= ProtectHome= PrivateTmp= \
	ProtectKernelModules= ProtectKernelTunables= ProtectKernelLogs= ProtectControlGroups= \
	ProtectClock= ProtectHostname= RestrictRealtime= RestrictSUIDSGID= LockPersonality= \
	MemoryDenyWriteExecute= SystemCallArchitectures= RestrictNamespaces=~net \
	CapabilityBoundingSet=~CAP_SYS_ADMIN CapabilityBoundingSet=~CAP_SYS_MODULE \
	'CapabilityBoundingSet=~CAP_(DAC_*|FOWNER|IPC_OWNER)' RestrictAddressFamilies=~AF_PACKET; do
	nt_expect_true "security review: $setting in effect" \
		same "$(jq -r --arg n "$setting" '.[] | select(.name == $n) | .set' <<<"$REVIEW" 2>/dev/null)" true
done

# The [Install] sections: an instance goes into wanbond.target, the target into multi-user.
ROOT=$NT_TMP/root
mkdir -p "$ROOT/usr/lib/systemd/system"
cp "$UNITS/wanbond@.service" "$UNITS/wanbond.target" "$ROOT/usr/lib/systemd/system/"
RC=0
systemctl --root="$ROOT" enable wanbond@home.service wanbond.target >/dev/null 2>&1 || RC=$?
nt_expect_range "systemctl --root enable: exit status" "$RC" 0 0
nt_expect_true "enabled: wanbond.target wants wanbond@home.service" \
	test -L "$ROOT/etc/systemd/system/wanbond.target.wants/wanbond@home.service"
nt_expect_true "enabled: multi-user.target wants wanbond.target" \
	test -L "$ROOT/etc/systemd/system/multi-user.target.wants/wanbond.target"
# Restarting the target restarts the instances only through PartOf=, which no tool shows offline.
nt_expect_true "an instance is PartOf=wanbond.target" \
	grep -qx 'PartOf=wanbond.target' "$UNITS/wanbond@.service"

# run VAR=VALUE... CMD...: CMD in the namespace with none of the service
# manager's variables but those given (the test may itself run under
# systemd); sets OUT (stdout), ERR (stderr) and RC.
run() {
	RC=0
	OUT=$(nt_run notify env -u NOTIFY_SOCKET -u WATCHDOG_USEC -u WATCHDOG_PID "$@" 2>"$NT_TMP/stderr") || RC=$?
	ERR=$(cat "$NT_TMP/stderr")
}

# expect_sequence LABEL: OUT holds the datagrams of `notify_probe send`, in order, and nothing else.
expect_sequence() {
	local label=$1 want got
	want='datagram READY=1\nSTATUS=x
datagram STATUS=up 2
datagram WATCHDOG=1
datagram RELOADING=1\nMONOTONIC_USEC=123456789
datagram STATUS=a MAINPID=1
datagram STOPPING=1'
	got=$(grep '^datagram ' <<<"$OUT" || true)
	nt_expect_true "$label: READY=1 with STATUS=x" has_line "$got" 'datagram READY=1\nSTATUS=x'
	nt_expect_true "$label: STATUS=up 2" has_line "$got" 'datagram STATUS=up 2'
	nt_expect_true "$label: WATCHDOG=1" has_line "$got" 'datagram WATCHDOG=1'
	nt_expect_true "$label: RELOADING=1 with MONOTONIC_USEC" has_line "$got" 'datagram RELOADING=1\nMONOTONIC_USEC=123456789'
	nt_expect_true "$label: a newline in a status is a space" has_line "$got" 'datagram STATUS=a MAINPID=1'
	nt_expect_true "$label: STOPPING=1" has_line "$got" 'datagram STOPPING=1'
	nt_expect_true "$label: those 6, in order, nothing else" same "$got" "$want"
	nt_expect_true "$label: the sender exited 0" has_line "$OUT" 'exit 0'
	nt_expect_true "$label: nothing on standard error" same "$ERR" ""
}

for probe in "${PROBES[@]}"; do
	run "$probe" send
	impl=$(sed -n 's/^impl=//p' <<<"$OUT")
	echo "case notify, $(basename "$probe") ($impl)"
	case $probe in
	*-nosd) nt_expect_true "$(basename "$probe") has the own sender" same "$impl" builtin ;;
	esac

	run WATCHDOG_USEC=$WATCHDOG_USEC "$probe" collect "$NT_TMP/notify.sock" "$probe" send
	expect_sequence "path socket"
	nt_expect_true "WATCHDOG_USEC=$WATCHDOG_USEC, no WATCHDOG_PID: the interval in ns" \
		has_line "$OUT" "watchdog_ns=${WATCHDOG_USEC}000"

	run "$probe" collect "@wbt-notify-$$" "$probe" send
	expect_sequence "abstract socket"
	nt_expect_true "no WATCHDOG_USEC: no watchdog" has_line "$OUT" "watchdog_ns=0"

	# sh's own pid, which exec hands to the probe.
	# shellcheck disable=SC2016
	run WATCHDOG_USEC=$WATCHDOG_USEC sh -c 'export WATCHDOG_PID=$$; exec "$0" send' "$probe"
	nt_expect_true "WATCHDOG_PID is the process: the interval" has_line "$OUT" "watchdog_ns=${WATCHDOG_USEC}000"
	run WATCHDOG_USEC=$WATCHDOG_USEC WATCHDOG_PID=1 "$probe" send
	nt_expect_true "WATCHDOG_PID is another process: no watchdog" has_line "$OUT" "watchdog_ns=0"
	run WATCHDOG_USEC=soon "$probe" send
	nt_expect_true "WATCHDOG_USEC not a number: no watchdog" has_line "$OUT" "watchdog_ns=0"

	run "$probe" send
	nt_expect_range "no NOTIFY_SOCKET: exit status" "$RC" 0 0
	nt_expect_true "no NOTIFY_SOCKET: nothing on standard error" same "$ERR" ""

	run NOTIFY_SOCKET="$NT_TMP/nobody.sock" "$probe" send
	nt_expect_range "nobody listening: exit status" "$RC" 0 0
	nt_expect_range "nobody listening: 6 failures, warned once" "$(grep -c '^<4>service manager: cannot notify' <<<"$ERR" || true)" 1 1
	nt_expect_range "nobody listening: no other line on standard error" "$(grep -vc '^<4>service manager: cannot notify' <<<"$ERR" || true)" 0 0
done

nt_finish
