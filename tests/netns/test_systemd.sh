#!/usr/bin/env bash
# The systemd side of wanbondd, without a running systemd:
#   - the units in init/ pass `systemd-analyze verify` and the offline
#     security review, and `systemctl --root` enables them as documented;
#   - the service unit filters system calls (SystemCallFilter=@system-service,
#     EPERM for the others) and allows no core file (LimitCORE=0);
#   - daemon/notify.c sends what the sd_notify protocol expects, to a path and
#     to an abstract socket, built with libsystemd (notify_probe, when the
#     build found it) and with its own sender (notify_probe-nosd, as on
#     OpenWrt): tests/tools/notify_probe plays systemd's end;
#   - a client and a server run under the unit's system call filter: where
#     systemd runs, systemd-run checks a configuration with the unit's
#     filter; everywhere, tests/tools/syscall_filter applies the same list
#     (systemd-analyze expands the unit's sets) to a real client and server:
#     a session, pings through the tunnel, the CLI, a reload, a clean stop,
#     and no call refused.
#
#   notify  a namespace of its own, so the abstract socket names are private
#   filter  the usual lan, router, vps, srv, with one uplink (a veth pair, no emulator)
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

PROBES=("$NT_BUILD/tests/tools/notify_probe" "$NT_BUILD/tests/tools/notify_probe-nosd")
FILTER=$NT_BUILD/tests/tools/syscall_filter
CLI=$NT_BUILD/bin/wanbond
WATCHDOG_USEC=30000000

nt_init
command -v systemd-analyze >/dev/null || nt_die "missing systemd-analyze (run make deps)"
command -v systemctl >/dev/null || nt_die "missing systemctl (run make deps)"
[ -x "$NT_WANBONDD" ] || nt_die "missing $NT_WANBONDD (run make)"
for p in "${PROBES[@]}" "$FILTER"; do
	[ -x "$p" ] || nt_die "missing $p (run make tool-bins)"
done
[ -x "$CLI" ] || nt_die "missing $CLI (run make)"
command -v "${CC:-gcc}" >/dev/null || nt_die "missing ${CC:-gcc}: it gives the system calls' numbers (run make deps)"
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
# The system call filter and the core limit (what they let through: case filter below).
nt_expect_true "SystemCallFilter=@system-service, the only filter line" same \
	"$(grep '^SystemCallFilter=' "$UNITS/wanbond@.service")" "SystemCallFilter=@system-service"
nt_expect_true "SystemCallErrorNumber=EPERM: a call outside it fails, the daemon is not killed" \
	grep -qx 'SystemCallErrorNumber=EPERM' "$UNITS/wanbond@.service"
nt_expect_true "LimitCORE=0: no core file of the keys in memory" grep -qx 'LimitCORE=0' "$UNITS/wanbond@.service"
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
# exposure (4.3 when written, 2.9 with the system call filter) stays low.
RC=0
OUT=$(systemd-analyze security --offline=yes --threshold=45 "$UNITS/wanbond@home.service" 2>&1) || RC=$?
nt_expect_true "security review: exposure at most 4.5 ($(grep -o 'exposure level.*' <<<"$OUT" | head -n 1))" same "$RC" 0
REVIEW=$(systemd-analyze security --offline=yes --json=short "$UNITS/wanbond@home.service" 2>/dev/null || true)
for setting in NoNewPrivileges= NotifyAccess= ProtectSystem= ProtectHome= PrivateTmp= \
	ProtectKernelModules= ProtectKernelTunables= ProtectKernelLogs= ProtectControlGroups= \
	ProtectClock= ProtectHostname= RestrictRealtime= RestrictSUIDSGID= LockPersonality= \
	MemoryDenyWriteExecute= SystemCallArchitectures= RestrictNamespaces=~net \
	CapabilityBoundingSet=~CAP_SYS_ADMIN CapabilityBoundingSet=~CAP_SYS_MODULE \
	'CapabilityBoundingSet=~CAP_(DAC_*|FOWNER|IPC_OWNER)' RestrictAddressFamilies=~AF_PACKET \
	SystemCallFilter=~@mount SystemCallFilter=~@swap SystemCallFilter=~@reboot SystemCallFilter=~@module \
	SystemCallFilter=~@raw-io SystemCallFilter=~@clock SystemCallFilter=~@debug SystemCallFilter=~@obsolete \
	SystemCallFilter=~@cpu-emulation; do
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

