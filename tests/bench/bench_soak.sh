#!/usr/bin/env bash
# The soak: both daemons, built with ASan+UBSan, run for SOAK_SECS (1200)
# over three emulated uplinks while traffic flows both ways and faults come
# on a schedule; at the end no transfer may have lost a byte, no daemon's
# memory may have grown, no clean exit may have leaked and no sanitizer may
# have spoken.
#
#   uplink 1 "dsl" (wan1): 20 Mbit/s, 10 ms one way, 0.1% loss, 50 ms queue
#   uplink 2 "lte" (wan2): 10 Mbit/s, 20 ms +- 2 ms one way, 0.5% loss, 60 ms queue
#   uplink 3 "sat" (wan3):  5 Mbit/s, 35 ms one way, 0.3% loss, 100 ms queue
#
# All along:
#   - rounds: a file of 2 to 6 MB each way at once, lan -> srv and srv -> lan
#     through the tunnel, each checked by its sha256, one second apart;
#   - a ping lan -> srv every 0.2 s;
#   - every SAMPLE_SECS, each daemon's VmRSS (/proc/PID/status) and its own
#     memory figure (`wanbond -j show`, `memory`), into memory.csv.
# Faults, one at a time, GAP_SECS of quiet after each once every uplink is up
# again on both ends (which must happen within RECOVER_SECS):
#   - an uplink lost and back (its emulator stopped, started again);
#   - `wanbond uplink set NAME down`, then `up` (the CLI);
#   - a SIGHUP reload of both daemons with an edited file (a weight on the
#     client, a scheduler rule on the server);
#   - every uplink lost for 4 s;
#   - an uplink flapping: down 1.5 s, up 1.5 s, five times;
#   - at 10, 25, 45 and 65% of the run, instead: the server killed (SIGKILL)
#     and started again, the server stopped (SIGTERM) and started again, the
#     client stopped, the client killed.
# At the end both daemons are stopped with SIGTERM, and the checks:
#   - every transfer kept its sha256 (rounds done, bytes moved, failures 0);
#   - the tunnel answered a ping within RECOVER_SECS of the end of every fault;
#   - memory: per incarnation of a daemon that lasted at least a quarter of
#     the run, the median of the last quarter of its samples is within a
#     margin of the second quarter's, for VmRSS and for the daemon's figure
#     (the margins and why are below, at RSS_MARGIN_* and MEM_MARGIN_*);
#   - every clean exit (SIGTERM) has an empty LeakSanitizer report and exit
#     status 0, and a small program that does leak (and one that overflows)
#     is caught the same way (so the check can fail);
#   - no AddressSanitizer or UndefinedBehaviorSanitizer error in any log
#     (ASan's reports in sanitizer/SIDE.PID, UBSan's in the daemon's log
#     SIDE.N.log; halt_on_error on: a sanitizer error ends the daemon, which
#     is counted as a failure and started again).
# A summary table, the checks, and the exit status. memory.csv, rounds.csv,
# faults.csv, incarnations.csv and every log are kept in
# BUILD/bench/soak/ after the run.
#
# Why ASan+UBSan rather than valgrind: see docs/testing.md ("The soak").
#
#   make bench BENCH=soak                  the full 20 minutes
#   make bench BENCH=soak SOAK_SECS=180    a short one (at least 120 s)
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

SOAK_SECS=${SOAK_SECS:-1200}
case $SOAK_SECS in '' | *[!0-9]*) nt_die "SOAK_SECS=$SOAK_SECS: a whole number of seconds" ;; esac
[ "$SOAK_SECS" -ge 120 ] || nt_die "SOAK_SECS=$SOAK_SECS: at least 120, to fit every kind of fault"
SHORT=$((SOAK_SECS < 600 ? 1 : 0))
SAMPLE_SECS=${SAMPLE_SECS:-$((SHORT ? 2 : 5))}
GAP_SECS=${GAP_SECS:-$((SHORT ? 4 : 15))}
RECOVER_SECS=${RECOVER_SECS:-10}
ROUND_MAX_SECS=180   # a round not done by then has failed (the senders give up at 150 s)
SAN_BUILD=${SAN_BUILD:-$NT_BUILD/soak-san}
OUT=$(realpath -m "$NT_BUILD/bench/soak")
CLI=$NT_BUILD/bin/wanbond
WBD=$SAN_BUILD/bin/wanbondd
SRV=10.2.0.2
LAN=10.1.0.2

# The memory margins: the median of the last quarter of an incarnation's
# samples may be at most PCT% plus KB above the median of its second quarter.
# - VmRSS. Under ASan it creeps up though the daemon does not grow: a freed
#   block waits in ASan's quarantine (2 MB here, see san_env) before it can be
#   used again, and the running daemon frees only 1-3 KB/s, so for a quarter of
#   an hour or more of an incarnation new blocks come from fresh memory, up to
#   the quarantine's size. In our 20-minute run that was 0.9 to 1.4 MiB from the
#   second quarter's median to the last's; the normal build over the same
#   uplinks, with steady traffic and CLI reads, stayed within 50 KB after its
#   first minute. A new high-water mark of the bond's pools (a fault that holds
#   more in flight than any before) adds a step of a few hundred KB. 10% plus 4
#   MiB (about 6 MiB for these daemons) is about four times the creep: over a
#   full run, with the medians 200 to 450 s apart, it catches growth above 15 to
#   30 KB/s, such as a block kept per data packet or per ack. Slower growth of
#   memory still reachable (a block per probe) passes; a block no longer
#   reachable is LeakSanitizer's to find at the clean exits. A short run has its
#   medians closer together and is less sensitive: a daemon changed to leak 64
#   bytes per datagram received failed it in a 150 s run on the server's long
#   incarnation, not on the client's (and failed LeakSanitizer at every clean
#   exit).
# - the daemon's figure counts the bond's own structures (packet pool, rings,
#   per-uplink recovery state) by their capacity; they grow by chunks of 256
#   packets and by doubling up to bounds set by the buffers, and never
#   shrink, so once warm it only steps up at a new peak (it was flat at 2.2
#   MiB from the first minutes in our runs). 25% plus 1 MiB allows such a
#   step (a ring doubling, a few chunks) but not a structure that keeps
#   growing.
RSS_MARGIN_PCT=10 RSS_MARGIN_KB=4096
MEM_MARGIN_PCT=25 MEM_MARGIN_KB=1024

