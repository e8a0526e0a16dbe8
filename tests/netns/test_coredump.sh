#!/usr/bin/env bash
# No core dump of wanbondd (daemon/harden.c): its private key and preshared
# keys are in its memory, and a core file would put them on disk. Started
# with the core size limit raised (ulimit -c unlimited), the daemon runs
# with a limit of 0, soft and hard, and not dumpable. Not dumpable shows
# in /proc: a process of the same user without CAP_SYS_PTRACE (and with at
# least the daemon's capabilities) may open /proc/PID/mem of a dumpable
# process, not of another; and the kernel gives the files of /proc/PID of
# one that is not dumpable to root. Each case has a control, a sleep
# started the same way: dumpable, with no core limit.
#   a. wanbondd --pubkey as nobody, waiting for a key on its standard
#      input; then the key is given and its public key comes out
#   b. a server (wanbondd -c) in a namespace, as root with the systemd
#      unit's three capabilities (CAP_NET_ADMIN, CAP_NET_RAW, CAP_CHOWN),
#      as systemd and procd's ujail start it: its TUN device up, then
#      SIGTERM and exit 0
#
#   vps   a namespace for the server of b
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

NOBODY=65534

nt_init
command -v setpriv >/dev/null || nt_die "missing setpriv (util-linux)"
[ -x "$NT_WANBONDD" ] || nt_die "missing $NT_WANBONDD (run make)"

same() { [ "$1" = "$2" ]; }
# core_limits PID: "SOFT HARD" of its core size limit.
core_limits() { awk '/^Max core file size/ { print $5, $6 }' "/proc/$1/limits"; }
# owner PID: the owner of /proc/PID/status (root's if PID is not dumpable).
owner() { stat -c %u "/proc/$1/status"; }
# started PID COMM: wait until PID runs COMM (after setpriv's exec).
started() { nt_wait_for 5 grep -qx "$2" "/proc/$1/comm"; }
# mem_opens PID READER...: READER (a command prefix) can open /proc/PID/mem.
mem_opens() { local pid=$1; shift; "$@" sh -c "exec 4</proc/$pid/mem" 2>/dev/null; }
mem_closed() { ! mem_opens "$@"; }
# control LABEL READER -- CMD...: a sleep started as CMD starts the daemon, in
# the background, must be dumpable (READER can open its memory), with no core limit.
control() {
	local label=$1 pid reader=(); shift
	while [ "$1" != -- ]; do reader+=("$1"); shift; done
	shift
	"$@" sleep 30 &
	pid=$!
	NT_PIDS+=("$pid")
	started "$pid" sleep
	nt_expect_true "control, $label: core limit unlimited ($(core_limits "$pid"))" \
		same "$(core_limits "$pid")" "unlimited unlimited"
	nt_expect_true "control, $label: dumpable: /proc/PID/mem opens" mem_opens "$pid" "${reader[@]}"
	nt_stop "$pid"
}

# Whatever the machine's default (0 on many), the daemon's start must not be what makes it 0.
ulimit -c unlimited
nt_expect_true "this test's shell: core size limit unlimited" same "$(ulimit -c)" unlimited

echo "a. wanbondd --pubkey as nobody"
# A copy nobody can run, whatever the checkout's directories allow.
chmod 0711 "$NT_TMP"
mkdir -m 0755 "$NT_TMP/bin"
install -m 0755 "$NT_WANBONDD" "$NT_TMP/bin/wanbondd"
AS_NOBODY=(setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups)
nt_wb_keys home
control "a sleep as nobody" "${AS_NOBODY[@]}" -- "${AS_NOBODY[@]}"
# The key comes through a FIFO this shell holds open: the daemon waits in its read.
mkfifo "$NT_TMP/stdin"
exec 3<>"$NT_TMP/stdin"
"${AS_NOBODY[@]}" "$NT_TMP/bin/wanbondd" --pubkey <"$NT_TMP/stdin" >"$NT_TMP/pubkey.out" 2>&1 &
PUB=$!
NT_PIDS+=("$PUB")
started "$PUB" wanbondd
nt_wait_for 5 grep -q pipe "/proc/$PUB/wchan" || true
nt_expect_true "wanbondd --pubkey runs as nobody" grep -qE "^Uid:[[:space:]]+${NOBODY}[[:space:]]" "/proc/$PUB/status"
nt_expect_true "wanbondd --pubkey: core limit 0, soft and hard ($(core_limits "$PUB"))" same "$(core_limits "$PUB")" "0 0"
nt_expect_true "wanbondd --pubkey: not dumpable: nobody cannot open its /proc/PID/mem" mem_closed "$PUB" "${AS_NOBODY[@]}"
nt_expect_true "wanbondd --pubkey: not dumpable: its /proc/PID/status root's (uid $(owner "$PUB"))" same "$(owner "$PUB")" 0
cat "$NT_TMP/home.key" >&3
exec 3>&-
RC=0
wait "$PUB" || RC=$?
nt_expect_range "wanbondd --pubkey: exit status once the key came" "$RC" 0 0
nt_expect_true "wanbondd --pubkey: the public key" cmp -s "$NT_TMP/pubkey.out" "$NT_TMP/home.pub"

echo "b. a server, root with the unit's capabilities"
nt_add_ns vps
nt_wb_keys server
SCONF=$NT_TMP/vps.conf
nt_wb_server_conf "$SCONF" home:10.255.0.1/30:10.1.0.0/24
WITH_UNIT_CAPS=(ip netns exec "$(nt_ns vps)" setpriv --bounding-set "-all,+net_admin,+net_raw,+chown")
# A root that lacks only CAP_SYS_PTRACE: its capabilities hold the daemon's.
NO_PTRACE=(setpriv --bounding-set -sys_ptrace)
control "a sleep as root with the unit's capabilities" "${NO_PTRACE[@]}" -- "${WITH_UNIT_CAPS[@]}"
"${WITH_UNIT_CAPS[@]}" "$NT_WANBONDD" -c "$SCONF" >"$SCONF.log" 2>&1 &
SPID=$!
NT_PIDS+=("$SPID")
# A server's control socket per bond: home's, its one peer.
nt_expect_true "the server is up: home's TUN device, its control socket" \
	nt_wait_for 10 sh -c "ip netns exec '$(nt_ns vps)' ip link show wb-home && test -S '$NT_TMP/ctl-server/home.sock'"
[ -S "$NT_TMP/ctl-server/home.sock" ] || sed 's/^/      /' "$SCONF.log"
nt_expect_true "the server runs with the unit's capabilities alone" \
	grep -qx 'CapEff:[[:space:]]*0000000000003001' "/proc/$SPID/status"
nt_expect_true "the server: core limit 0, soft and hard ($(core_limits "$SPID"))" same "$(core_limits "$SPID")" "0 0"
nt_expect_true "the server: not dumpable: root without CAP_SYS_PTRACE cannot open its /proc/PID/mem" \
	mem_closed "$SPID" "${NO_PTRACE[@]}"
kill -TERM "$SPID"
RC=0
wait "$SPID" || RC=$?
nt_expect_range "the server exits 0 on SIGTERM" "$RC" 0 0

nt_finish
