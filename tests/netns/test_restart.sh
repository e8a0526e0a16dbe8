#!/usr/bin/env bash
# A peer that restarts: the survivor must take the new incarnation's
# traffic at once, both ways, with nothing stuck behind the old state.
#
#   uplink 1 "dsl" (wan1): 20 Mbit/s, 10 ms one way, 50 ms queue
#   uplink 2 "lte" (wan2): 20 Mbit/s, 15 ms one way, 50 ms queue
#   server peer "home" 10.255.0.1/30, routes 10.1.0.0/24 (lan) into the tunnel
#   client tun 10.255.0.2/30, routes 10.2.0.0/24 (srv) into the tunnel
#
# Before each case both ways carry more small UDP packets than the
# receiver's rings hold (over 70,000 DSNs each way), so a survivor that
# kept its old state would drop what the new incarnation sends as
# duplicates, and refuse what it sends itself as beyond the window. Cases:
#   1. the server killed (SIGKILL) and started again
#   2. the client killed and started again
#   3. the server stopped cleanly (SIGTERM: it says CLOSE) and started again
#   4. the client stopped cleanly and started again
#   5. the server restarted twice within 2 s
#   6. the client restarted twice within 2 s
# After each: a ping through the tunnel is answered within 3 s of the last
# start, 20 of 20 pings, a 4 MB file each way keeps its sha256, the
# survivor counts the restart (and its `wanbond monitor` tells of it), and
# neither side's duplicate nor beyond-window counter grows while pings run
# after the transfers. RESTART_CASES="1 5" runs only those cases.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

CLI=$NT_BUILD/bin/wanbond
SRV=10.2.0.2
LAN=10.1.0.2
PUSH_PACKETS=70000   # more than the reorder ring's 32768 slots, twice over
RECOVER_MS=3000

nt_init
[ -x "$CLI" ] || nt_die "missing $CLI (run make)"
command -v perl >/dev/null || nt_die "missing perl"
command -v sha256sum >/dev/null || nt_die "missing sha256sum"
nt_topology 2
nt_uplink_start 1 rate 20mbit delay 10ms limit 50ms seed 1
nt_uplink_start 2 rate 20mbit delay 15ms limit 50ms seed 2

nt_wb_home_pair
head -c $((4 * 1024 * 1024)) /dev/urandom >"$NT_TMP/up.bin"
head -c $((4 * 1024 * 1024)) /dev/urandom >"$NT_TMP/down.bin"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# counter SIDE NAME: a bond counter of the client or the server daemon, read with the CLI.
counter() {
	local dir=$NT_TMP/ctl-client
	[ "$1" = server ] && dir=$NT_TMP/ctl-server
	"$CLI" -d "$dir" stats home 2>/dev/null | awk -v n="$2" '$1 == "home" && $2 == n { print $3 }'
}

