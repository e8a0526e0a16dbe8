#!/usr/bin/env bash
# Faults the bond must ride through, each with traffic both ways: whatever
# the bond took in is delivered (or, for what never arrived, given up and
# counted), the files that cross keep their sha256, and traffic flows again
# within a stated time.
#
#   uplink 1 "dsl" (wan1): 20 Mbit/s, 10 ms one way, 50 ms queue
#   uplink 2 "lte" (wan2): 20 Mbit/s, 15 ms one way, 50 ms queue
#   the usual pair (nt_wb_home_pair): client "home" on the router, server on the vps;
#   the client runs with NOTIFY_SOCKET at a notify_probe listening in $NT_TMP
#
# A lost uplink is its emulator stopped: its frames vanish, the interfaces
# stay up, and only the daemons' probes and acks can tell. The cases, one
# function each (case_NAME), run in the order of ALL_CASES (at the end);
# each starts from both uplinks up (fresh) and leaves them so:
#   restart_server  1a. the server killed (SIGKILL) and started again while lte is lost
#   restart_client  1b. the client the same
#   all_lost        2.  both uplinks lost for 5 s and back
#   idle_loss       3a. dsl lost with only pings running
#   busy_loss       3b. lte lost 1.5 s into 20 MB each way
#   flap            4.  lte lost 0.5 s, back 0.5 s, for 20 s, with a stream each way
#   mtu             6.  an MTU black hole on lte: IP packets over 1300 bytes vanish without
#                       ICMP; 8 MB each way over dsl alone, then while lte's size is searched,
#                       then once found; then the hole opening 1 s into 8 MB each way
#   reload          5.  SIGHUP with a file that does not parse, one that does not
#                       validate, then the good file again
# Every case prints its figures as it runs, and a table of them comes at the
# end (docs/operations.md, "What happens when..."). FAULT_CASES="flap reload"
# runs some cases only.
#
# The bond's counters settle each case: from a snapshot taken before the
# fault (after a restart: once the new daemon runs), every IP packet one side
# took from its TUN device and did not drop at the door (no session, send
# queue full, CoDel, too big for every path) is, once traffic stops, either written to the other
# side's TUN device, refused for its source, or given up by the receiver as
# never received (reorder_skips). The receiver acknowledges only what it
# holds, so a packet it acknowledged and then lost would break the balance.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

CLI=$NT_BUILD/bin/wanbond
PROBE=$NT_BUILD/tests/tools/notify_probe
SRV=10.2.0.2
LAN=10.1.0.2
# Read as ${!name} (uplink_start, fresh).
# shellcheck disable=SC2034
UPLINK_PARAMS_1="rate 20mbit delay 10ms limit 50ms seed 1"
# shellcheck disable=SC2034
UPLINK_PARAMS_2="rate 20mbit delay 15ms limit 50ms seed 2"
# shellcheck disable=SC2034
UPLINK_NAME_1=dsl
# shellcheck disable=SC2034
UPLINK_NAME_2=lte

# ---- times, each with why -----------------------------------------------------------
# Both uplinks up at the start of a case: three probes answered in a row
# (250 ms apart) after the first answer, far less than this.
UP_WAIT_MS=10000
# A lost uplink given back: its emulator forwards again, the first answer
# makes it probing, three more in a row make it up: about a second.
UPLINK_BACK_MS=3000
# The server restarted: the client's uplinks fall silent, all are down after
# uplink_timeout_ms (1 s), then it handshakes again, on one uplink after the
# other every handshake_retry_ms (1 s): the first try may go to the lost one.
SERVER_RESTART_MS=4000
# The client restarted: it handshakes at once, and again 1 s later on the
# next uplink if the first went to the lost one.
CLIENT_RESTART_MS=3000
# How long both uplinks stay lost in case 2, and how soon a ping is
# answered once they are back: every uplink went down, and the first probe
# answered after the outage makes one usable again; the probes go every
# 250 ms, the handshakes (tried again all along) every second.
ALL_LOST_S=5
ALL_LOST_RECOVER_MS=3000
# An uplink lost under traffic (pings, a transfer) is stale after two of its
# probe timeouts, a few RTTs; what it held is resent on the other. The
# longest silence of a ping every 50 ms from the loss on stays under this.
LOSS_STALL_MS=1500
# An idle uplink lost is down after uplink_timeout_ms (1 s) of silence; the
# probes run every 250 ms, and the CLI is polled every 50 ms.
IDLE_DOWN_MS=2000
# Flapping: lost for FLAP_LOST_MS, back for FLAP_BACK_MS, FLAP_TIMES times.
# Each loss is shorter than uplink_timeout_ms: the uplink goes stale, and
# down only when a whole second passes without an answer (the kernel's ARP
# entry across the flapping link can fail when its probes fall in the
# losses: until it is resolved again, nothing crosses).
FLAP_LOST_MS=500
FLAP_BACK_MS=500
FLAP_TIMES=20
# After a fault, all that was accepted is settled once traffic stops: the
# last retransmissions and acks take a few RTTs; the bond timeout backs off
# to at most a few seconds after a long outage.
SETTLE_MS=8000
# A SIGHUP is handled by the event loop at once: its log line and its
# notifications come within this.
RELOAD_MS=3000
# The daemon sends a STATUS= line every 5 s.
STATUS_EVERY_MS=7000

nt_init
# FAULT_KEEP=DIR: the logs of the run are copied there at its end (to look into a failure).
if [ -n "${FAULT_KEEP:-}" ]; then
	trap 'mkdir -p "$FAULT_KEEP" && cp "$NT_TMP"/*.log "$NT_TMP"/*.out "$FAULT_KEEP"/ 2>/dev/null; nt_cleanup' EXIT
fi
[ -x "$CLI" ] || nt_die "missing $CLI (run make)"
[ -x "$PROBE" ] || nt_die "missing $PROBE (run make tool-bins)"
command -v perl >/dev/null || nt_die "missing perl"
command -v sha256sum >/dev/null || nt_die "missing sha256sum"
nt_topology 2
# No IPv6 on the TUN devices created from now on: the kernel's own
# autoconfiguration packets there would be traffic nobody sent, in the balance.
nt_run router sysctl -qw net.ipv6.conf.default.disable_ipv6=1
nt_run vps sysctl -qw net.ipv6.conf.default.disable_ipv6=1

# shellcheck disable=SC2086
uplink_start() { local p="UPLINK_PARAMS_$1"; nt_uplink_start "$1" ${!p}; }
uplink_running() { local v="NT_LINKEM_PID_$1"; [ -n "${!v:-}" ]; }
# uplink_lose K: uplink K's emulator ended at once (nt_uplink_stop polls every 100 ms).
uplink_lose() {
	local v="NT_LINKEM_PID_$1"
	if [ -n "${!v:-}" ]; then
		kill -TERM "${!v}" 2>/dev/null || true
		wait "${!v}" 2>/dev/null || true
	fi
	eval "NT_LINKEM_PID_$1="
}
uplink_start 1
uplink_start 2

