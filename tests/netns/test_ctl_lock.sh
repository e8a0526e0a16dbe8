#!/usr/bin/env bash
# The control socket cannot be locked: members of control.group (here
# nobody, in nogroup) may read but neither hold every connection nor keep
# one forever, and neither a reused pid nor the socket's directory gives
# anyone more than that (daemon/control.c, peer_cred.c, sockfile.c).
#
#   uplink 1 "dsl" (wan1), a server on the far side, so that dsl is up
#
#   a. under the systemd unit's terms (init/wanbond@.service: its
#      RuntimeDirectoryMode and its CapabilityBoundingSet, as setpriv
#      gives them), with control.group set: the daemon starts, the socket
#      is 0660 and nogroup's, and nobody's `wanbond show` works; killed, it
#      leaves a stale socket, which the next start clears
#   b. the socket's file: a regular file or a symlink in its place is left
#      alone and the start refused, saying why; so is a directory others
#      may write (not one that is sticky) and a directory that is a symlink
#   c. in a pid namespace of its own (so that the test can pick pids):
#      nobody's `wanbond monitor`, then 4 more monitors, of which the
#      daemon refuses 1 (4 at most for unprivileged peers)
#   d. nobody holds 16 more connections: 7 kept (12 of 16 for unprivileged
#      peers, less the 4 monitors and one that asks every 3 s), 9 refused,
#      and nobody's show refused; root's `uplink set dsl down` succeeds
#      and the monitor sees dsl go down; nobody in control.admin_group
#      (staff) may change (a reserved slot)
#   e. the 7 silent connections closed 10 s after their last request
#      (9.5 to 12.5 s); the one asking every 3 s and the monitors stay;
#      nobody's show works again; nobody with CAP_NET_ADMIN but not in
#      the admin group may not change, nor nobody in a user namespace of
#      its own, root there
#   f. a connector that exits, its socket kept by its child, its pid
#      taken by root's process: the child's change is refused, both when
#      the pid is taken after the daemon accepted the connection and
#      before, the daemon stopped meanwhile (a peer is judged by what it
#      was when it connected, never through its pid)
#
# CTL_LOCK_CASES picks some: "unit" (a), "file" (b), "slots" (c to e),
# "pid" (f); all by default.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

CLI=$NT_BUILD/bin/wanbond
PEER=$(realpath -m "$NT_BUILD/tests/tools/ctl_peer")
UNIT=init/wanbond@.service
NOBODY=65534 # nobody, in nogroup (65534), the control group here
ADMIN_GROUP=staff # control.admin_group in c. to f.; nobody is not in it unless given it
CASES=${CTL_LOCK_CASES:-unit file slots pid}
on() { [[ " $CASES " == *" $1 "* ]]; }

nt_init
[ -x "$CLI" ] || nt_die "missing $CLI (run make)"
[ -x "$PEER" ] || nt_die "missing $PEER (run make tool-bins)"
for tool in setpriv nsenter unshare mkfifo; do
	command -v "$tool" >/dev/null || nt_die "missing $tool (util-linux, coreutils)"
done
getent group nogroup >/dev/null || nt_die "no group nogroup"
ADMIN_GID=$(getent group "$ADMIN_GROUP" | cut -d: -f3)
[ -n "$ADMIN_GID" ] || nt_die "no group $ADMIN_GROUP"
CLI=$(realpath "$CLI")
chmod 0711 "$NT_TMP" # nobody reaches the sockets below it, and nothing else

nt_topology 1
nt_uplink_start 1 rate 20mbit delay 5ms limit 40ms seed 1
nt_wb_keys server
nt_wb_keys home
SCONF=$NT_TMP/vps.conf
CCONF=$NT_TMP/home.conf
nt_wb_server_conf "$SCONF" home:10.255.0.1/30:10.1.0.0/24
nt_wb_client_conf "$CCONF" home 10.255.0.2/30 10.2.0.0/24 dsl:wan1
nt_wb_start vps "$SCONF"

# conf_in DIR [GROUP [ADMIN_GROUP]]: a copy of the client's file with its control sockets in DIR; prints its name.
conf_in() {
	local out group=""
	out=$NT_TMP/home-$(basename "$1").conf
	[ -n "${2:-}" ] && group=" group = \"$2\";"
	[ -n "${3:-}" ] && group+=" admin_group = \"$3\";"
	sed "s|^control = .*|control = { directory = \"$1\";$group };|" "$CCONF" >"$out"
	grep -q "directory = \"$1\"" "$out" || nt_die "could not set the control directory in $out"
	echo "$out"
}
AS_NOBODY=(setpriv "--reuid=$NOBODY" "--regid=$NOBODY" --clear-groups)
same() { [ "$1" = "$2" ]; }