# ---- the unit's system call filter, on a real client and server --------------------------
echo "case filter"
# expand_set NAME...: the system calls of each set (@name, expanded by
# systemd-analyze, sets within sets too) or name, one a line.
expand_set() {
	local item line
	for item in "$@"; do
		case $item in
		@*)
			systemd-analyze syscall-filter "$item" | tail -n +2 | while read -r line; do
				case $line in '#'* | '') ;; @*) expand_set "$line" ;; *) echo "$line" ;; esac
			done
			;;
		*) echo "$item" ;;
		esac
	done
}
# The calls the unit allows, as systemd reads its SystemCallFilter= lines: an
# allow list, to which systemd adds @default; a line with ~ takes its calls away.
FILTER_LINES=$(sed -n 's/^SystemCallFilter=//p' "$UNITS/wanbond@.service")
if [ -z "$FILTER_LINES" ]; then
	# systemd would filter nothing: there is nothing to run under.
	nt_expect_true "the unit has a SystemCallFilter= line" false
	nt_finish
fi
expand_set @default >"$NT_TMP/allowed"
: >"$NT_TMP/denied"
while read -r line; do
	# shellcheck disable=SC2086 # a line is a space-separated list
	case $line in '~'*) expand_set ${line#\~} >>"$NT_TMP/denied" ;; *) expand_set $line >>"$NT_TMP/allowed" ;; esac
done <<<"$FILTER_LINES"
LC_ALL=C sort -u "$NT_TMP/allowed" | LC_ALL=C comm -23 - <(LC_ALL=C sort -u "$NT_TMP/denied") >"$NT_TMP/names"
# Their numbers on this architecture (the names of other ones are left out, as systemd does).
"${CC:-gcc}" -dM -E - <<<'#include <sys/syscall.h>' |
	sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$/\1 \2/p' >"$NT_TMP/numbers"
NRS=$(awk 'NR == FNR { allow[$1] = 1; next } $1 in allow { print $2 }' "$NT_TMP/names" "$NT_TMP/numbers" | paste -sd,)
echo "      the unit allows $(wc -l <"$NT_TMP/names") system calls by name, $(tr ',' '\n' <<<"$NRS" | wc -l) of them on this architecture"
nt_expect_true "the filter's list: read, sendmmsg, recvmmsg, ioctl, epoll_wait, timerfd_create, signalfd4, prctl, setrlimit, fchownat" \
	sh -c "for c in read sendmmsg recvmmsg ioctl epoll_wait timerfd_create signalfd4 prctl setrlimit fchownat; do grep -qx \"\$c\" '$NT_TMP/names' || exit 1; done"
nt_expect_true "the filter's list: not mount, chroot, init_module, reboot, settimeofday, ptrace" \
	sh -c "for c in mount chroot init_module reboot settimeofday ptrace; do ! grep -qx \"\$c\" '$NT_TMP/names' || exit 1; done"

# refused_names LOG: the names of the calls syscall_filter refused ("N name"), or nothing.
refused_names() {
	awk 'NR == FNR { name[$2] = $1; next } $1 == "refused" { print ($2 in name) ? name[$2] : "nr " $2 }' \
		"$NT_TMP/numbers" "$1" | sort | uniq -c | awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }'
}

# A control: a call outside the list fails with EPERM, and is logged.
RC=0
OUT=$("$FILTER" "$NT_TMP/refused-control" "$NRS" -- chroot / true 2>&1) || RC=$?
nt_expect_true "control: chroot under the filter fails ($OUT)" grep -q 'Operation not permitted' <<<"$OUT"
nt_expect_true "control: ... and the refused chroot is logged ($(refused_names "$NT_TMP/refused-control"))" \
	grep -qx "refused $(awk '$1 == "chroot" { print $2 }' "$NT_TMP/numbers") arch .*" "$NT_TMP/refused-control"

# Where systemd runs, it applies the unit's own lines to a check of a file,
# what ExecReload= runs (a daemon that stays is the emulation's, below).
nt_build_base
nt_add_direct_uplink 1
nt_wb_keys server
nt_wb_keys home
SCONF=$NT_TMP/vps.conf
CCONF=$NT_TMP/home.conf
nt_wb_server_conf "$SCONF" home:10.255.0.1/30:10.1.0.0/24
nt_wb_client_conf "$CCONF" home 10.255.0.2/30 10.2.0.0/24 dsl:wan1
if [ -d /run/systemd/system ]; then
	PROPS=(-p SystemCallErrorNumber=EPERM -p SystemCallArchitectures=native -p LimitCORE=0 -p NoNewPrivileges=yes)
	while read -r line; do PROPS+=(-p "SystemCallFilter=$line"); done <<<"$FILTER_LINES"
	RC=0
	OUT=$(systemd-run --quiet --wait --pipe --collect "${PROPS[@]}" "$WANBONDD" --check -c "$CCONF" 2>&1) || RC=$?
	nt_expect_true "systemd-run with the unit's filter: wanbondd --check ($OUT)" same "$RC" 0