nt_wb_home_pair
GOOD_CCONF=$NT_TMP/home.conf.good
cp "$CCONF" "$GOOD_CCONF"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# sleep_until MS: until that time (now_ms's clock), if it is still to come.
sleep_until() {
	local left=$(($1 - $(now_ms)))
	[ "$left" -gt 0 ] && sleep "$(awk -v ms="$left" 'BEGIN { printf "%.3f", ms / 1000 }')"
	return 0
}
ctl_dir() { if [ "$1" = server ]; then echo "$NT_TMP/ctl-server"; else echo "$NT_TMP/ctl-client"; fi; }
# stats SIDE: every counter of bond home on that side, "home NAME VALUE" and "home/UPLINK NAME VALUE".
stats() { "$CLI" -d "$(ctl_dir "$1")" stats home 2>/dev/null || true; }
# counter SIDE NAME [UPLINK]: one counter read now (empty if the daemon does not answer).
counter() {
	local who=home
	[ -n "${3:-}" ] && who=home/$3
	stats "$1" | awk -v w="$who" -v n="$2" '$1 == w && $2 == n { print $3 }'
}
# state UPLINK: the client's state of that uplink.
state() { "$CLI" -d "$NT_TMP/ctl-client" -j show home 2>/dev/null | jq -r ".[0].uplinks[] | select(.name == \"$1\") | .state" 2>/dev/null || true; }
uplink_names() { "$CLI" -d "$NT_TMP/ctl-client" -j show home 2>/dev/null | jq -r '[.[0].uplinks[].name] | join(" ")' 2>/dev/null || true; }
policy() { "$CLI" -d "$NT_TMP/ctl-client" -j show home 2>/dev/null | jq -r '.[0].scheduler.policy' 2>/dev/null || true; }

# wait_state UPLINK STATES MS: polls until the client shows it in one of
# STATES ("up", "stale down"); prints the ms it took (empty: not within MS).
wait_state() {
	local t0 deadline
	t0=$(now_ms)
	deadline=$((t0 + $3))
	while [ "$(now_ms)" -lt "$deadline" ]; do
		if [[ " $2 " == *" $(state "$1") "* ]]; then
			echo $(($(now_ms) - t0))
			return 0
		fi
		sleep 0.05
	done
	return 0
}

# ---- the daemons --------------------------------------------------------------------------
NOTIFY=$NT_TMP/notify.sock
NOTIFY_OUT=$NT_TMP/notify.out
nt_bg router "$NOTIFY_OUT" "$PROBE" listen "$NOTIFY"
nt_wait_log "$NOTIFY_OUT" '^listening$' 5 || nt_die "notify_probe does not listen"

SPID="" CPID=""
start_server() { nt_wb_start vps "$SCONF"; SPID=$NT_LAST_PID; }
# The client as systemd would run it: its notifications go to the probe.
start_client() {
	nt_bg router "$CCONF.log" env NOTIFY_SOCKET="$NOTIFY" "$NT_WANBONDD" -c "$CCONF"
	CPID=$NT_LAST_PID
}
start() { if [ "$1" = server ]; then start_server; else start_client; fi; }
# kill_side SIDE: SIGKILL that daemon and wait until it is gone.
kill_side() {
	local pid=$CPID
	[ "$1" = server ] && pid=$SPID
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}
running() { kill -0 "$1" 2>/dev/null; }
# minus A B: A - B, empty if either is (a counter that could not be read fails its check).
minus() { [ -n "$1" ] && [ -n "$2" ] && echo $(($1 - $2)); return 0; }

# log_mark SIDE: the client's or server's log length now; log_since SIDE MARK: what came after.
log_file() { if [ "$1" = server ]; then echo "$SCONF.log"; else echo "$CCONF.log"; fi; }
log_mark() { wc -l <"$(log_file "$1")"; }
log_since() { tail -n +"$(($2 + 1))" "$(log_file "$1")"; }
# silence_at SIDE MARK UPLINK TRANSITION: "no answer for N ms" of the first such log line since MARK.
silence_at() {
	log_since "$1" "$2" | grep -E "home/$3: $4 \(no answer for" | head -n 1 |
		sed -E 's/.*no answer for ([0-9]+) ms.*/\1/' || true
}

# ---- traffic ------------------------------------------------------------------------------

wait_ping() { nt_wait_ping lan "$SRV" "$1"; }

# A ping lan -> srv every 50 ms, each answer logged with its arrival time.
PINGER_PID="" PING_LOG=""
pinger_start() {
	PING_LOG=$NT_TMP/ping-$1.log
	nt_bg lan "$PING_LOG" ping -n -D -i 0.05 -W 2 "$SRV"
	PINGER_PID=$NT_LAST_PID
}
pinger_stop() { [ -n "$PINGER_PID" ] && nt_stop "$PINGER_PID"; PINGER_PID=""; }
# ping_gap FROM_MS TO_MS: the longest stretch within FROM..TO in which no answer arrived, in ms.
ping_gap() {
	awk -F'[][]' -v from="$1" -v to="$2" '
		/bytes from/ { t = $2 * 1000; if (t > from && t < to) ts[n++] = t }
		END {
			last = from; max = 0
			for (i = 0; i < n; i++) { if (ts[i] - last > max) max = ts[i] - last; last = ts[i] }
			if (to - last > max) max = to - last
			printf "%d\n", max
		}' "$PING_LOG"
}
# first_answer_after T_MS WAIT_MS: ms from T to the first answer after it (empty: none within WAIT_MS).
first_answer_after() {
	local deadline=$(($(now_ms) + $2)) got=""
	while [ -z "$got" ] && [ "$(now_ms)" -lt "$deadline" ]; do
		got=$(awk -F'[][]' -v t="$1" '/bytes from/ && $2 * 1000 > t { printf "%d\n", $2 * 1000 - t; exit }' "$PING_LOG")
		[ -n "$got" ] || sleep 0.05
	done
	echo "$got"
}
pings_answered() { nt_ping_answered "$(nt_run lan ping -q -n -c 20 -i 0.05 -W 2 "$SRV" 2>/dev/null || true)"; }

sha_of() { sha256sum <"$1" 2>/dev/null | awk '{ print $1 }' || echo missing; }
size_of() { stat -c %s "$1" 2>/dev/null || echo 0; }