# ---- a. the systemd unit's terms ----------------------------------------------------------------
if on unit; then
	echo "a. under the unit's RuntimeDirectoryMode and CapabilityBoundingSet, control.group nogroup"
	MODE=$(sed -n 's/^RuntimeDirectoryMode=//p' "$UNIT")
	CAPS=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
	if [ -z "$MODE" ] || [ -z "$CAPS" ]; then
		nt_die "$UNIT: no RuntimeDirectoryMode= or CapabilityBoundingSet="
	fi
	BSET=$(tr ' ' '\n' <<<"$CAPS" | sed -n 's/^CAP_\(.*\)/+\L\1/p' | paste -sd, -)
	RUNDIR=$NT_TMP/run/wanbond # as systemd makes /run/wanbond: root's, the unit's mode
	mkdir -m 0755 "$NT_TMP/run"
	install -d -m "$MODE" "$RUNDIR"
	UCONF=$(conf_in "$RUNDIR" nogroup)
	unit_daemon() {
		nt_bg router "$UCONF.log" setpriv --bounding-set=-all,"$BSET" "$NT_WANBONDD" -c "$UCONF"
		UPID=$NT_LAST_PID
		nt_wait_log "$UCONF.log" 'client started|control socket' 5 || true
	}
	unit_daemon
	nt_expect_true "the daemon started under bounding set $BSET" test -S "$RUNDIR/home.sock"
	nt_expect_true "it runs with the unit's capabilities only" same \
		"$(grep CapBnd "/proc/$UPID/status" 2>/dev/null)" "$(setpriv --bounding-set=-all,"$BSET" grep CapBnd /proc/self/status)"
	nt_expect_true "the socket: 0660, root and nogroup ($(stat -c '%a %U %G' "$RUNDIR/home.sock" 2>/dev/null))" same \
		"$(stat -c '%a %U %G' "$RUNDIR/home.sock" 2>/dev/null)" "660 root nogroup"
	"${AS_NOBODY[@]}" "$CLI" -d "$RUNDIR" show >"$NT_TMP/a-show.txt" 2>&1 && rc=0 || rc=$?
	nt_expect_range "nobody: show through RuntimeDirectoryMode=$MODE, exit code" "$rc" 0 0
	[ "$rc" -eq 0 ] || sed 's/^/      /' "$NT_TMP/a-show.txt" "$UCONF.log"
	kill -KILL "$UPID" 2>/dev/null || true
	wait "$UPID" 2>/dev/null || true
	nt_expect_true "killed: its socket stays behind" test -S "$RUNDIR/home.sock"
	unit_daemon
	"${AS_NOBODY[@]}" "$CLI" -d "$RUNDIR" show >/dev/null 2>&1 && rc=0 || rc=$?
	nt_expect_range "started again over the stale socket: nobody's show, exit code" "$rc" 0 0
	nt_stop "$UPID"
	nt_expect_true "stopped: the socket removed" test ! -e "$RUNDIR/home.sock"

fi