# ---- the sanitized daemon ------------------------------------------------------
# make bench builds only the normal build; this one goes to its own directory.
echo "soak: building wanbondd with ASan+UBSan in $SAN_BUILD"
make -s BUILD="$SAN_BUILD" SAN=1 "$WBD" || nt_die "the sanitized build failed"
readelf -d "$WBD" | grep -q 'NEEDED.*libasan' && readelf -d "$WBD" | grep -q 'NEEDED.*libubsan' ||
	nt_die "$WBD is not linked with ASan and UBSan"

nt_init
[ -x "$CLI" ] || nt_die "missing $CLI (run make)"
for tool in perl sha256sum readelf cmp; do
	command -v "$tool" >/dev/null || nt_die "missing $tool"
done
SAN_DIR=$NT_TMP/sanitizer
mkdir -p "$SAN_DIR" "$NT_TMP/canary"
MEMCSV=$NT_TMP/memory.csv
ROUNDSCSV=$NT_TMP/rounds.csv
FAULTSCSV=$NT_TMP/faults.csv
INCCSV=$NT_TMP/incarnations.csv
FAILURES=$NT_TMP/failures.txt
echo "t_s,daemon,incarnation,pid,vmrss_kb,memory_bytes" >"$MEMCSV"
echo "round,start_s,secs,up_bytes,up_ok,down_bytes,down_ok" >"$ROUNDSCSV"
echo "fault,kind,what,start_s,end_s,end_epoch_ms,uplinks_back_ms" >"$FAULTSCSV"
echo "daemon,incarnation,pid,start_s,end_s,ended_by,status" >"$INCCSV"
: >"$FAILURES"