# A file each way at once over TCP: NAME.up (lan -> srv) and NAME.down (srv -> lan).
PORT=6000
declare -A XFER_SINK XFER_PORT XFER_T0
# xfer_sinks NAME: a sink for each way; xfer_start NAME MB: both files sent, in the background.
xfer_sinks() {
	local name=$1 dir
	for dir in up down; do
		rm -f "$NT_TMP/$name.$dir.got"
		PORT=$((PORT + 1))
		if [ "$dir" = up ]; then
			nt_tcp_sink srv "$SRV" "$PORT" "$NT_TMP/$name.$dir.got"
		else
			nt_tcp_sink lan "$LAN" "$PORT" "$NT_TMP/$name.$dir.got"
		fi
		XFER_SINK[$name.$dir]=$NT_LAST_PID
		XFER_PORT[$name.$dir]=$PORT
	done
	XFER_T0[$name]=$(now_ms)
}
xfer_start() {
	local name=$1 mb=$2 dir
	for dir in up down; do
		[ -s "$NT_TMP/$name.$dir.bin" ] || head -c $((mb * 1024 * 1024)) /dev/urandom >"$NT_TMP/$name.$dir.bin"
	done
	xfer_sinks "$name"
	nt_tcp_send lan "$SRV" "${XFER_PORT[$name.up]}" "$NT_TMP/$name.up.bin"
	nt_tcp_send srv "$LAN" "${XFER_PORT[$name.down]}" "$NT_TMP/$name.down.bin"
}

# A stream each way for as long as a fault lasts: the sender writes its 4 MB
# chunk again and again until NAME.stop exists, then writes how many times
# to NAME.DIR.count; what arrives must be that many chunks.
declare -A STREAM_SENDER
stream_start() {
	local name=$1 dir ns addr
	rm -f "$NT_TMP/$name.stop"
	xfer_sinks "$name"
	for dir in up down; do
		head -c $((4 * 1024 * 1024)) /dev/urandom >"$NT_TMP/$name.$dir.chunk"
		rm -f "$NT_TMP/$name.$dir.count"
		if [ "$dir" = up ]; then ns=lan addr=$SRV; else ns=srv addr=$LAN; fi
		# shellcheck disable=SC2016
		nt_bg "$ns" "$NT_TMP/stream-$name-$dir.log" timeout 120 bash -c '
			exec 3>"/dev/tcp/$1/$2" || exit 1
			n=0
			while [ ! -e "$4" ]; do cat "$3" >&3 || exit 1; n=$((n + 1)); done
			echo "$n" >"$5"' sender "$addr" "${XFER_PORT[$name.$dir]}" "$NT_TMP/$name.$dir.chunk" \
			"$NT_TMP/$name.stop" "$NT_TMP/$name.$dir.count"
		STREAM_SENDER[$name.$dir]=$NT_LAST_PID
	done
}
# stream_stop NAME: the senders finish the chunk they are writing, then close;
# NAME.DIR.bin becomes what each sent, for xfer_wait.
stream_stop() {
	local name=$1 dir n
	touch "$NT_TMP/$name.stop"
	for dir in up down; do
		for _ in $(seq 600); do running "${STREAM_SENDER[$name.$dir]}" || break; sleep 0.1; done
		n=$(cat "$NT_TMP/$name.$dir.count" 2>/dev/null || echo 0)
		for _ in $(seq "$n"); do cat "$NT_TMP/$name.$dir.chunk"; done >"$NT_TMP/$name.$dir.bin"
	done
}

# xfer_wait NAME LABEL [SECONDS]: waits for both sinks (at most SECONDS, 60), checks
# both sha256; sets XFER_FIG to "N MB up in S s (R Mbit/s), ..." from the start to
# the sink's end (when its log was last written: its "received N" line).
xfer_wait() {
	local name=$1 label=$2 secs=${3:-60} dir deadline fig=() what t_end sink
	deadline=$(($(now_ms) + secs * 1000))
	while { running "${XFER_SINK[$name.up]}" || running "${XFER_SINK[$name.down]}"; } &&
		[ "$(now_ms)" -lt "$deadline" ]; do
		sleep 0.1
	done
	for dir in up down; do
		sink=${XFER_SINK[$name.$dir]}
		t_end=""
		running "$sink" || t_end=$(($(date -r "$NT_TMP/sink-${XFER_PORT[$name.$dir]}.log" +%s%3N) - XFER_T0[$name]))
		nt_stop "$sink"
		what="$(awk -v b="$(size_of "$NT_TMP/$name.$dir.bin")" 'BEGIN { printf "%.0f", b / 1048576 }') MB"
		if [ "$dir" = up ]; then what+=" lan -> srv"; else what+=" srv -> lan"; fi
		nt_expect_true "$label: $what, sha256 intact" \
			test "$(sha_of "$NT_TMP/$name.$dir.bin")" = "$(sha_of "$NT_TMP/$name.$dir.got")"
		fig+=("$(awk -v b="$(size_of "$NT_TMP/$name.$dir.got")" -v t="$t_end" -v d="$dir" \
			'BEGIN { if (t == "") printf "%.1f MB %s, unfinished", b / 1048576, d
				 else printf "%.1f MB %s in %.1f s (%.1f Mbit/s)", b / 1048576, d, t / 1000, b * 8 / t / 1000 }')")
	done
	XFER_FIG="${fig[0]}, ${fig[1]}"
	echo "      $XFER_FIG"
}

# ---- the balance of the bond's counters ------------------------------------------------------

# snap NAME: both sides' counters, kept as NAME, once nothing moves: a
# packet one side took in before the snapshot and the other delivered after
# it would be counted on one side only (a ping still answered, say).
tun_counts() { { stats client; stats server; } | awk '$1 == "home" && $2 ~ /^tun_(rx|tx)_packets$/ { printf "%s ", $3 }'; }
snap() {
	local a b
	b=$(tun_counts)
	for _ in $(seq 20); do
		a=$b
		sleep 0.25
		b=$(tun_counts)
		[ "$a" = "$b" ] && break
	done
	stats client >"$NT_TMP/snap-$1-client"
	stats server >"$NT_TMP/snap-$1-server"
	[ "$(tun_counts)" = "$b" ] || nt_log "netns: traffic still moving at snapshot $1"
}
# since SNAP SIDE NAME [UPLINK]: how much that counter grew since the snapshot.
since() {
	local who=home was
	[ -n "${4:-}" ] && who=home/$4
	was=$(awk -v w="$who" -v n="$3" '$1 == w && $2 == n { print $3 }' "$NT_TMP/snap-$1-$2")
	minus "$(counter "$2" "$3" "${4:-}")" "$was"
}
# unsettled SNAP FROM TO: packets FROM took in since SNAP (less what it dropped at the
# door) that TO has neither delivered, refused for their source, nor given up unreceived.
unsettled() {
	local snapf=$1 from=$2 to=$3
	awk -v w=home '
		FNR == 1 { f = FILENAME == ARGV[1] ? 1 : FILENAME == ARGV[2] ? 2 : FILENAME == ARGV[3] ? 3 : 4 }
		$1 == w { v[f, $2] = $3 }
		END {
			# files: 1 FROM then, 2 FROM now, 3 TO then, 4 TO now
			d = "tun_rx_packets"; acc = v[2, d] - v[1, d]
			split("no_session_drops no_uplink_drops queue_drops aqm_drops too_big_drops pool_full_drops", drop, " ")
			for (i in drop) acc -= v[2, drop[i]] - v[1, drop[i]]
			split("tun_tx_packets source_rejected reorder_skips", done, " ")
			got = 0
			for (i in done) got += v[4, done[i]] - v[3, done[i]]
			if (!((2, d) in v) || !((4, "tun_tx_packets") in v)) exit 1
			print acc - got
		}' "$NT_TMP/snap-$snapf-$from" <(stats "$from") "$NT_TMP/snap-$snapf-$to" <(stats "$to")
}
# settle LABEL SNAP: once traffic has stopped, everything taken in since SNAP is accounted for, both ways.
settle() {
	local label=$1 snapf=$2 up down deadline
	deadline=$(($(now_ms) + SETTLE_MS))
	while :; do
		up=$(unsettled "$snapf" client server || true)
		down=$(unsettled "$snapf" server client || true)
		[ "$up" = 0 ] && [ "$down" = 0 ] && break
		[ "$(now_ms)" -lt "$deadline" ] || break
		sleep 0.2
	done
	nt_expect_range "$label: lan -> srv packets taken in, not delivered nor given up" "$up" 0 0
	nt_expect_range "$label: srv -> lan packets taken in, not delivered nor given up" "$down" 0 0
	[ "$up" = 0 ] && [ "$down" = 0 ] && return 0
	# The evidence: every bond counter that moved since the snapshot, both sides.
	local side
	for side in client server; do
		echo "      $side, bond counters since the snapshot:"
		awk 'FNR == NR { was[$1 " " $2] = $3; next } $1 == "home" && $3 != was[$1 " " $2] { printf "        %s %d\n", $2, $3 - was[$1 " " $2] }' \
			"$NT_TMP/snap-$snapf-$side" <(stats "$side")
	done
}
# bond_figures SNAP: the reliable layer's and scheduler's counters since SNAP, both sides, for the figures.
bond_figures() {
	local s=$1 out="" n c v
	for n in retransmits bond_timeouts opp_reinject reorder_skips aqm_drops restart_drops; do
		c=$(since "$s" client "$n") v=$(since "$s" server "$n")
		out+="$n ${c:-?}/${v:-?}, "
	done
	echo "${out%, } (client/server)"
}