# ---- b. the socket's file and directory -------------------------------------------------------------
if on file; then
	echo "b. what is in the socket's place, and the directory"
	# refused LABEL DIR PATTERN: a start with its sockets in DIR fails, its log matching PATTERN.
	refused() {
		local conf rc
		conf=$(conf_in "$2")
		nt_run router timeout 5 "$NT_WANBONDD" -c "$conf" >"$conf.log" 2>&1 && rc=0 || rc=$?
		nt_expect_range "$1: the start fails, exit code" "$rc" 1 1
		nt_expect_true "$1: the log says why" grep -qE -- "$3" "$conf.log"
		grep -E 'control socket' "$conf.log" | head -n 1 | sed 's/^/      /'
	}
	mkdir -m 0755 "$NT_TMP/b-file" "$NT_TMP/b-link" "$NT_TMP/b-open" "$NT_TMP/b-sticky" "$NT_TMP/b-real"
	echo precious >"$NT_TMP/b-file/home.sock"
	refused "a regular file at home.sock" "$NT_TMP/b-file" "home.sock is a regular file, not a socket: left alone"
	nt_expect_true "the file is still there, as it was" same "$(cat "$NT_TMP/b-file/home.sock")" precious
	echo secret >"$NT_TMP/victim"
	chmod 0600 "$NT_TMP/victim"
	ln -s "$NT_TMP/victim" "$NT_TMP/b-link/home.sock"
	refused "a symlink at home.sock" "$NT_TMP/b-link" "home.sock is a symlink, not a socket: left alone"
	nt_expect_true "the symlink is still there" test -L "$NT_TMP/b-link/home.sock"
	nt_expect_true "its target unchanged: 0600, root's, its text" same \
		"$(stat -c '%a %U %G' "$NT_TMP/victim") $(cat "$NT_TMP/victim")" "600 root root secret"
	chmod 0777 "$NT_TMP/b-open"
	refused "a directory anyone may write" "$NT_TMP/b-open" "b-open may be written by its group or by others \(mode 0777\) and is not sticky"
	ln -s "$NT_TMP/b-real" "$NT_TMP/b-symdir"
	refused "a directory that is a symlink" "$NT_TMP/b-symdir" "b-symdir: a symlink"
	chmod 1777 "$NT_TMP/b-sticky"
	STCONF=$(conf_in "$NT_TMP/b-sticky")
	nt_bg router "$STCONF.log" "$NT_WANBONDD" -c "$STCONF"
	STPID=$NT_LAST_PID
	nt_wait_for 5 test -S "$NT_TMP/b-sticky/home.sock" && up=1 || up=0
	nt_expect_range "a sticky directory anyone may write: the daemon starts" "$up" 1 1
	nt_stop "$STPID"
fi

# ---- the daemon of c. to f., in a pid namespace of its own ------------------------------------------------
# Its /proc is its namespace's, so its view of pids and the test's choice of
# them (ns_last_pid) agree; every peer below runs in it too (in_pidns), or
# the daemon would see its pid as 0. bash is the namespace's init: it
# reaps what is orphaned there.
CDIR=$NT_TMP/ctl
SOCK=$CDIR/home.sock
MCONF=$(conf_in "$CDIR" nogroup "$ADMIN_GROUP")
MLOG=$MCONF.log
# children PID: the pids of PID's children, as the test sees them.
children() { tr -s ' ' '\n' <"/proc/$1/task/$1/children" | grep .; }
in_pidns() { nsenter --target "$INIT_PID" --pid --mount --net -- "$@"; }
# in_pidns_bg LOG CMD...: in the background; sets NT_LAST_PID (nsenter's, which lives as long as CMD).
in_pidns_bg() { local log=$1; shift; nt_bg router "$log" nsenter --target "$INIT_PID" --pid --mount -- "$@"; }
wb() { in_pidns "$CLI" -d "$CDIR" "$@"; }
json() { wb -j show home | jq -r "$1"; }
dsl_is() { same "$(json '.[0].uplinks[0].state')" "$1"; }
if on slots || on pid; then
	# shellcheck disable=SC2016
	nt_bg router "$MLOG" unshare --pid --fork --mount-proc --kill-child bash -c '"$@" & wait' init "$NT_WANBONDD" -c "$MCONF"
	UNSHARE_PID=$NT_LAST_PID
	nt_wait_log "$MLOG" 'client started' 5 || { cat "$MLOG" >&2; nt_die "the daemon in its pid namespace did not start"; }
	INIT_PID=$(children "$UNSHARE_PID")
	DPID=$(children "$INIT_PID")
	if [ -z "$DPID" ] || [ "$(cat "/proc/$DPID/comm")" != wanbondd ]; then
		nt_die "cannot find the daemon in its pid namespace"
	fi
	nt_wait_for 10 dsl_is up || true
	nt_expect_true "dsl up" dsl_is up
fi