# Everything the run wrote is kept in $OUT (the temporary directory goes at exit).
save_results() {
	rm -rf "$OUT"
	mkdir -p "$OUT"
	(cd "$NT_TMP" && cp -r ./*.csv ./*.log ./*.conf ./*.txt sanitizer failed-round-* "$OUT"/ 2>/dev/null)
	return 0
}
trap 'rc=$?; set +e; save_results; (exit $rc); nt_cleanup' EXIT

# ---- time and processes --------------------------------------------------------
NOW_MS=0
tick() { local t=${EPOCHREALTIME/./}; NOW_MS=$((t / 1000)); }
tick
T0_MS=$NOW_MS
# secs EPOCH_MS: seconds since the start of the soak, to the millisecond.
secs() {
	local d=$(($1 - T0_MS)) sign=""
	[ "$d" -ge 0 ] || { sign=-; d=$((-d)); }
	printf '%s%d.%03d' "$sign" $((d / 1000)) $((d % 1000))
}

# alive PID: a process this script started (its parent is this shell) that
# has not exited. The machine's PIDs wrap (pid_max 32768) within a long run:
# a number alone is not enough to signal a process by.
alive() {
	local st rest
	[ -n "$1" ] || return 1
	read -r st 2>/dev/null </proc/"$1"/stat || return 1
	rest=${st##*) }
	# shellcheck disable=SC2086 # the fields of the line, split on purpose
	set -- $rest
	[ "$2" = "$$" ] && [ "$1" != Z ]
}
# prune: keep only live processes in lib.sh's list, so that its teardown
# signals nothing that has been reaped (and whose number may be reused).
prune() {
	local keep=() p
	for p in "${NT_PIDS[@]}"; do alive "$p" && keep+=("$p"); done
	NT_PIDS=("${keep[@]}")
}
# stop_if_alive PID: end and reap a process of ours, if it still runs.
stop_if_alive() { if alive "$1"; then nt_stop "$1"; fi; return 0; }

FAILS=0
# fail TEXT: a failure, said now and listed at the end.
fail() {
	tick
	FAILS=$((FAILS + 1))
	printf '%9s s  FAIL: %s\n' "$(secs "$NOW_MS")" "$1" | tee -a "$FAILURES"
}

# ---- topology, uplinks ---------------------------------------------------------
nt_topology 3
UPLINK_NAME=(- dsl lte sat)
UPLINK_ARGS=(-
	"rate 20mbit delay 10ms loss 0.1% limit 50ms seed 1"
	"rate 10mbit delay 20ms jitter 2ms loss 0.5% limit 60ms seed 2"
	"rate 5mbit delay 35ms loss 0.3% limit 100ms seed 3")
# shellcheck disable=SC2086
uplink_start() { nt_uplink_start "$1" ${UPLINK_ARGS[$1]}; }
uplink_stop() { nt_uplink_stop "$1"; }
for k in 1 2 3; do uplink_start "$k"; done

nt_wb_keys server
nt_wb_keys home
SCONF=$NT_TMP/vps.conf
CCONF=$NT_TMP/home.conf
nt_wb_server_conf "$SCONF" home:10.255.0.1/30:10.1.0.0/24
nt_wb_client_conf "$CCONF" home 10.255.0.2/30 10.2.0.0/24 dsl:wan1 lte:wan2 sat:wan3
# The weight that each reload changes.
sed -i 's/interface = "wan3";/interface = "wan3"; weight = 1;/' "$CCONF"
grep -q 'weight = 1;' "$CCONF" || nt_die "cannot set sat's weight in $CCONF"

# ---- the sanitizers --------------------------------------------------------------
# ASan's and LeakSanitizer's reports go to a file per process (log_path:
# PREFIX.PID). UBSan's runtime (libubsan, beside libasan in gcc's build) does
# not take log_path there: it reports on standard error, which is the log of
# that incarnation of the daemon. The first error ends the process
# (halt_on_error, and the build's -fno-sanitize-recover; abort_on_error off:
# an exit, no core),
# LeakSanitizer runs at exit, and atexit=1 writes ASan's exit statistics
# there too: a clean exit leaves a report file, so a missing one is seen.
# quarantine_size_mb=2: ASan keeps freed blocks out of use for a while to
# catch a use after free. The daemon frees about 3 MB as it starts (OpenSSL's
# set-up) and 1-3 KB/s after that, so the default quarantine (256 MB) would
# fill for the whole run and the RSS climb with it like a leak; 2 MB bounds
# that creep (see the memory margins) and still holds a quarter of an hour
# of the running daemon's frees.
san_env() {
	printf '%s\n' "ASAN_OPTIONS=log_path=$1:halt_on_error=1:abort_on_error=0:detect_leaks=1:atexit=1:quarantine_size_mb=2" \
		"UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
}
SAN_ERRORS='ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)|runtime error:|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer'

# The canaries: a program built and run as the daemons are, that leaks (no
# argument) or overflows a signed int (an argument), must be caught and
# reported where the daemons' reports go, or an empty report would prove
# nothing.
cat >"$NT_TMP/canary/canary.c" <<'C'
#include <limits.h>
#include <stdlib.h>
void *volatile kept;
volatile int big = INT_MAX;
int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return big + argc;
	kept = malloc(4242);
	kept = 0;
	return 0;
}
C
${CC:-gcc} -O0 -g -fsanitize=address,undefined -fno-sanitize-recover=all -o "$NT_TMP/canary/canary" \
	"$NT_TMP/canary/canary.c" || nt_die "cannot build the sanitizer canary"
mapfile -t canary_env < <(san_env "$NT_TMP/canary/leak")
rc_leak=0
nt_run router env "${canary_env[@]}" "$NT_TMP/canary/canary" || rc_leak=$?
mapfile -t canary_env < <(san_env "$NT_TMP/canary/overflow")
rc_overflow=0
nt_run router env "${canary_env[@]}" "$NT_TMP/canary/canary" overflow 2>"$NT_TMP/canary/overflow.log" ||
	rc_overflow=$?
CANARY_LEAK=0 CANARY_UB=0
[ "$rc_leak" -ne 0 ] && grep -qs 'ERROR: LeakSanitizer: detected memory leaks' "$NT_TMP"/canary/leak.[0-9]* &&
	grep -qs '4242 byte' "$NT_TMP"/canary/leak.[0-9]* && CANARY_LEAK=1
[ "$rc_overflow" -ne 0 ] && grep -qs 'runtime error: signed integer overflow' "$NT_TMP/canary/overflow.log" &&
	CANARY_UB=1

# ---- the daemons -------------------------------------------------------------------
declare -A PID=() INC=() T_START=() NSOF=([server]=vps [client]=router) \
	CONF=([server]=$SCONF [client]=$CCONF) CTL=([server]=$NT_TMP/ctl-server [client]=$NT_TMP/ctl-client) \
	CLEAN_EXITS=([server]=0 [client]=0) DIED=([server]=0 [client]=0)
LEAK_REPORTS=0
LEAKED_BYTES=0

start_daemon() {
	local side=$1 n env
	n=$((${INC[$side]:-0} + 1))
	INC[$side]=$n
	mapfile -t env < <(san_env "$SAN_DIR/$side")
	nt_bg "${NSOF[$side]}" "$NT_TMP/$side.$n.log" env "${env[@]}" "$WBD" -c "${CONF[$side]}"
	PID[$side]=$NT_LAST_PID
	tick
	T_START[$side]=$NOW_MS
}

# end_incarnation SIDE HOW STATUS: the incarnation's line in incarnations.csv.
end_incarnation() {
	tick
	echo "$1,${INC[$1]},${PID[$1]},$(secs "${T_START[$1]}"),$(secs "$NOW_MS"),$2,$3" >>"$INCCSV"
}

# check_clean_exit SIDE PID STATUS: after SIGTERM, exit status 0 and a
# sanitizer report with ASan's exit statistics and no error.
check_clean_exit() {
	local side=$1 pid=$2 rc=$3 f=$SAN_DIR/$1.$2 what="$1 incarnation ${INC[$1]} (pid $2)"
	CLEAN_EXITS[$side]=$((${CLEAN_EXITS[$side]} + 1))
	[ "$rc" -eq 0 ] || fail "$what: exit status $rc after SIGTERM"
	if [ ! -f "$f" ]; then
		fail "$what: no sanitizer report at its exit ($f)"
	elif grep -q 'ERROR: LeakSanitizer' "$f"; then
		LEAK_REPORTS=$((LEAK_REPORTS + 1))
		LEAKED_BYTES=$((LEAKED_BYTES + $(awk '/^SUMMARY: .* leaked in/ { print $3 }' "$f" | head -n 1)))
		fail "$what: LeakSanitizer reports a leak at its clean exit: $(grep '^SUMMARY' "$f")"
	elif ! grep -q 'AddressSanitizer exit stats' "$f"; then
		fail "$what: its sanitizer report has no exit statistics: did LeakSanitizer run?"
	fi
}

# stop_daemon SIDE SIGNAL: end that daemon and reap it.
stop_daemon() {
	local side=$1 sig=$2 pid=${PID[$1]} rc=0
	alive "$pid" && kill "-$sig" "$pid"
	# (bash's own "Killed" notice of the job is not wanted: stderr is dropped)
	{
		for _ in $(seq 600); do
			alive "$pid" || break
			sleep 0.1
		done
		if alive "$pid"; then
			fail "$side (pid $pid) still runs 60 s after SIG$sig: killed"
			kill -KILL "$pid"
		fi
		wait "$pid" || rc=$?
	} 2>/dev/null
	end_incarnation "$side" "$sig" "$rc"
	[ "$sig" = TERM ] && check_clean_exit "$side" "$pid" "$rc"
	PID[$side]=""
	return 0
}

# daemons_alive: a daemon that ended by itself (a sanitizer's halt, a crash)
# is a failure; it is started again so that the soak goes on.
daemons_alive() {
	local side rc
	for side in server client; do
		[ -n "${PID[$side]}" ] && ! alive "${PID[$side]}" || continue
		rc=0
		wait "${PID[$side]}" || rc=$?
		end_incarnation "$side" died "$rc"
		DIED[$side]=$((${DIED[$side]} + 1))
		fail "$side incarnation ${INC[$side]} (pid ${PID[$side]}) ended by itself, status $rc (log $side.${INC[$side]}.log, sanitizer/$side.${PID[$side]})"
		start_daemon "$side"
	done
}

# json SIDE: `wanbond -j show` of that daemon (empty if it does not answer).
json() { "$CLI" -j -d "${CTL[$1]}" show 2>/dev/null || true; }

# uplinks_up: every uplink up (and switched on) as the client sees it, and
# all three up at the server.
uplinks_up() {
	local c s
	c=$(json client | jq -r '[.[].uplinks[]] | length == 3 and all(.state == "up" and .enabled)' 2>/dev/null || true)
	s=$(json server | jq -r '[.[].uplinks[]] | length == 3 and all(.state == "up")' 2>/dev/null || true)
	[ "$c" = true ] && [ "$s" = true ]
}

# ---- memory samples ------------------------------------------------------------------
NEXT_SAMPLE_MS=$NOW_MS
sample() {
	local side pid rss mem
	for side in server client; do
		pid=${PID[$side]}
		[ -n "$pid" ] || continue
		rss=$(awk '$1 == "VmRSS:" { print $2 }' /proc/"$pid"/status 2>/dev/null || true)
		mem=$(json "$side" | jq '[.[].memory] | add // empty' 2>/dev/null || true)
		echo "$(secs "$NOW_MS"),$side,${INC[$side]},$pid,$rss,$mem" >>"$MEMCSV"
	done
	NEXT_SAMPLE_MS=$((NEXT_SAMPLE_MS + SAMPLE_SECS * 1000))
	[ "$NEXT_SAMPLE_MS" -gt "$NOW_MS" ] || NEXT_SAMPLE_MS=$((NOW_MS + SAMPLE_SECS * 1000))
}

# ---- transfer rounds -----------------------------------------------------------------
# send NAME ADDR PORT FILE: FILE over TCP from NAME. Unlike nt_tcp_send it
# tries to connect again for up to 150 s: a connect while a daemon is away
# meets "no route" (the router's route into the tunnel goes with its TUN
# device) and fails at once, which says nothing about the bond.
send() {
	# shellcheck disable=SC2016
	nt_bg "$1" "$NT_TMP/send-$3.log" timeout 170 perl -MIO::Socket::INET -e '
		my ($addr, $port, $file, $secs) = @ARGV;
		my ($end, $tries, $s) = (time + $secs, 0);
		until ($s = IO::Socket::INET->new(PeerAddr => $addr, PeerPort => $port, Proto => "tcp", Timeout => 5)) {
			die "connect: $! after $tries tries\n" if time >= $end;
			$tries++;
			select(undef, undef, undef, 0.5);
		}
		open(my $f, "<", $file) or die "$file: $!\n";
		binmode $f;
		my ($buf, $n, $total) = ("", 0, 0);
		while (($n = sysread($f, $buf, 65536))) {
			for (my $off = 0; $off < $n;) {
				my $w = syswrite($s, $buf, $n - $off, $off);
				die "send: $!\n" unless defined $w;
				$off += $w;
			}
			$total += $n;
		}
		close $s or die "close: $!\n";
		print "sent $total, $tries connects refused\n";' "$2" "$3" "$4" 150
}

ROUND=0 ROUND_ACTIVE=0 ROUND_T0=0 NEXT_ROUND_MS=0 ROUNDS_OK=0 TRANSFERS_FAILED=0
BYTES_UP=0 BYTES_DOWN=0 UP_SIZE=0 DOWN_SIZE=0
SINK_UP="" SINK_DOWN="" SEND_UP="" SEND_DOWN=""
ROUNDS_OPEN=1   # no new round once the soak's time is up

round_start() {
	ROUND=$((ROUND + 1))
	UP_SIZE=$(((2 + RANDOM % 5) * 1048576 + RANDOM))
	DOWN_SIZE=$(((2 + RANDOM % 5) * 1048576 + RANDOM))
	head -c "$UP_SIZE" /dev/urandom >"$NT_TMP/up.bin"
	head -c "$DOWN_SIZE" /dev/urandom >"$NT_TMP/down.bin"
	rm -f "$NT_TMP/up.got" "$NT_TMP/down.got"
	nt_tcp_sink srv "$SRV" 6001 "$NT_TMP/up.got"
	SINK_UP=$NT_LAST_PID
	nt_tcp_sink lan "$LAN" 6002 "$NT_TMP/down.got"
	SINK_DOWN=$NT_LAST_PID
	send lan "$SRV" 6001 "$NT_TMP/up.bin"
	SEND_UP=$NT_LAST_PID
	send srv "$LAN" 6002 "$NT_TMP/down.bin"
	SEND_DOWN=$NT_LAST_PID
	tick
	ROUND_T0=$NOW_MS
	ROUND_ACTIVE=1
}

# intact FILE SIZE: the received copy of FILE has SIZE bytes and its sha256.
intact() {
	[ -f "$NT_TMP/$1.got" ] && [ "$(stat -c %s "$NT_TMP/$1.got")" -eq "$2" ] &&
		[ "$(sha256sum <"$NT_TMP/$1.bin")" = "$(sha256sum <"$NT_TMP/$1.got")" ]
}

# keep_failed_round DIR: the evidence of a failed transfer.
keep_failed_round() {
	local d=$NT_TMP/failed-round-$ROUND f
	mkdir -p "$d"
	cp "$NT_TMP"/sink-600[12].log "$NT_TMP"/send-600[12].log "$d"/ 2>/dev/null || true
	for f in up down; do
		{
			echo "$f: sent $(stat -c %s "$NT_TMP/$f.bin" 2>/dev/null) bytes, received $(stat -c %s "$NT_TMP/$f.got" 2>/dev/null || echo none)"
			cmp "$NT_TMP/$f.bin" "$NT_TMP/$f.got" 2>&1 | head -n 3
		} >>"$d/what.txt"
	done
}

round_poll() {
	local up_ok=0 down_ok=0 p
	if [ "$ROUND_ACTIVE" -eq 0 ]; then
		[ "$ROUNDS_OPEN" -eq 1 ] && [ "$NOW_MS" -ge "$NEXT_ROUND_MS" ] && round_start
		return 0
	fi
	if alive "$SINK_UP" || alive "$SINK_DOWN"; then
		[ $((NOW_MS - ROUND_T0)) -lt $((ROUND_MAX_SECS * 1000)) ] && return 0
		fail "round $ROUND: not done after $ROUND_MAX_SECS s"
	fi
	for p in "$SEND_UP" "$SEND_DOWN" "$SINK_UP" "$SINK_DOWN"; do stop_if_alive "$p"; done
	intact up "$UP_SIZE" && up_ok=1
	intact down "$DOWN_SIZE" && down_ok=1
	[ "$up_ok" -eq 1 ] && BYTES_UP=$((BYTES_UP + UP_SIZE))
	[ "$down_ok" -eq 1 ] && BYTES_DOWN=$((BYTES_DOWN + DOWN_SIZE))
	if [ "$up_ok" -eq 1 ] && [ "$down_ok" -eq 1 ]; then
		ROUNDS_OK=$((ROUNDS_OK + 1))
	else
		TRANSFERS_FAILED=$((TRANSFERS_FAILED + 2 - up_ok - down_ok))
		keep_failed_round
		fail "round $ROUND: lan -> srv $UP_SIZE B $([ $up_ok -eq 1 ] && echo intact || echo BROKEN), srv -> lan $DOWN_SIZE B $([ $down_ok -eq 1 ] && echo intact || echo BROKEN) (failed-round-$ROUND/)"
	fi
	tick
	echo "$ROUND,$(secs "$ROUND_T0"),$(secs $((T0_MS + NOW_MS - ROUND_T0))),$UP_SIZE,$up_ok,$DOWN_SIZE,$down_ok" >>"$ROUNDSCSV"
	ROUND_ACTIVE=0
	NEXT_ROUND_MS=$((NOW_MS + 1000))
}

# ---- the loop's chores, and waiting while doing them ---------------------------------
NEXT_PROGRESS_MS=$((T0_MS + 60000))
housekeeping() {
	tick
	daemons_alive
	round_poll
	tick
	[ "$NOW_MS" -ge "$NEXT_SAMPLE_MS" ] && sample
	if [ "$NOW_MS" -ge "$NEXT_PROGRESS_MS" ]; then
		NEXT_PROGRESS_MS=$((NEXT_PROGRESS_MS + 60000))
		printf '%9s s  rounds %d intact, %d transfers failed; %d MB up, %d MB down\n' "$(secs "$NOW_MS")" \
			"$ROUNDS_OK" "$TRANSFERS_FAILED" $((BYTES_UP / 1000000)) $((BYTES_DOWN / 1000000))
	fi
	prune
	return 0
}

# idle MS: the chores for that long.
idle() {
	tick
	local until=$((NOW_MS + $1))
	while :; do
		housekeeping
		[ "$NOW_MS" -lt "$until" ] || break
		sleep 0.2
	done
}

# await_recovery: until every uplink is up at both ends (at most
# RECOVER_SECS); sets BACK_MS to how long that took (-1: not in time).
BACK_MS=0
await_recovery() {
	tick
	local t0=$NOW_MS
	while :; do
		if uplinks_up; then
			tick
			BACK_MS=$((NOW_MS - t0))
			return 0
		fi
		housekeeping
		[ $((NOW_MS - t0)) -lt $((RECOVER_SECS * 1000)) ] || break
		sleep 0.25
	done
	BACK_MS=-1
	fail "not every uplink up at both ends $RECOVER_SECS s after fault $FAULT_N ($FAULT_KIND):"
	{ "$CLI" -d "${CTL[client]}" show; "$CLI" -d "${CTL[server]}" show; } 2>&1 | sed 's/^/      /' | tee -a "$FAILURES"
}

# ---- the faults ----------------------------------------------------------------------
declare -A FAULTS=() FAULT_LABEL=(
	[uplink_loss]="uplink lost and back"
	[cli_down_up]="uplink set down/up (CLI)"
	[reload]="SIGHUP reload, both daemons"
	[all_down]="every uplink lost, 4 s"
	[flap]="uplink flapping, 5 times"
	[server_kill]="server SIGKILL, started again"
	[server_term]="server SIGTERM, started again"
	[client_term]="client SIGTERM, started again"
	[client_kill]="client SIGKILL, started again"
)
FAULT_ORDER=(uplink_loss cli_down_up reload all_down flap server_kill server_term client_term client_kill)
FAULT_N=0 FAULT_KIND="" FAULT_WHAT="" FLAPS=0 WEIGHT=1

fault_uplink_loss() {
	FAULT_WHAT=${UPLINK_NAME[$1]}
	uplink_stop "$1"
	idle $((SHORT ? 6000 : 10000))
	uplink_start "$1"
}

fault_flap() {
	FAULT_WHAT=${UPLINK_NAME[$1]}
	for _ in 1 2 3 4 5; do
		uplink_stop "$1"
		idle 1500
		uplink_start "$1"
		FLAPS=$((FLAPS + 1))
		idle 1500
	done
}

fault_all_down() {
	FAULT_WHAT="dsl+lte+sat"
	for k in 1 2 3; do uplink_stop "$k"; done
	idle 4000
	for k in 1 2 3; do uplink_start "$k"; done
}

# enabled NAME: the client's "enabled" of that uplink, as `-j show` says.
enabled() { json client | jq -r --arg n "$1" '.[].uplinks[] | select(.name == $n) | .enabled' 2>/dev/null || true; }

fault_cli_down_up() {
	local name=${UPLINK_NAME[$1]} rc=0
	FAULT_WHAT=$name
	"$CLI" -d "${CTL[client]}" uplink set "$name" down || rc=$?
	[ "$rc" -eq 0 ] || fail "wanbond uplink set $name down: exit status $rc"
	[ "$(enabled "$name")" = false ] || fail "after wanbond uplink set $name down, -j show has enabled $(enabled "$name")"
	idle $((SHORT ? 6000 : 10000))
	rc=0
	"$CLI" -d "${CTL[client]}" uplink set "$name" up || rc=$?
	[ "$rc" -eq 0 ] || fail "wanbond uplink set $name up: exit status $rc"
	[ "$(enabled "$name")" = true ] || fail "after wanbond uplink set $name up, -j show has enabled $(enabled "$name")"
}

# reloaded SIDE: how many reloads that incarnation has logged.
reloaded() { grep -c 'reloaded ' "$NT_TMP/$1.${INC[$1]}.log" || true; }

fault_reload() {
	local side before_c before_s weight
	WEIGHT=$((3 - WEIGHT))
	FAULT_WHAT="sat weight $WEIGHT;"
	sed -i "s/weight = [0-9]*;/weight = $WEIGHT;/" "$CCONF"
	if grep -q '^scheduler' "$SCONF"; then
		sed -i '/^scheduler/d' "$SCONF"
		FAULT_WHAT+=" server's rules back on"
	else
		echo 'scheduler = { penalise_guard = false; };' >>"$SCONF"
		FAULT_WHAT+=" server's penalise_guard off"
	fi
	before_c=$(reloaded client) before_s=$(reloaded server)
	kill -HUP "${PID[client]}" "${PID[server]}"
	for _ in $(seq 50); do
		[ "$(reloaded client)" -gt "$before_c" ] && [ "$(reloaded server)" -gt "$before_s" ] && break
		sleep 0.1
	done
	for side in client server; do
		local b=$before_c
		[ "$side" = server ] && b=$before_s
		[ "$(reloaded "$side")" -gt "$b" ] || fail "$side logged no 'reloaded' within 5 s of SIGHUP"
	done
	weight=$(json client | jq -r '.[].uplinks[] | select(.name == "sat") | .weight' 2>/dev/null || true)
	[ "$weight" = "$WEIGHT" ] || fail "after the reload sat's weight is ${weight:-unknown}, not $WEIGHT"
}

fault_restart() {
	FAULT_WHAT="incarnation ${INC[$1]} -> $((${INC[$1]} + 1))"
	stop_daemon "$1" "$2"
	start_daemon "$1"
}

# fault KIND FUNCTION ARGS...: one fault, then recovery and the quiet gap.
fault() {
	local kind=$1 t0; shift
	FAULT_N=$((FAULT_N + 1))
	FAULT_KIND=$kind
	FAULT_WHAT=""
	tick
	t0=$NOW_MS
	"$@"
	tick
	local t1=$NOW_MS
	await_recovery
	FAULTS[$kind]=$((${FAULTS[$kind]:-0} + 1))
	echo "$FAULT_N,$kind,$FAULT_WHAT,$(secs "$t0"),$(secs "$t1"),$t1,$BACK_MS" >>"$FAULTSCSV"
	printf '%9s s  fault %d: %s (%s); every uplink up %s\n' "$(secs "$t0")" "$FAULT_N" "${FAULT_LABEL[$kind]}" \
		"$FAULT_WHAT" "$([ "$BACK_MS" -ge 0 ] && printf '%d ms after' "$BACK_MS" || echo 'NOT in time')"
	idle $((GAP_SECS * 1000))
}

# ---- the run -----------------------------------------------------------------------
# The steady ping: ping ends at an error of its own; it is started again.
nt_bg lan "$NT_TMP/ping.log" bash -c 'trap "kill -INT \$p 2>/dev/null; wait \$p; exit 0" TERM
	while :; do ping -n -D -i 0.2 -W 2 "$1" & p=$!; wait $p; sleep 0.5; done' pinger "$SRV"
PING_PID=$NT_LAST_PID

start_daemon server
start_daemon client
nt_wait_log "$NT_TMP/client.1.log" 'session established' 15 ||
	{ cat "$NT_TMP/client.1.log" "$NT_TMP/server.1.log" >&2; nt_die "no session"; }
tick
T0_MS=$NOW_MS
END_MS=$((T0_MS + SOAK_SECS * 1000))
NEXT_SAMPLE_MS=$T0_MS
NEXT_PROGRESS_MS=$((T0_MS + 60000))
FAULT_KIND=start
await_recovery
[ "$BACK_MS" -ge 0 ] || nt_die "the uplinks did not come up"

echo "soak: ${SOAK_SECS} s, dsl 20 Mbit/s + lte 10 Mbit/s + sat 5 Mbit/s, daemons under ASan+UBSan;" \
	"memory every ${SAMPLE_SECS} s, ${GAP_SECS} s between faults"
# Restarts at these shares of the run (percent), the other faults in turn between them.
RESTART_AT=(10 25 45 65)
RESTART_KIND=(server_kill server_term client_term client_kill)
TAIL_MS=$((SHORT ? 15000 : 30000))   # no fault starts later than this before the end
ri=0 ki=0
REGULAR=(uplink_loss cli_down_up reload all_down flap)
while tick; [ "$NOW_MS" -lt $((END_MS - TAIL_MS)) ]; do
	if [ "$ri" -lt 4 ] && [ "$NOW_MS" -ge $((T0_MS + RESTART_AT[ri] * SOAK_SECS * 10)) ]; then
		kind=${RESTART_KIND[$ri]}
		ri=$((ri + 1))
		case $kind in
		server_kill) fault "$kind" fault_restart server KILL ;;
		server_term) fault "$kind" fault_restart server TERM ;;
		client_term) fault "$kind" fault_restart client TERM ;;
		client_kill) fault "$kind" fault_restart client KILL ;;
		esac
		continue
	fi
	kind=${REGULAR[$((ki % 5))]}
	k=$((1 + ki % 3))   # the uplink: 5 kinds, 3 uplinks: each kind meets each uplink in turn
	ki=$((ki + 1))
	case $kind in
	reload | all_down) fault "$kind" "fault_$kind" ;;
	*) fault "$kind" "fault_$kind" "$k" ;;
	esac
done
tick
[ "$NOW_MS" -lt "$END_MS" ] && idle $((END_MS - NOW_MS))
ROUNDS_OPEN=0
while [ "$ROUND_ACTIVE" -eq 1 ]; do
	housekeeping
	sleep 0.2
done
tick
sample
SOAK_MS=$((NOW_MS - T0_MS))
nt_stop "$PING_PID"
stop_daemon client TERM
stop_daemon server TERM
prune

# ---- the results -------------------------------------------------------------------
# Sanitizer errors other than leaks (those are counted at each clean exit),
# in every report file and every daemon log.
SAN_LOGS=$(find "$SAN_DIR" -type f | wc -l)
SAN_OTHER=$(cat "$SAN_DIR"/* "$NT_TMP"/server.*.log "$NT_TMP"/client.*.log 2>/dev/null |
	grep -E "$SAN_ERRORS" | grep -cvE 'LeakSanitizer|leaked in' || true)

# Ping: sent (ping's own count, over its runs), answered, and the first
# answer after the end of each fault.
read -r PINGS_SENT PINGS_ANSWERED <<<"$(awk '/packets transmitted/ { s += $1; r += $4 } END { print s + 0, r + 0 }' "$NT_TMP/ping.log")"
# faults.csv joined with the ping log: kind, fault number, ms from its end to the first answer (-1: none)
awk -F, 'NR == FNR { if (FNR > 1) { n++; kind[n] = $2; end[n] = $6; first[n] = -1 }; next }
	/bytes from/ { ts = substr($1, 2, length($1) - 2) * 1000
		for (i = 1; i <= n; i++) if (first[i] < 0 && ts >= end[i]) first[i] = ts - end[i] }
	END { for (i = 1; i <= n; i++) printf "%s %d %d\n", kind[i], i, first[i] }' \
	"$FAULTSCSV" FS=' ' "$NT_TMP/ping.log" >"$NT_TMP/ping_recovery.txt"
PING_LATE=$(awk -v lim=$((RECOVER_SECS * 1000)) '$3 < 0 || $3 > lim { n++ } END { print n + 0 }' "$NT_TMP/ping_recovery.txt")

# Memory per incarnation: quarters of its own span; first, Q2 and Q4 medians, last.
awk -F, -v soak="$((SOAK_MS / 1000))" -v rp="$RSS_MARGIN_PCT" -v rk="$RSS_MARGIN_KB" \
	-v mp="$MEM_MARGIN_PCT" -v mk="$MEM_MARGIN_KB" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	NR == FNR { if (FNR > 1) { k = $1 "," $2; start[k] = $4; end[k] = $5; order[++ni] = k }; next }
	FNR > 1 { k = $2 "," $3; ns[k]++; t[k, ns[k]] = $1; rss[k, ns[k]] = $5; mem[k, ns[k]] = $6 }
	END {
		for (x = 1; x <= ni; x++) {
			k = order[x]; split(k, p, ","); s = start[k]; e = end[k]; L = e - s
			n2r = n4r = n2m = n4m = 0; fr = fm = lr = lm = ""
			for (i = 1; i <= ns[k]; i++) {
				if (rss[k, i] != "") { if (fr == "") fr = rss[k, i]; lr = rss[k, i] }
				if (mem[k, i] != "") { if (fm == "") fm = mem[k, i]; lm = mem[k, i] }
				q = (t[k, i] - s) / L
				if (q >= 0.25 && q < 0.5) { if (rss[k, i] != "") a2r[++n2r] = rss[k, i]; if (mem[k, i] != "") a2m[++n2m] = mem[k, i] }
				if (q >= 0.75) { if (rss[k, i] != "") a4r[++n4r] = rss[k, i]; if (mem[k, i] != "") a4m[++n4m] = mem[k, i] }
			}
			judged = L >= soak / 4
			if (!judged) verdict = "short"
			else if (n2r < 4 || n4r < 4 || n2m < 4 || n4m < 4) verdict = "few-samples"
			else {
				r2 = median(a2r, n2r); r4 = median(a4r, n4r); m2 = median(a2m, n2m) / 1024; m4 = median(a4m, n4m) / 1024
				verdict = (r4 <= r2 * (1 + rp / 100) + rk && m4 <= m2 * (1 + mp / 100) + mk) ? "ok" : "GROWN"
			}
			if (!judged || verdict == "few-samples") { r2 = r4 = m2 = m4 = "-" }
			if (fr == "") fr = lr = "-"
			printf "%s %s %.0f %.0f %s %s %s %s %s %s %s %s %s\n", p[1], p[2], s < 0 ? 0 : s, e, fr, r2, r4, lr,
				fm == "" ? "-" : fm / 1024, m2, m4, lm == "" ? "-" : lm / 1024, verdict
		}
	}' "$INCCSV" "$MEMCSV" >"$NT_TMP/memory_verdicts.txt"

mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1000000 }'; }
mib() { [ "$1" = - ] && echo - || awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
{
	echo
	echo "==== soak summary"
	printf '%-34s %s\n' "duration" "$((SOAK_MS / 1000)) s (asked $SOAK_SECS s)"
	printf '%-34s %s\n' "uplinks" "dsl 20 Mbit/s 10 ms 0.1%, lte 10 Mbit/s 20+-2 ms 0.5%, sat 5 Mbit/s 35 ms 0.3%"
	printf '%-34s %s\n' "daemons" "ASan+UBSan ($WBD)"
	printf '%-34s %s\n' "rounds" "$ROUND, $ROUNDS_OK with both files intact"
	printf '%-34s %s\n' "lan -> srv" "$(mb "$BYTES_UP") MB intact ($(awk -v b="$BYTES_UP" -v s="$SOAK_MS" 'BEGIN { printf "%.1f", b * 8 / s / 1000 }') Mbit/s on average)"
	printf '%-34s %s\n' "srv -> lan" "$(mb "$BYTES_DOWN") MB intact ($(awk -v b="$BYTES_DOWN" -v s="$SOAK_MS" 'BEGIN { printf "%.1f", b * 8 / s / 1000 }') Mbit/s on average)"
	printf '%-34s %s\n' "transfers failed" "$TRANSFERS_FAILED"
	printf '%-34s %s\n' "pings" "$PINGS_ANSWERED of $PINGS_SENT answered ($(awk -v a="$PINGS_ANSWERED" -v s="$PINGS_SENT" 'BEGIN { printf "%.1f", s ? 100 * a / s : 0 }')%)"
	echo
	printf '%-34s %5s %20s %22s\n' "fault" "count" "every uplink up, max" "first ping after, max"
	for kind in "${FAULT_ORDER[@]}"; do
		printf '%-34s %5d %17s ms %19s ms\n' "${FAULT_LABEL[$kind]}" "${FAULTS[$kind]:-0}" \
			"$(awk -F, -v k="$kind" '$2 == k { if ($7 < 0) late = 1; if ($7 > m) m = $7; n++ } END { print n ? (late ? "late" : m) : "-" }' "$FAULTSCSV")" \
			"$(awk -v k="$kind" '$1 == k { if ($3 < 0) late = 1; if ($3 > m) m = $3; n++ } END { print n ? (late ? "none" : m) : "-" }' "$NT_TMP/ping_recovery.txt")"
	done
	printf '%-34s %s\n' "  (flaps in all)" "$FLAPS"
	echo
	echo "memory, MiB: per incarnation (span in s of the run), first sample / median of the second quarter / of the last quarter / last sample"
	printf '%-8s %-4s %-13s %-31s %-31s %s\n' "daemon" "inc" "span" "VmRSS" "own figure (wanbond -j show)" "growth"
	while read -r side inc s e fr r2 r4 lr fm m2 m4 lm verdict; do
		case $verdict in
		short) verdict="not judged: under a quarter of the run" ;;
		ok) verdict="ok (within ${RSS_MARGIN_PCT}% + $((RSS_MARGIN_KB / 1024)) MiB, ${MEM_MARGIN_PCT}% + $((MEM_MARGIN_KB / 1024)) MiB)" ;;
		esac
		printf '%-8s %-4s %-13s %-31s %-31s %s\n' "$side" "$inc" "$s-$e" \
			"$(mib "$fr") / $(mib "$r2") / $(mib "$r4") / $(mib "$lr")" \
			"$(mib "$fm") / $(mib "$m2") / $(mib "$m4") / $(mib "$lm")" "$verdict"
	done <"$NT_TMP/memory_verdicts.txt"
	echo
	printf '%-34s %s\n' "clean exits (SIGTERM)" "server ${CLEAN_EXITS[server]}, client ${CLEAN_EXITS[client]}"
	printf '%-34s %s\n' "leak reports at clean exits" "$LEAK_REPORTS ($LEAKED_BYTES bytes)"
	printf '%-34s %s\n' "canaries caught (leak, overflow)" "$([ "$CANARY_LEAK" -eq 1 ] && echo yes || echo NO), $([ "$CANARY_UB" -eq 1 ] && echo yes || echo NO)"
	printf '%-34s %s\n' "sanitizer errors besides leaks" "$SAN_OTHER (in $SAN_LOGS report files and the daemons' logs)"
	printf '%-34s %s\n' "daemons that ended by themselves" "server ${DIED[server]}, client ${DIED[client]}"
	printf '%-34s %s\n' "other failures during the run" "$FAILS (failures.txt)"
	echo "results: $OUT/"
} | tee "$NT_TMP/summary.txt"

echo
echo "==== checks"
nt_expect_range "rounds with both files intact" "$ROUNDS_OK" $((SOAK_SECS / 60)) 1000000000
nt_expect_range "transfers that lost their sha256" "$TRANSFERS_FAILED" 0 0
for kind in "${FAULT_ORDER[@]}"; do
	nt_expect_range "faults: ${FAULT_LABEL[$kind]}" "${FAULTS[$kind]:-0}" 1 1000000
done
nt_expect_range "faults not followed by a ping within $RECOVER_SECS s" "$PING_LATE" 0 0
for side in server client; do
	nt_expect_range "$side: incarnations judged for memory growth" \
		"$(awk -v s="$side" '$1 == s && $13 != "short" { n++ } END { print n + 0 }' "$NT_TMP/memory_verdicts.txt")" 1 100
	nt_expect_range "$side: incarnations whose memory grew" \
		"$(awk -v s="$side" '$1 == s && $13 != "short" && $13 != "ok" { n++ } END { print n + 0 }' "$NT_TMP/memory_verdicts.txt")" 0 0
	nt_expect_range "$side: clean exits checked by LeakSanitizer" "${CLEAN_EXITS[$side]}" 2 100
done
nt_expect_true "LeakSanitizer reports the canary's leak in its file" test "$CANARY_LEAK" -eq 1
nt_expect_true "UBSan reports the canary's overflow in its log" test "$CANARY_UB" -eq 1
nt_expect_range "leak reports at clean exits" "$LEAK_REPORTS" 0 0
nt_expect_range "sanitizer errors besides leaks, in every log" "$SAN_OTHER" 0 0
nt_expect_range "failures during the run (failures.txt)" "$FAILS" 0 0
nt_finish