# ---- the state every case starts from, and the figures ------------------------------------

FIGURES=()
# figure CASE RECOVERY TRAFFIC COUNTERS: a row of the table printed at the end.
figure() {
	FIGURES+=("| $1 | $2 | $3 | $4 |")
	printf '  figures  %s: %s; %s; %s\n' "$1" "$2" "$3" "$4"
}

# fresh: both emulators forwarding, both daemons running, both uplinks up, pings answered.
fresh() {
	local k name
	for k in 1 2; do uplink_running "$k" || uplink_start "$k"; done
	running "$SPID" || start_server
	running "$CPID" || start_client
	for k in 1 2; do
		name="UPLINK_NAME_$k"
		[ -n "$(wait_state "${!name}" up "$UP_WAIT_MS")" ] ||
			nt_log "netns: ${!name} is $(state "${!name}") at the start of a case"
	done
	[ -n "$(wait_ping 5)" ] || nt_log "netns: no ping through the tunnel at the start of a case"
}

# ---- 1. a peer restarted while an uplink is lost ------------------------------------------------

# restart_while_lost LABEL SIDE BOUND_MS
restart_while_lost() {
	local label=$1 side=$2 bound=$3 survivor=server t_ms restarts0 drops0 back t_lost
	[ "$side" = server ] && survivor=client
	echo "$label"
	fresh
	restarts0=$(counter "$survivor" peer_restarts) drops0=$(counter "$survivor" restart_drops)
	xfer_start "restart-$side" 8
	sleep 1
	# At once: lte's frames vanish and the daemon dies.
	t_lost=$(now_ms)
	uplink_lose 2
	kill_side "$side"
	start "$side"
	t_ms=$(wait_ping 10)
	nt_expect_range "$label: first ping answered, ms after the $side started" "${t_ms:-}" 0 "$bound"
	xfer_wait "restart-$side" "$label: across the restart"
	local across=$XFER_FIG
	nt_expect_range "$label: the $survivor counted the restart" \
		"$(minus "$(counter "$survivor" peer_restarts)" "$restarts0")" 1 1
	local given_up
	given_up=$(minus "$(counter "$survivor" restart_drops)" "$drops0")
	nt_expect_true "$label: lte not up while lost ($(state lte))" test "$(state lte)" != up
	# From the new daemon on: a file each way over dsl alone, and the balance.
	snap "restart-$side"
	xfer_start "restart-$side-after" 4
	xfer_wait "restart-$side-after" "$label: after, over dsl alone"
	local after=$XFER_FIG
	nt_expect_range "$label: IP packets lte carried meanwhile (client)" \
		"$(since "restart-$side" client tx_ip_packets lte)" 0 0
	settle "$label" "restart-$side"
	local counters
	counters="given up at the restart ($survivor restart_drops) $given_up; after: $(bond_figures "restart-$side")"
	uplink_start 2
	back=$(wait_state lte up "$UPLINK_BACK_MS")
	nt_expect_range "$label: lte up again, ms after its emulator restarted" "${back:-}" 0 "$UPLINK_BACK_MS"
	figure "$label" "first ping ${t_ms:-never} ms after the $side started; lte up ${back:-never} ms after it came back" \
		"across the restart: $across; after: $after" "$counters"
}

case_restart_server() { restart_while_lost "1a. server killed and started again, lte lost" server "$SERVER_RESTART_MS"; }
case_restart_client() { restart_while_lost "1b. client killed and started again, lte lost" client "$CLIENT_RESTART_MS"; }

# ---- 2. every uplink lost for a while --------------------------------------------------------

case_all_lost() {
	local label="2. both uplinks lost for ${ALL_LOST_S} s" t_lost t_back rec both_up k st
	echo "$label"
	fresh
	snap all
	local hs0 down1 down2
	hs0=$(counter client handshakes_sent)
	down1=$(counter client went_down dsl) down2=$(counter client went_down lte)
	pinger_start all
	xfer_start all 8
	sleep 1
	t_lost=$(now_ms)
	uplink_lose 1
	uplink_lose 2
	sleep "$ALL_LOST_S"
	for k in dsl lte; do
		st=$(state "$k")
		nt_expect_true "$label: $k down after ${ALL_LOST_S} s without a frame ($st)" test "$st" = down
	done
	t_back=$(now_ms)
	uplink_start 1
	uplink_start 2
	rec=$(first_answer_after "$t_back" 10000)
	nt_expect_range "$label: first ping answered, ms after the uplinks came back" "${rec:-}" 0 "$ALL_LOST_RECOVER_MS"
	both_up=$(wait_state dsl up "$UPLINK_BACK_MS")
	[ -n "$both_up" ] && both_up=$(wait_state lte up "$UPLINK_BACK_MS")
	nt_expect_true "$label: both uplinks up within $UPLINK_BACK_MS ms each" test -n "$both_up"
	both_up=$(($(now_ms) - t_back))
	xfer_wait all "$label: across the outage"
	local across=$XFER_FIG
	pinger_stop
	xfer_start all-after 4
	xfer_wait all-after "$label: after"
	local after=$XFER_FIG
	nt_expect_range "$label: dsl went down once" "$(minus "$(counter client went_down dsl)" "$down1")" 1 1
	nt_expect_range "$label: lte went down once" "$(minus "$(counter client went_down lte)" "$down2")" 1 1
	settle "$label" all
	figure "$label" "first ping ${rec:-never} ms after the uplinks came back, both up after ${both_up} ms" \
		"across the outage: $across; after: $after" \
		"client handshakes sent $(minus "$(counter client handshakes_sent)" "$hs0"); $(bond_figures all)"
}