# ---- c. monitors -----------------------------------------------------------------------------------------------
if on slots; then
	echo "c. nobody's monitors"
	in_pidns_bg "$NT_TMP/monitor.txt" "${AS_NOBODY[@]}" "$CLI" -d "$CDIR" monitor home
	MON_PID=$NT_LAST_PID
	nt_wait_log "$MLOG" "a monitor of uid $NOBODY listens" 5 || true
	in_pidns_bg "$NT_TMP/hold-monitors.txt" "${AS_NOBODY[@]}" "$PEER" hold "$SOCK" 4 monitor
	nt_wait_log "$NT_TMP/hold-monitors.txt" '^kept ' 5 || true
	nt_expect_true "4 more monitors: 3 subscribed, 1 refused" grep -qx 'kept 3 refused 1' "$NT_TMP/hold-monitors.txt"
	nt_expect_true "the refusal says why" grep -q 'refusal: Device or resource busy: 4 monitors of peers who may not change things' "$NT_TMP/hold-monitors.txt"

	# ---- d. the slots held ------------------------------------------------------------------------------------------
	echo "d. nobody holds every connection it may"
	in_pidns_bg "$NT_TMP/hold-chatty.txt" "${AS_NOBODY[@]}" "$PEER" hold "$SOCK" 1 every 3000
	nt_wait_log "$NT_TMP/hold-chatty.txt" '^kept ' 5 || true
	nt_expect_true "one connection asking every 3 s: kept" grep -qx 'kept 1 refused 0' "$NT_TMP/hold-chatty.txt"
	in_pidns_bg "$NT_TMP/hold.txt" "${AS_NOBODY[@]}" "$PEER" hold "$SOCK" 16
	nt_wait_log "$NT_TMP/hold.txt" '^kept ' 5 || true
	sed 's/^/      /' "$NT_TMP/hold.txt"
	nt_expect_true "16 more: 7 kept, 9 refused" grep -qx 'kept 7 refused 9' "$NT_TMP/hold.txt"
	nt_expect_true "the refusal says why" grep -q 'refusal: Device or resource busy: the 12 control connections open to peers who may not change things' "$NT_TMP/hold.txt"
	in_pidns "${AS_NOBODY[@]}" "$CLI" -d "$CDIR" show >"$NT_TMP/d-show.txt" 2>&1 && rc=0 || rc=$?
	nt_expect_range "nobody: show refused while they are held, exit code" "$rc" 2 2
	# Whether the daemon closed before or after the CLI's request, the CLI reads the refusal queued before the close.
	nt_expect_true "nobody: show says why" grep -q 'Device or resource busy: the 12 control connections open to peers who may not change things' "$NT_TMP/d-show.txt"
	wb uplink set dsl down >"$NT_TMP/d-root.txt" 2>&1 && rc=0 || rc=$?
	nt_expect_range "root: uplink set dsl down, exit code" "$rc" 0 0
	[ "$rc" -eq 0 ] || sed 's/^/      /' "$NT_TMP/d-root.txt"
	nt_expect_true "root: show says dsl disabled and down" same "$(json '.[0].uplinks[0] | "\(.enabled) \(.state)"')" "false down"
	nt_wait_for 2 grep -q 'home uplink-down dsl' "$NT_TMP/monitor.txt" && seen=1 || seen=0
	nt_expect_range "nobody's monitor: dsl down seen" "$seen" 1 1
	in_pidns setpriv "--reuid=$NOBODY" "--regid=$NOBODY" "--groups=$ADMIN_GID" \
		"$CLI" -d "$CDIR" sched set roundrobin >"$NT_TMP/d-admin.txt" 2>&1 && rc=0 || rc=$?
	nt_expect_range "nobody in $ADMIN_GROUP: sched set roundrobin (a reserved slot), exit code" "$rc" 0 0
	[ "$rc" -eq 0 ] || sed 's/^/      /' "$NT_TMP/d-admin.txt"
	nt_expect_true "show: policy roundrobin" same "$(json '.[0].scheduler.policy')" roundrobin
	wb sched set default >/dev/null 2>&1 || true
	wb uplink set dsl up >/dev/null && rc=0 || rc=$?
	nt_expect_range "root: uplink set dsl up, exit code" "$rc" 0 0
	nt_expect_range "refusals logged, within limits" "$(grep -c "control: connection of uid $NOBODY refused" "$MLOG" || true)" 1 6

	# ---- e. the idle timeout ---------------------------------------------------------------------------------------------
	echo "e. connections without a request for 10 s"
	nt_wait_for 16 grep -qx 'all closed' "$NT_TMP/hold.txt" || true
	sed -n '/^closed\|^notice/p' "$NT_TMP/hold.txt" | sort | uniq -c | head -n 4 | sed 's/^/      /'
	CLOSES=$(grep -oE '^closed after [0-9]+' "$NT_TMP/hold.txt" | awk '{ print $3 }' | sort -n)
	nt_expect_range "all 7 closed by the daemon" "$(grep -c . <<<"$CLOSES")" 7 7
	nt_expect_range "the first, ms after its last request" "$(head -n 1 <<<"$CLOSES")" 9500 12500
	nt_expect_range "the last, ms after its last request" "$(tail -n 1 <<<"$CLOSES")" 9500 12500
	nt_expect_true "they were told why first" grep -q 'notice: Connection timed out: no request for 10 s' "$NT_TMP/hold.txt"
	nt_expect_true "the connection asking every 3 s: still open" sh -c "! grep -q '^closed' '$NT_TMP/hold-chatty.txt'"
	nt_expect_true "the 3 monitors: still open" sh -c "! grep -q '^closed' '$NT_TMP/hold-monitors.txt'"
	nt_expect_true "nobody's wanbond monitor: still running" kill -0 "$MON_PID"
	in_pidns "${AS_NOBODY[@]}" "$CLI" -d "$CDIR" show >/dev/null 2>&1 && rc=0 || rc=$?
	nt_expect_range "nobody: show works again, exit code" "$rc" 0 0
	in_pidns "${AS_NOBODY[@]}" --inh-caps=+net_admin --ambient-caps=+net_admin \
		"$CLI" -d "$CDIR" sched set redundant >"$NT_TMP/e-netadmin.txt" 2>&1 && rc=0 || rc=$?
	nt_expect_range "nobody with CAP_NET_ADMIN, not in $ADMIN_GROUP: sched set, exit code" "$rc" 2 2
	nt_expect_true "it is told why" grep -q 'changes need root or control.admin_group' "$NT_TMP/e-netadmin.txt"
	if in_pidns "${AS_NOBODY[@]}" unshare --user --map-root-user true 2>/dev/null; then
		in_pidns "${AS_NOBODY[@]}" unshare --user --map-root-user \
			"$CLI" -d "$CDIR" sched set redundant >"$NT_TMP/e-userns.txt" 2>&1 && rc=0 || rc=$?
		nt_expect_range "nobody, root of its own user namespace: sched set, exit code" "$rc" 2 2
		nt_expect_true "it is told why" grep -q 'need root or control.admin_group' "$NT_TMP/e-userns.txt"
	else
		echo "      (no user namespaces for nobody here: that case is left out)"
	fi