SPID="" CPID=""
start_server() { nt_wb_start vps "$SCONF"; SPID=$NT_LAST_PID; }
start_client() { nt_wb_start router "$CCONF"; CPID=$NT_LAST_PID; }
# stop SIDE SIGNAL: end that daemon and wait until it is gone.
stop() {
	local pid=$CPID
	[ "$1" = server ] && pid=$SPID
	kill "-$2" "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}
start() { if [ "$1" = server ]; then start_server; else start_client; fi; }

wait_ping() { nt_wait_ping lan "$SRV" "$1"; }

pings_answered() { nt_ping_answered "$(nt_run lan ping -q -n -c 20 -i 0.05 -W 2 "$SRV" 2>/dev/null || true)"; }

# push: over PUSH_PACKETS small UDP packets each way at once (iperf3 --bidir), lan <-> srv.
push() {
	local port json
	port=$(nt_free_port srv 5301)
	nt_iperf_server srv "$SRV" "$port"
	json=$(nt_run lan iperf3 -J -c "$SRV" -p "$port" -u --bidir -l 64 -b 6M -t 7 --connect-timeout 3000 2>/dev/null || true)
	jq -r '[.end.sum_sent.packets // 0, .end.sum_sent_bidir_reverse.packets // 0] | @tsv' <<<"$json" 2>/dev/null ||
		echo "0	0"
}

# sha_of FILE: the sha256 of $NT_TMP/FILE, "missing" if there is none.
sha_of() { sha256sum <"$NT_TMP/$1" 2>/dev/null || echo missing; }

# transfer_both: 4 MB each way at once over TCP; checks both sha256.
transfer_both() {
	local label=$1 up_pid down_pid
	rm -f "$NT_TMP/up.got" "$NT_TMP/down.got"
	nt_tcp_sink srv "$SRV" 6001 "$NT_TMP/up.got"
	up_pid=$NT_LAST_PID
	nt_tcp_sink lan "$LAN" 6002 "$NT_TMP/down.got"
	down_pid=$NT_LAST_PID
	nt_tcp_send lan "$SRV" 6001 "$NT_TMP/up.bin"
	nt_tcp_send srv "$LAN" 6002 "$NT_TMP/down.bin"
	for pid in "$up_pid" "$down_pid"; do
		for _ in $(seq 400); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		nt_stop "$pid"
	done
	nt_expect_true "$label: 4 MB lan -> srv, sha256 intact" test "$(sha_of up.bin)" = "$(sha_of up.got)"
	nt_expect_true "$label: 4 MB srv -> lan, sha256 intact" test "$(sha_of down.bin)" = "$(sha_of down.got)"
}

# minus A B: A - B, empty if either is (a counter that could not be read fails its check).
minus() { [ -n "$1" ] && [ -n "$2" ] && echo $(($1 - $2)); return 0; }
# stuck SIDE: the DSNs that side received as duplicates or beyond its window, in all.
stuck() {
	local dup beyond
	dup=$(counter "$1" rx_duplicates) beyond=$(counter "$1" rx_beyond_window)
	[ -n "$dup" ] && [ -n "$beyond" ] && echo $((dup + beyond))
	return 0
}

# monitor_start SIDE: `wanbond monitor` on that daemon's socket, into $NT_TMP/monitor.out.
MONITOR_PID=""
monitor_start() {
	local dir=$NT_TMP/ctl-$1
	nt_bg router "$NT_TMP/monitor.out" "$CLI" -d "$dir" monitor home
	MONITOR_PID=$NT_LAST_PID
	sleep 0.2
}
monitor_stop() { [ -n "$MONITOR_PID" ] && nt_stop "$MONITOR_PID"; MONITOR_PID=""; }

RESULTS=()

# restart_case NUMBER LABEL SIDE SIGNAL TIMES
restart_case() {
	shift
	local label=$1 side=$2 sig=$3 times=$4 survivor=server restarts0 t_ms c0 s0
	[ "$side" = server ] && survivor=client
	echo "$label"
	c0=$(counter client tun_rx_packets) s0=$(counter server tun_rx_packets)
	read -r up down <<<"$(push)"
	nt_expect_range "$label: UDP packets pushed lan -> srv before" "$up" $PUSH_PACKETS 1000000
	nt_expect_range "$label: UDP packets pushed srv -> lan before" "$down" $PUSH_PACKETS 1000000
	nt_expect_range "$label: DSNs the client took meanwhile" "$(minus "$(counter client tun_rx_packets)" "$c0")" \
		$PUSH_PACKETS 1000000
	nt_expect_range "$label: DSNs the server took meanwhile" "$(minus "$(counter server tun_rx_packets)" "$s0")" \
		$PUSH_PACKETS 1000000
	restarts0=$(counter "$survivor" peer_restarts)
	monitor_start "$survivor"
	for i in $(seq "$times"); do
		stop "$side" "$sig"
		start "$side"
		[ "$i" -lt "$times" ] && sleep 0.8
	done
	t_ms=$(wait_ping 10)
	nt_expect_range "$label: first ping answered, ms after the last start" "${t_ms:-}" 0 $RECOVER_MS
	RESULTS+=("$(printf '%-44s %s ms' "$label" "${t_ms:-never}")")
	nt_expect_range "$label: pings answered of 20" "$(pings_answered)" 20 20
	transfer_both "$label"
	nt_expect_range "$label: the $survivor counted the peer's restart" \
		"$(minus "$(counter "$survivor" peer_restarts)" "$restarts0")" 1 "$times"
	monitor_stop
	nt_expect_true "$label: the $survivor's monitor told of it" grep -q '^[0-9:]* home peer-restart' "$NT_TMP/monitor.out"
	grep 'peer-restart' "$NT_TMP/monitor.out" | sed 's/^/      /' || true
	c0=$(stuck client) s0=$(stuck server)
	pings_answered >/dev/null
	nt_expect_range "$label: client duplicates and beyond-window, growth" "$(minus "$(stuck client)" "$c0")" 0 0
	nt_expect_range "$label: server duplicates and beyond-window, growth" "$(minus "$(stuck server)" "$s0")" 0 0
}

start_server
start_client
nt_wait_log "$CCONF.log" 'session established' 10 || { cat "$CCONF.log" "$SCONF.log" >&2; nt_die "no session"; }
nt_expect_range "first session: ping answered, ms" "$(wait_ping 5)" 0 5000

CASES=${RESTART_CASES:-1 2 3 4 5 6}
run_case() { case " $CASES " in *" $1 "*) restart_case "$@" ;; esac; }
run_case 1 "1. server killed and started again" server KILL 1
run_case 2 "2. client killed and started again" client KILL 1
run_case 3 "3. server stopped cleanly and started again" server TERM 1
run_case 4 "4. client stopped cleanly and started again" client TERM 1
run_case 5 "5. server restarted twice within 2 s" server KILL 2
run_case 6 "6. client restarted twice within 2 s" client KILL 2

echo "recovery times (first ping answered after the last start):"
printf '  %s\n' "${RESULTS[@]}"
nt_finish