# ---- 3. one uplink lost, idle and busy -----------------------------------------------------------

case_idle_loss() {
	local label="3a. dsl lost while idle (a ping every 50 ms)" mark t_lost stale down gap down_ms back
	echo "$label"
	fresh
	snap idle
	pinger_start idle
	sleep 1
	mark=$(log_mark client)
	t_lost=$(now_ms)
	uplink_lose 1
	stale=$(wait_state dsl "stale down" 5000)
	[ -n "$stale" ] && stale=$(($(now_ms) - t_lost))
	down=$(wait_state dsl down 5000)
	[ -n "$down" ] && down=$(($(now_ms) - t_lost))
	nt_expect_range "$label: dsl down, ms after its loss" "${down:-}" 0 "$IDLE_DOWN_MS"
	sleep 1
	gap=$(ping_gap "$t_lost" "$(now_ms)")
	nt_expect_range "$label: longest silence of the pings from the loss, ms" "$gap" 0 "$LOSS_STALL_MS"
	down_ms=$(silence_at client "$mark" dsl 'stale -> down')
	snap idle-xfer
	xfer_start idle 4
	xfer_wait idle "$label: then, over lte alone"
	pinger_stop
	nt_expect_range "$label: IP packets dsl carried meanwhile (client)" "$(since idle-xfer client tx_ip_packets dsl)" 0 0
	nt_expect_range "$label: IP packets dsl carried meanwhile (server)" "$(since idle-xfer server tx_ip_packets dsl)" 0 0
	settle "$label" idle
	uplink_start 1
	back=$(wait_state dsl up "$UPLINK_BACK_MS")
	nt_expect_range "$label: dsl up again, ms after its emulator restarted" "${back:-}" 0 "$UPLINK_BACK_MS"
	figure "$label" "pings silent at most $gap ms; dsl seen stale ${stale:-never} ms and down ${down:-never} ms after the loss (its log: down at ${down_ms:-?} ms of silence); up ${back:-never} ms after it came back" \
		"then over lte alone: $XFER_FIG" "$(bond_figures idle)"
}

case_busy_loss() {
	local label="3b. lte lost 1.5 s into 20 MB each way" mark t_lost gap stale down_ms back st
	echo "$label"
	fresh
	snap busy
	local down0
	down0=$(counter client went_down lte)
	pinger_start busy
	xfer_start busy 20
	sleep 1.5
	mark=$(log_mark client)
	t_lost=$(now_ms)
	uplink_lose 2
	stale=$(wait_state lte "stale down" 3000)
	[ -n "$stale" ] && stale=$(($(now_ms) - t_lost))
	sleep_until $((t_lost + 3000))
	gap=$(ping_gap "$t_lost" "$(now_ms)")
	nt_expect_range "$label: longest silence of the pings from the loss, ms" "$gap" 0 "$LOSS_STALL_MS"
	st=$(state lte)
	nt_expect_true "$label: lte stale or down 3 s after its loss ($st)" test "$st" = stale -o "$st" = down
	snap busy-dsl
	xfer_wait busy "$label"
	pinger_stop
	down_ms=$(silence_at client "$mark" lte 'stale -> down')
	nt_expect_range "$label: lte went down (client)" "$(minus "$(counter client went_down lte)" "$down0")" 1 1
	# What lte held when it went was sent again: on dsl, the only uplink left.
	nt_expect_range "$label: DSNs resent by the client" "$(since busy client retransmits)" 1 1000000
	nt_expect_range "$label: DSNs resent by the server" "$(since busy server retransmits)" 1 1000000
	nt_expect_range "$label: of them on dsl (client)" "$(since busy client retransmits dsl)" 1 1000000
	nt_expect_range "$label: of them on dsl (server)" "$(since busy server retransmits dsl)" 1 1000000
	nt_expect_range "$label: IP packets dsl carried after (client)" "$(since busy-dsl client tx_ip_packets dsl)" 1 1000000000
	nt_expect_range "$label: IP packets lte carried after (client)" "$(since busy-dsl client tx_ip_packets lte)" 0 0
	settle "$label" busy
	uplink_start 2
	back=$(wait_state lte up "$UPLINK_BACK_MS")
	nt_expect_range "$label: lte up again, ms after its emulator restarted" "${back:-}" 0 "$UPLINK_BACK_MS"
	figure "$label" "pings silent at most $gap ms; lte seen stale ${stale:-never} ms after the loss, down at ${down_ms:-?} ms of silence; up ${back:-never} ms after it came back" \
		"$XFER_FIG" "$(bond_figures busy); dsl resent $(since busy client retransmits dsl)/$(since busy server retransmits dsl)"
}

# ---- 4. an uplink that flaps ------------------------------------------------------------------

case_flap() {
	local label="4. lte lost ${FLAP_LOST_MS} ms and back ${FLAP_BACK_MS} ms, ${FLAP_TIMES} times" mark t0 t_end gap back down0 stale
	local lost_ms=0 back_ms=0 t_stop t_start t_starting cost=0
	echo "$label"
	fresh
	snap flap
	down0=$(counter client went_down lte)
	pinger_start flap
	stream_start flap
	sleep 1
	mark=$(log_mark client)
	t0=$(now_ms)
	# Lost from the emulator's end to the new one forwarding: its start (tens of ms) is part of the loss.
	for _ in $(seq "$FLAP_TIMES"); do
		t_stop=$(now_ms)
		uplink_lose 2
		sleep_until $((t_stop + FLAP_LOST_MS - cost))
		t_starting=$(now_ms)
		uplink_start 2
		t_start=$(now_ms)
		cost=$((t_start - t_starting))
		sleep_until $((t_start + FLAP_BACK_MS))
		lost_ms=$((lost_ms + t_start - t_stop)) back_ms=$((back_ms + $(now_ms) - t_start))
	done
	t_end=$(now_ms)
	gap=$(ping_gap "$t0" "$t_end")
	nt_expect_range "$label: longest silence of the pings while flapping, ms" "$gap" 0 "$LOSS_STALL_MS"
	nt_expect_true "$label: both streams ran through it" \
		sh -c "kill -0 ${STREAM_SENDER[flap.up]} && kill -0 ${STREAM_SENDER[flap.down]}"
	stream_stop flap
	xfer_wait flap "$label"
	pinger_stop
	back=$(wait_state lte up "$UPLINK_BACK_MS")
	nt_expect_true "$label: lte up at the end ($(state lte))" test -n "$back"
	nt_expect_true "$label: dsl up at the end ($(state dsl))" test "$(state dsl)" = up
	stale=$(log_since client "$mark" | grep -c 'home/lte: up -> stale' || true)
	settle "$label" flap
	figure "$label" "each time lost $((lost_ms / FLAP_TIMES)) ms (the emulator stopped and started again) and back $((back_ms / FLAP_TIMES)) ms; pings silent at most $gap ms over $(((t_end - t0) / 1000)) s of flapping; lte up ${back:-never} ms after the last" \
		"$XFER_FIG" "lte stale $stale times, down $(minus "$(counter client went_down lte)" "$down0") times; $(bond_figures flap)"
}