else
	echo "  skip  systemd-run with the unit's filter: no systemd runs here (PID 1 is $(cat /proc/1/comm)); tests/tools/syscall_filter applies the same list below"
fi

# The same list, applied by syscall_filter, with EPERM as SystemCallErrorNumber= says.
RC=0
"$FILTER" "$NT_TMP/refused-check" "$NRS" -- "$NT_WANBONDD" --check -c "$CCONF" >"$NT_TMP/check.out" 2>&1 || RC=$?
nt_expect_range "under the filter: wanbondd --check (ExecReload's first line) exits 0" "$RC" 0 0
nt_bg vps "$SCONF.log" "$FILTER" "$NT_TMP/refused-server" "$NRS" -- "$NT_WANBONDD" -c "$SCONF"
SPID=$NT_LAST_PID
nt_bg router "$CCONF.log" "$FILTER" "$NT_TMP/refused-client" "$NRS" -- "$NT_WANBONDD" -c "$CCONF"
CPID=$NT_LAST_PID
nt_expect_true "under the filter: the client's session is established" nt_wait_log "$CCONF.log" 'session established' 10
# The daemon is syscall_filter's child: a filter in force (Seccomp: 2) and no_new_privs, as systemd would set them.
DPID=$(pgrep -P "$CPID" | head -n 1)
nt_expect_true "under the filter: the client daemon runs filtered (Seccomp: 2, NoNewPrivs: 1)" \
	sh -c "grep -qx 'Seccomp:[[:space:]]*2' /proc/$DPID/status && grep -qx 'NoNewPrivs:[[:space:]]*1' /proc/$DPID/status"
nt_expect_true "under the filter: lan pings srv through the tunnel" \
	sh -c "ip netns exec '$(nt_ns lan)' ping -q -n -c 3 -i 0.2 -W 2 10.2.0.2 >/dev/null"
RC=0
OUT=$("$CLI" -d "$NT_TMP/ctl-client" show 2>&1) || RC=$?
# shellcheck disable=SC2016 # $1 and $2 are sh's
nt_expect_true "under the filter: wanbond show answers (the control socket)" \
	sh -c '[ "$1" = 0 ] && printf "%s\n" "$2" | grep -q dsl' _ "$RC" "$OUT"
RC=0
"$CLI" -d "$NT_TMP/ctl-client" uplink set dsl up >/dev/null 2>&1 || RC=$?
nt_expect_range "under the filter: wanbond uplink set (a change, the peer judged)" "$RC" 0 0
RC=0
"$CLI" -d "$NT_TMP/ctl-server" show >/dev/null 2>&1 || RC=$?
nt_expect_range "under the filter: the server's control socket answers" "$RC" 0 0
kill -HUP "$CPID"
nt_expect_true "under the filter: SIGHUP reloads the client" nt_wait_log "$CCONF.log" "reloaded $CCONF" 5
kill -HUP "$SPID"
nt_expect_true "under the filter: SIGHUP reloads the server" nt_wait_log "$SCONF.log" "reloaded $SCONF" 5
nt_expect_true "under the filter: the tunnel still carries pings" \
	sh -c "ip netns exec '$(nt_ns lan)' ping -q -n -c 2 -i 0.2 -W 2 10.2.0.2 >/dev/null"
kill -TERM "$CPID"
RC=0
wait "$CPID" || RC=$?
nt_expect_range "under the filter: the client exits 0 on SIGTERM" "$RC" 0 0
kill -TERM "$SPID"
RC=0
wait "$SPID" || RC=$?
nt_expect_range "under the filter: the server exits 0 on SIGTERM" "$RC" 0 0
for who in check server client; do
	R=$(refused_names "$NT_TMP/refused-$who")
	nt_expect_true "under the filter: no call of the $who refused${R:+ (refused: $R)}" same "$R" ""
done
nt_expect_true "under the filter: no 'Operation not permitted' in the logs" \
	sh -c "! grep -h 'Operation not permitted' '$NT_TMP/check.out' '$SCONF.log' '$CCONF.log'"

nt_finish