fi

# ---- f. a pid reused -----------------------------------------------------------------------------------------------------
if on pid; then
	echo "f. a connector's pid taken by root's process"
	# orphan_case TAG LABEL [queued]: the connector's child asks a change after
	# its pid was reused; with queued, the daemon is stopped from before the
	# connect until the pid is reused, so that it accepts after that.
	orphan_case() {
		local label=$2 fifo=$NT_TMP/go-$1 out=$NT_TMP/orphan-$1.txt connector took=0
		mkfifo -m 0666 "$fifo"
		if [ "${3:-}" = queued ]; then kill -STOP "$DPID"; fi
		in_pidns "${AS_NOBODY[@]}" "$PEER" orphan "$SOCK" "$fifo" ${3:+"$3"} >"$out" 2>&1 || true
		connector=$(sed -n 's/^connector //p' "$out")
		[ -n "$connector" ] && reuse "$connector" && took=1
		nt_expect_range "$label: root's process has the connector's pid ${connector:-(none)}" "$took" 1 1
		kill -CONT "$DPID"
		# shellcheck disable=SC2016
		[ -n "$connector" ] && timeout 5 sh -c 'echo go >"$1"' go "$fifo"
		nt_wait_for 5 grep -q '^change:' "$out" || sed 's/^/      /' "$out"
		nt_expect_true "$label: the change is refused ($(sed -n 's/^change: //p' "$out"))" \
			grep -q '^change: refused: Operation not permitted: changes need root or control.admin_group' "$out"
	}
	# reuse PID: starts a process of root's, with every capability, as pid PID of
	# the namespace; 0 if it got it. The write to ns_last_pid comes before the
	# fork: in `a && b &` the whole list would be forked first.
	reuse() {
		local got
		# shellcheck disable=SC2016
		got=$(in_pidns bash -c 'echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid; sleep 30 >/dev/null 2>&1 & echo $!' reuse "$1")
		[ "$got" = "$1" ] && in_pidns grep -q "^Uid:[[:space:]]0" "/proc/$1/status"
	}
	orphan_case after "reused after the accept"
	orphan_case before "reused before the accept (the daemon stopped)" queued
fi

if on slots || on pid; then
	kill -TERM "$DPID"
	wait "$UNSHARE_PID" 2>/dev/null || true
	nt_expect_true "stopped: the control socket removed" test ! -e "$SOCK"
fi
nt_finish