# ---- 5. SIGHUP with a file that is wrong -----------------------------------------------------

# notify_since MARK: the datagrams the probe received after MARK lines.
notify_since() { tail -n +"$(($1 + 1))" "$NOTIFY_OUT" | grep '^datagram ' || true; }
# wait_notify MARK REGEX MS: until a datagram after MARK matches.
wait_notify() {
	local deadline=$(($(now_ms) + $3))
	while [ "$(now_ms)" -lt "$deadline" ]; do
		notify_since "$1" | grep -Eq -- "$2" && return 0
		sleep 0.05
	done
	return 1
}

# reload_bad LABEL KIND LINE: CCONF holds a wrong file whose error is at LINE; SIGHUP and check.
reload_bad() {
	local label=$1 kind=$2 line=$3 mark nmark rc err dsl0 lte0
	mark=$(log_mark client)
	nmark=$(wc -l <"$NOTIFY_OUT")
	# 20 pings over a second, the SIGHUP in the middle: traffic goes on through it.
	nt_bg lan "$NT_TMP/ping-reload.log" ping -q -n -c 20 -i 0.05 -W 2 "$SRV"
	local ping_pid=$NT_LAST_PID
	sleep 0.5
	kill -HUP "$CPID"
	nt_expect_true "$label: the log names $kind at file:line" \
		nt_wait_log "$CCONF.log" "reload: $CCONF:$line: .*; the running configuration stays" $((RELOAD_MS / 1000))
	log_since client "$mark" | grep 'reload' | sed 's/^/      /'
	sleep 0.5
	nt_expect_true "$label: the daemon still runs" running "$CPID"
	wait "$ping_pid" 2>/dev/null || true
	RELOAD_PINGS=$(awk '/received/ { for (i = 1; i <= NF; i++) if ($i ~ /^received/) print $(i - 1) }' "$NT_TMP/ping-reload.log")
	nt_expect_range "$label: pings answered of 20 sent around the SIGHUP" "$RELOAD_PINGS" 20 20
	rc=0
	err=$("$NT_WANBONDD" --check -c "$CCONF" 2>&1 >/dev/null) || rc=$?
	nt_expect_range "$label: wanbondd --check exit code" "$rc" 1 1
	nt_expect_true "$label: wanbondd --check says $CCONF:$line: ($err)" grep -q "^$CCONF:$line: " <<<"$err"
	wait_notify "$nmark" 'READY=1' "$RELOAD_MS" || true
	notify_since "$nmark" | sed 's/^/      /'
	nt_expect_true "$label: RELOADING=1, then READY=1 with STATUS=reload failed: $CCONF:$line:" \
		sh -c "grep -A1 '^datagram RELOADING=1' | tail -n 1 | grep -q '^datagram READY=1\\\\nSTATUS=reload failed: $CCONF:$line: '" \
		<<<"$(notify_since "$nmark")"
	nt_expect_true "$label: the old uplinks, dsl and lte ($(uplink_names))" test "$(uplink_names)" = "dsl lte"
	nt_expect_true "$label: the old policy, default ($(policy))" test "$(policy)" = default
	snap "reload-$kind"
	xfer_start "reload-$kind" 4
	xfer_wait "reload-$kind" "$label: traffic on"
	dsl0=$(since "reload-$kind" client tx_ip_packets dsl) lte0=$(since "reload-$kind" client tx_ip_packets lte)
	nt_expect_range "$label: IP packets dsl carried" "$dsl0" 1 1000000000
	nt_expect_range "$label: IP packets lte carried (the wrong file has it no more)" "$lte0" 1 1000000000
	settle "$label" "reload-$kind"
	RELOAD_FIG="$RELOAD_PINGS of 20 pings around the SIGHUP answered; then dsl carried $dsl0 and lte $lte0 IP packets of $XFER_FIG"
}

case_reload() {
	local label="5. SIGHUP with a file that is wrong" line nmark rc out st
	echo "$label"
	fresh
	# a. It does not parse: lte gone and the scheduler redundant, then a line that is no setting.
	grep -v '^uplinks = ' "$GOOD_CCONF" >"$CCONF"
	cat >>"$CCONF" <<'CONF'
uplinks = ( { name = "dsl"; interface = "wan1"; } );
scheduler = { policy = "redundant"; };
this line is no setting
CONF
	line=$(grep -n '^this line is no setting$' "$CCONF" | cut -d: -f1)
	reload_bad "5a. syntax error" "a syntax error" "$line"
	local fig_a=$RELOAD_FIG
	# The status stays until a reload succeeds: the next periodic STATUS= leads with the failure.
	nmark=$(wc -l <"$NOTIFY_OUT")
	wait_notify "$nmark" '^datagram STATUS=' "$STATUS_EVERY_MS" || true
	st=$(notify_since "$nmark" | grep -m 1 '^datagram STATUS=' || true)
	nt_expect_true "5a. the next periodic status still says so (${st#datagram })" \
		grep -q "^datagram STATUS=reload failed: $CCONF:$line: .*; [0-9] of 2 uplinks up" <<<"$st"
	# b. It parses, and fails validation: lte renamed to a name with a space.
	sed 's/{ name = "lte"; interface = "wan2"; }/{ name = "new lte"; interface = "wan2"; }/' "$GOOD_CCONF" >"$CCONF"
	line=$(grep -n '"new lte"' "$CCONF" | cut -d: -f1)
	[ -n "$line" ] || nt_die "could not rename lte in $CCONF"
	reload_bad "5b. an uplink named with a space" "a bad name" "$line"
	local fig_b=$RELOAD_FIG
	# c. The good file again.
	cp "$GOOD_CCONF" "$CCONF"
	rc=0
	out=$("$NT_WANBONDD" --check -c "$CCONF" 2>&1) || rc=$?
	nt_expect_range "5c. the good file: wanbondd --check exit code" "$rc" 0 0
	nt_expect_true "5c. the good file: wanbondd --check says ok ($out)" test "$out" = "$CCONF: ok"
	nmark=$(wc -l <"$NOTIFY_OUT")
	kill -HUP "$CPID"
	nt_expect_true "5c. the good file: the log says reloaded" nt_wait_log "$CCONF.log" "reloaded $CCONF\$" $((RELOAD_MS / 1000))
	wait_notify "$nmark" 'READY=1' "$RELOAD_MS" || true
	notify_since "$nmark" | sed 's/^/      /'
	nt_expect_true "5c. the good file: RELOADING=1, then READY=1 with STATUS=reloaded $CCONF" \
		sh -c "grep -A1 '^datagram RELOADING=1' | tail -n 1 | grep -qx 'datagram READY=1\\\\nSTATUS=reloaded $CCONF'" \
		<<<"$(notify_since "$nmark")"
	nmark=$(wc -l <"$NOTIFY_OUT")
	wait_notify "$nmark" '^datagram STATUS=' "$STATUS_EVERY_MS" || true
	st=$(notify_since "$nmark" | grep -m 1 '^datagram STATUS=' || true)
	nt_expect_true "5c. the next periodic status is the plain one (${st#datagram })" \
		grep -qE '^datagram STATUS=[0-9] of 2 uplinks up' <<<"$st"
	nt_expect_true "5c. both uplinks up ($(state dsl), $(state lte))" test "$(state dsl) $(state lte)" = "up up"
	figure "$label" "none: the daemon runs on the old configuration; RELOADING=1 then READY=1 with the failure in STATUS=" \
		"a syntax error: $fig_a; a bad name: $fig_b" "the periodic STATUS= led with the failure until the good file was reloaded"
}

# ---- 6. an MTU black hole on one uplink ------------------------------------------------------

# Black holes come from em2's interface a (towards the router) at MTU 1300:
# a frame over it vanishes, without an ICMP message, both ways (a veth
# takes 4 bytes more on its way in). Its emulator is stopped while the MTU
# changes, so it starts with the interface's size (docs/linkem.md).
HOLE_MTU=1300
# The search: the largest size, three probe timeouts for each size that
# does not pass, about 3 s in all (docs/protocol.md, "Path MTU"); the TUN
# devices follow within a second.
PMTU_FOUND_MS=8000
# What the issue asks of a black hole: the transfer during the search takes
# less than twice the time over the good uplink alone. Once the size is
# found both uplinks carry the bond's packets: less than 0.8 of that time
# (the sum of two alike uplinks would be 0.5).
HOLE_SLOWER_AT_MOST=2.0
FOUND_FASTER_AT_LEAST=0.8

# pmtu SIDE UPLINK: the datagram size that side's search holds for it (docs/cli.md).
pmtu() { "$CLI" -d "$(ctl_dir "$1")" -j show home 2>/dev/null | jq -r ".[0].uplinks[] | select(.name == \"$2\") | .pmtu // empty" 2>/dev/null || true; }
pmtu_searching() { "$CLI" -d "$(ctl_dir "$1")" -j show home 2>/dev/null | jq -r ".[0].uplinks[] | select(.name == \"$2\") | .pmtu_searching" 2>/dev/null || true; }
# tun_mtu SIDE: the MTU of that side's TUN device.
tun_mtu() { local ns=router; [ "$1" = server ] && ns=vps; nt_run "$ns" cat /sys/class/net/wb-home/mtu 2>/dev/null || true; }
# xfer_ms NAME DIR: the ms from a transfer's start to its sink's end (after xfer_wait).
xfer_ms() { echo $(($(date -r "$NT_TMP/sink-${XFER_PORT[$1.$2]}.log" +%s%3N) - XFER_T0[$1])); }
# wait_pmtu UPLINK MAX MS: until both sides' searches are over with lte at MAX or less; prints the ms it took.
wait_pmtu() {
	local t0 deadline
	t0=$(now_ms)
	deadline=$((t0 + $3))
	while [ "$(now_ms)" -lt "$deadline" ]; do
		if [ "$(pmtu_searching client "$1") $(pmtu_searching server "$1")" = "false false" ] &&
			[ "$(pmtu client "$1")" -le "$2" ] 2>/dev/null && [ "$(pmtu server "$1")" -le "$2" ] 2>/dev/null; then
			echo $(($(now_ms) - t0))
			return 0
		fi
		sleep 0.1
	done
	return 0
}
# hole_drops SIDE: frames that side sent into the hole: the router's wan2 counts those its veth
# peer refused (TX dropped); the server's frames are the emulator's to send, which it cannot (tx_errors).
hole_drops() {
	if [ "$1" = client ]; then
		nt_run router cat /sys/class/net/wan2/statistics/tx_dropped
	else
		nt_uplink_counter 2 b2a tx_errors
	fi
}
# ratio A B: A / B, two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 99 }'; }
# lte_anew MTU: lte lost until down, em2's interface a at MTU, lte back and up: its path is searched anew.
lte_anew() {
	uplink_lose 2
	wait_state lte down 5000 >/dev/null
	nt_run em2 ip link set dev a mtu "$1"
	uplink_start 2
	wait_state lte up "$UPLINK_BACK_MS" >/dev/null
}

case_mtu() {
	local label="6. an MTU black hole on lte (IP packets over $HOLE_MTU bytes vanish)" dir k
	local alone_up alone_down found hole_up hole_down after_up after_down max
	echo "$label"
	fresh
	# a. The good uplink alone: lte lost.
	uplink_lose 2
	wait_state lte "stale down" 5000 >/dev/null
	xfer_start mtu-alone 8
	xfer_wait mtu-alone "$label: a. over dsl alone"
	local fig_alone=$XFER_FIG
	alone_up=$(xfer_ms mtu-alone up) alone_down=$(xfer_ms mtu-alone down)
	# b. lte back behind the black hole; 8 MB each way at once, while the search runs.
	wait_state lte down 5000 >/dev/null
	nt_run em2 ip link set dev a mtu "$HOLE_MTU"
	snap mtu
	local holes_c holes_s
	holes_c=$(counter client pmtu_lowered lte) holes_s=$(counter server pmtu_lowered lte)
	uplink_start 2
	wait_state lte up "$UPLINK_BACK_MS" >/dev/null
	xfer_start mtu-hole 8
	found=$(wait_pmtu lte $((HOLE_MTU + 4 - 28)) "$PMTU_FOUND_MS")
	nt_expect_true "$label: b. both sides found lte's size within $PMTU_FOUND_MS ms of it coming up" test -n "$found"
	xfer_wait mtu-hole "$label: b. lte back behind the black hole, while its size is searched"
	local fig_hole=$XFER_FIG
	hole_up=$(xfer_ms mtu-hole up) hole_down=$(xfer_ms mtu-hole down)
	nt_expect_true "$label: b. lan -> srv took $(ratio "$hole_up" "$alone_up") of the time over dsl alone, under $HOLE_SLOWER_AT_MOST" \
		awk -v r="$(ratio "$hole_up" "$alone_up")" -v m="$HOLE_SLOWER_AT_MOST" 'BEGIN { exit !(r < m) }'
	nt_expect_true "$label: b. srv -> lan took $(ratio "$hole_down" "$alone_down") of the time over dsl alone, under $HOLE_SLOWER_AT_MOST" \
		awk -v r="$(ratio "$hole_down" "$alone_down")" -v m="$HOLE_SLOWER_AT_MOST" 'BEGIN { exit !(r < m) }'
	# Each side's size for lte is lowered, dsl's is the largest, and the TUN devices follow the smaller.
	local pc ps
	pc=$(pmtu client lte) ps=$(pmtu server lte)
	nt_expect_range "$label: the client's datagram size for lte (its path passes $((HOLE_MTU + 4 - 28)))" "$pc" $((HOLE_MTU + 4 - 28 - 8)) $((HOLE_MTU + 4 - 28))
	nt_expect_range "$label: the server's datagram size for lte (its path passes $((HOLE_MTU - 28)))" "$ps" $((HOLE_MTU - 28 - 8)) $((HOLE_MTU - 28))
	nt_expect_range "$label: the client's datagram size for dsl" "$(pmtu client dsl)" 1472 1472
	sleep 1.5 # the TUN MTUs are fitted each second
	nt_expect_range "$label: the client's TUN MTU follows lte" "$(tun_mtu client)" $((${pc:-0} - 39)) $((${pc:-0} - 39))
	nt_expect_range "$label: the server's TUN MTU follows lte" "$(tun_mtu server)" $((${ps:-0} - 39)) $((${ps:-0} - 39))
	# c. Then both uplinks carry the bond's packets.
	xfer_start mtu-after 8
	xfer_wait mtu-after "$label: c. once the size is found"
	local fig_after=$XFER_FIG
	after_up=$(xfer_ms mtu-after up) after_down=$(xfer_ms mtu-after down)
	nt_expect_true "$label: c. lan -> srv took $(ratio "$after_up" "$alone_up") of the time over dsl alone, under $FOUND_FASTER_AT_LEAST" \
		awk -v r="$(ratio "$after_up" "$alone_up")" -v m="$FOUND_FASTER_AT_LEAST" 'BEGIN { exit !(r < m) }'
	nt_expect_true "$label: c. srv -> lan took $(ratio "$after_down" "$alone_down") of the time over dsl alone, under $FOUND_FASTER_AT_LEAST" \
		awk -v r="$(ratio "$after_down" "$alone_down")" -v m="$FOUND_FASTER_AT_LEAST" 'BEGIN { exit !(r < m) }'
	settle "$label" mtu
	local probes_c
	probes_c=$(since mtu client pmtu_probes lte)
	# d. The path shrinks under load: lte searched anew behind a whole path, then the hole opens 1 s into 8 MB each way.
	# The LAN hosts keep the smaller path MTU that ICMP told them in b for 10 minutes, and would send
	# only packets that fit: this transfer goes to second addresses of theirs, which they know nothing of.
	nt_run lan ip addr add 10.1.0.3/24 dev eth0
	nt_run srv ip addr add 10.2.0.3/24 dev eth0
	local LAN=10.1.0.3 SRV=10.2.0.3
	lte_anew 1500
	max=$(wait_pmtu lte 1472 "$PMTU_FOUND_MS")
	nt_expect_range "$label: d. lte's whole path again: the client's size" "$(pmtu client lte)" 1472 1472
	sleep 1.5
	nt_expect_range "$label: d. the client's TUN MTU back up" "$(tun_mtu client)" 1433 1433
	snap mtu-shrink
	local drop_c0 drop_s0
	drop_c0=$(hole_drops client) drop_s0=$(hole_drops server)
	holes_c=$(counter client pmtu_lowered lte) holes_s=$(counter server pmtu_lowered lte)
	xfer_start mtu-shrink 8
	sleep 1
	nt_run em2 ip link set dev a mtu "$HOLE_MTU"
	xfer_wait mtu-shrink "$label: d. the hole opening under load"
	local fig_shrink=$XFER_FIG
	echo "      lte carried $(since mtu-shrink client tx_ip_packets lte) IP packets from the client and $(since mtu-shrink server tx_ip_packets lte) from the server meanwhile; the hole took $(minus "$(hole_drops client)" "$drop_c0") and $(minus "$(hole_drops server)" "$drop_s0")"
	local bh_c bh_s
	bh_c=$(minus "$(counter client pmtu_lowered lte)" "$holes_c") bh_s=$(minus "$(counter server pmtu_lowered lte)" "$holes_s")
	nt_expect_range "$label: d. times the client lowered lte's size" "$bh_c" 1 1
	nt_expect_range "$label: d. times the server lowered lte's size" "$bh_s" 1 1
	nt_expect_true "$label: d. lan -> srv took $(ratio "$(xfer_ms mtu-shrink up)" "$alone_up") of the time over dsl alone, under $HOLE_SLOWER_AT_MOST" \
		awk -v r="$(ratio "$(xfer_ms mtu-shrink up)" "$alone_up")" -v m="$HOLE_SLOWER_AT_MOST" 'BEGIN { exit !(r < m) }'
	nt_expect_true "$label: d. srv -> lan took $(ratio "$(xfer_ms mtu-shrink down)" "$alone_down") of the time over dsl alone, under $HOLE_SLOWER_AT_MOST" \
		awk -v r="$(ratio "$(xfer_ms mtu-shrink down)" "$alone_down")" -v m="$HOLE_SLOWER_AT_MOST" 'BEGIN { exit !(r < m) }'
	[ -n "$(wait_pmtu lte $((HOLE_MTU + 4 - 28)) "$PMTU_FOUND_MS")" ] || nt_log "netns: lte's size not found again"
	settle "$label" mtu-shrink
	# The next case finds lte whole again.
	lte_anew 1500
	wait_pmtu lte 1472 "$PMTU_FOUND_MS" >/dev/null
	figure "$label" "lte's size found $found ms after it came up (client $pc, server $ps bytes; TUN MTUs followed); a black hole opening under load seen by each side once" \
		"dsl alone: $fig_alone; during the search: $fig_hole ($(ratio "$hole_up" "$alone_up")/$(ratio "$hole_down" "$alone_down") of dsl alone); found: $fig_after ($(ratio "$after_up" "$alone_up")/$(ratio "$after_down" "$alone_down")); the hole opening: $fig_shrink" \
		"lte pmtu_probes $probes_c (client); $(bond_figures mtu-shrink)"
}

# ---- the next case's section: its case_NAME function here, NAME in ALL_CASES below ----------------

# ---- the run ------------------------------------------------------------------------------------

start_server
start_client
nt_wait_log "$CCONF.log" 'session established' 10 || { cat "$CCONF.log" "$SCONF.log" >&2; nt_die "no session"; }

# One function per case, in this order. A new case is a case_NAME function
# (in its own section above this one) and NAME added here.
ALL_CASES="restart_server restart_client all_lost idle_loss busy_loss flap mtu reload"
for c in ${FAULT_CASES:-$ALL_CASES}; do
	declare -F "case_$c" >/dev/null || nt_die "no case $c (cases: $ALL_CASES)"
	"case_$c"
done

echo "figures:"
echo "| case | recovery | traffic | counters |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${FIGURES[@]}"
nt_finish
