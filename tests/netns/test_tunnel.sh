#!/usr/bin/env bash
# The wanbond tunnel end to end: a client daemon on the router with two
# emulated uplinks, a server daemon on the vps, traffic between lan and srv.
#
#   uplink 1 "dsl" (wan1): 50 Mbit/s, 10 ms one way, 40 ms queue
#   uplink 2 "lte" (wan2): 20 Mbit/s, 20 ms one way, 60 ms queue
#   server peer "home" 10.255.0.1/30, routes 10.1.0.0/24 (lan) into the tunnel
#   client tun 10.255.0.2/30, routes 10.2.0.0/24 (srv) into the tunnel
#
# Checks, in order, on the same pair of daemons:
#   a. session and ping through the tunnel
#   b. TCP goodput (no scheduler nor reordering yet: a floor, not the sum)
#   c. a 20 MB transfer survives uplink 2 dying mid-way (its emulator stops:
#      the path goes silent, the interface stays up, so only the probes can
#      tell), byte for byte; the times to "lte: ... -> stale" and "-> down"
#   d. uplink 2 back: lte probing then up again, and used again
#   e. the router's wan1 address changes (NAT rebinding, a new DSL address)
#      while wan2 is down: the server follows the endpoint, ping goes on
#   f. datagrams captured on uplink 1 and sent again from its emulator
#      namespace (replayed, tag flipped, forged counter, garbage): counted by
#      the server as what they are, and nothing reaches its TUN device or srv
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

INJECT=$NT_BUILD/tests/tools/wbinject
SRV=10.2.0.2
PROBE_INTERVAL_MS=250   # the defaults of the timers (conf/router.conf)
UPLINK_TIMEOUT_MS=1000
LTE_RTT_MS=40           # 2 x 20 ms one way
MB20=$((20 * 1024 * 1024))

nt_init
[ -x "$INJECT" ] || nt_die "missing $INJECT (run make tool-bins)"
command -v perl >/dev/null || nt_die "missing perl"
nt_topology 2
nt_uplink_start 1 rate 50mbit delay 10ms limit 40ms seed 1
nt_uplink_start 2 rate 20mbit delay 20ms limit 60ms seed 2

nt_wb_home_pair
SLOG=$SCONF.log
CLOG=$CCONF.log

# ---- helpers ------------------------------------------------------------------

now_ms() { echo $(($(date +%s%N) / 1000000)); }
lines() { wc -l <"$1"; }

# ping_received NS COUNT INTERVAL: how many of COUNT pings to srv were answered.
ping_received() {
	nt_run "$1" ping -q -n -c "$2" -i "$3" -W 2 "$SRV" 2>/dev/null |
		awk '/received/ { for (i = 1; i <= NF; i++) if ($i ~ /^received/) print $(i - 1) }' || true
}

# wait_lines LOG FROM T0_MS TIMEOUT_S NAME=REGEX...: waits until every REGEX
# has appeared in LOG after line FROM and sets each NAME to the time in ms
# from T0_MS to when it was first seen (polled every 20 ms); NAME stays
# empty for a REGEX not seen in time.
wait_lines() {
	local log=$1 from=$2 t0=$3 deadline=$(($(now_ms) + $4 * 1000)) spec name re pending
	shift 4
	for spec in "$@"; do eval "${spec%%=*}="; done
	while :; do
		pending=0
		for spec in "$@"; do
			name=${spec%%=*} re=${spec#*=}
			[ -n "${!name}" ] && continue
			if tail -n +"$((from + 1))" "$log" | grep -Eq -- "$re"; then
				eval "$name=$(($(now_ms) - t0))"
			else
				pending=1
			fi
		done
		[ "$pending" -eq 0 ] || [ "$(now_ms)" -ge "$deadline" ] && return 0
		sleep 0.02
	done
}

# One status text of each daemon, read now.
server_status() { nt_wb_status "$SPID" "$SLOG"; }
client_status() { nt_wb_status "$CPID" "$CLOG"; }

# uplink_line TEXT BOND/UPLINK: that uplink's status line.
uplink_line() { grep -F "$2: " <<<"$1" | grep -F ', endpoint ' | tail -n 1; }
# uplink_field TEXT BOND/UPLINK NAME: one of that uplink's counters.
uplink_field() { nt_wb_field "$(nt_wb_counters "$1" "$2")" "$3"; }

# srv_in_echos: ICMP echo requests the srv host has received (its own netns counters).
# shellcheck disable=SC2016
srv_in_echos() { nt_run srv awk '/^Icmp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "InEchos") c = i; h = 1 } else print $c }' /proc/net/snmp; }

# The route to the server over wanK goes with wanK's link or address: put it back.
server_route() { nt_run router ip route replace "$NT_SERVER_ADDR/32" via "10.100.$1.2" dev "wan$1" metric "$1"; }

# ---- a. session and ping --------------------------------------------------------
echo "a. session and ping through the tunnel"
nt_wb_start vps "$SCONF"
SPID=$NT_LAST_PID
t0=$(now_ms)
nt_wb_start router "$CCONF"
CPID=$NT_LAST_PID
wait_lines "$CLOG" 0 "$t0" 5 t_session='session established'
nt_expect_range "client session established, ms after start" "$t_session" 0 5000
[ -n "$t_session" ] || nt_finish # nothing below can work
wait_lines "$CLOG" 0 "$t0" 5 t_dsl='home/dsl: .*-> up' t_lte='home/lte: .*-> up'
echo "  (dsl up after ${t_dsl:-never} ms, lte up after ${t_lte:-never} ms)"
nt_expect_range "ping lan -> srv through the tunnel, answered of 10" "$(ping_received lan 10 0.2)" 10 10

# ---- b. TCP goodput -----------------------------------------------------------------
echo "b. TCP goodput lan -> srv over both uplinks"
st=$(client_status)
tx_dsl0=$(uplink_field "$st" home/dsl tx_ip_packets)
tx_lte0=$(uplink_field "$st" home/lte tx_ip_packets)
nt_iperf lan srv "$SRV" -t 4 -O 1 --connect-timeout 3000 >"$NT_TMP/tcp.json"
goodput=$(jq -r '.end.sum_received.bits_per_second // empty' "$NT_TMP/tcp.json" 2>/dev/null || true)
retrans=$(jq -r '.end.sum_sent.retransmits // empty' "$NT_TMP/tcp.json" 2>/dev/null || true)
st=$(client_status)
tx_dsl=$(($(uplink_field "$st" home/dsl tx_ip_packets) - tx_dsl0))
tx_lte=$(($(uplink_field "$st" home/lte tx_ip_packets) - tx_lte0))
echo "  (retransmits ${retrans:-?}; IP packets sent on dsl $tx_dsl, on lte $tx_lte)"
# 50 + 20 Mbit/s of links carry at most ~68 Mbit/s of goodput; a floor of 10.
nt_expect_range "TCP goodput Mbit/s" "$(awk -v g="${goodput:-}" 'BEGIN { if (g != "") printf "%.1f", g / 1e6 }')" 10 68
nt_expect_true "both uplinks carried the TCP test" [ "$((tx_dsl > 100 && tx_lte > 100))" = 1 ]

# ---- c. failover with data intact -------------------------------------------------
echo "c. 20 MB over TCP while uplink 2 dies (its emulator stops) 1.5 s into the transfer"
head -c "$MB20" /dev/urandom >"$NT_TMP/in.bin"
PORT=$(nt_free_port srv 6000)
nt_tcp_sink srv "$SRV" "$PORT" "$NT_TMP/out.bin"
SINK=$NT_LAST_PID
from=$(lines "$CLOG")
t_start=$(now_ms)
nt_tcp_send lan "$SRV" "$PORT" "$NT_TMP/in.bin"
SENDER=$NT_LAST_PID
sleep 1.5
t_down=$(now_ms)
nt_uplink_stop 2
wait_lines "$CLOG" "$from" "$t_down" 5 t_stale='home/lte: up -> stale' t_gone='home/lte: [a-z]+ -> down'
for _ in $(seq 300); do kill -0 "$SINK" 2>/dev/null || break; sleep 0.1; done
t_done=$(($(now_ms) - t_start))
nt_stop "$SINK"
nt_stop "$SENDER"
got=$(awk '/^received/ { print $2 }' "$NT_TMP/sink-$PORT.log")
echo "  (transfer done after $t_done ms; sink: $(tr '\n' ' ' <"$NT_TMP/sink-$PORT.log"))"
echo "  (link down -> 'lte: up -> stale' ${t_stale:-never} ms, -> 'down' ${t_gone:-never} ms;" \
	"client log: $(tail -n +"$((from + 1))" "$CLOG" | grep -E 'home/lte: .* -> ' | tr '\n' ' '))"
nt_expect_range "bytes received of the 20 MB file" "${got:-}" "$MB20" "$MB20"
nt_expect_true "sha256 of the received file equals the sent one" \
	[ "$(sha256sum <"$NT_TMP/in.bin")" = "$(sha256sum <"$NT_TMP/out.bin" 2>/dev/null)" ]
nt_expect_range "transfer time ms (20 MB over >= 10 Mbit/s)" "$t_done" 0 20000
# Stale: a little over two probe intervals of silence, the silence starting
# up to a probe interval and an RTT before the link went.
nt_expect_range "ms from link down to lte stale" "${t_stale:-}" 0 \
	$((2 * PROBE_INTERVAL_MS + LTE_RTT_MS + 500))
# Down: uplink_timeout of silence ("down after this long without an answer",
# conf/router.conf), and the silence began before the link went down.
nt_expect_range "ms from link down to lte down" "${t_gone:-}" 0 $((UPLINK_TIMEOUT_MS + LTE_RTT_MS + 500))
# The same contract measured from the last answer, whatever the phase of the
# probes when the link went: the down line says how long lte had been silent
# then ("no answer for N ms"). (Stale comes sooner than that on a busy uplink:
# two probe timeouts of its data without an ack.)
silence=$(tail -n +"$((from + 1))" "$CLOG" | sed -nE 's/.*home\/lte: [a-z]+ -> down \(no answer for ([0-9]+) ms\).*/\1/p' | head -n 1)
nt_expect_range "ms of silence when lte went down (timeout $UPLINK_TIMEOUT_MS)" "${silence:-}" \
	$((UPLINK_TIMEOUT_MS - 100)) $((UPLINK_TIMEOUT_MS + 150))

# ---- d. the uplink comes back -------------------------------------------------------
echo "d. uplink 2 back (its emulator again)"
from=$(lines "$CLOG")
t_up=$(now_ms)
nt_uplink_start 2 rate 20mbit delay 20ms limit 60ms seed 2
wait_lines "$CLOG" "$from" "$t_up" 5 t_probing='home/lte: down -> probing' t_back='home/lte: probing -> up'
echo "  (link up -> 'lte: down -> probing' ${t_probing:-never} ms, -> 'up' ${t_back:-never} ms)"
nt_expect_range "ms from link up to lte probing" "${t_probing:-}" 0 5000
nt_expect_range "ms from link up to lte up" "${t_back:-}" 0 5000
tx0=$(uplink_field "$(client_status)" home/lte tx_ip_packets)
goodput=$(nt_iperf lan srv "$SRV" -t 2 | jq -r '.end.sum_received.bits_per_second // 0')
tx1=$(uplink_field "$(client_status)" home/lte tx_ip_packets)
echo "  (TCP for 2 s: $(awk -v b="$goodput" 'BEGIN { printf "%.1f", b / 1e6 }') Mbit/s)"
# A bulk transfer fills the fast uplink and spills onto lte: it is used again.
nt_expect_range "IP packets lte carried of a 2 s TCP transfer" "$((tx1 - tx0))" 100 1000000

# ---- e. the router's wan1 address changes --------------------------------------------------
echo "e. wan1 10.100.1.1 -> 10.100.1.11 while wan2 is down"
from=$(lines "$CLOG")
t0=$(now_ms)
nt_run router ip link set dev wan2 down
wait_lines "$CLOG" "$from" "$t0" 4 t_stale='home/lte: [a-z]+ -> (stale|down)'
echo "  (lte out of use ${t_stale:-never} ms after wan2 went down)"
sfrom=$(lines "$SLOG")
changes0=$(uplink_field "$(server_status)" home/dsl endpoint_changes)
t0=$(now_ms)
nt_run router ip addr del 10.100.1.1/24 dev wan1
nt_run router ip addr add 10.100.1.11/24 dev wan1
server_route 1
t_ping=""
while [ $(($(now_ms) - t0)) -lt 8000 ]; do
	if [ "$(ping_received lan 1 1)" = 1 ]; then t_ping=$(($(now_ms) - t0)); break; fi
done
echo "  (first answered ping ${t_ping:-never} ms after the change)"
nt_expect_range "ms until ping lan -> srv works again" "${t_ping:-}" 0 5000
nt_expect_range "ping after the change, answered of 10" "$(ping_received lan 10 0.1)" 10 10
# The client binds dsl's socket again on each address event (a new port; and
# between the two, wan1 has no address and the kernel picks another source):
# the server must end up following it to .11.
moved=$(tail -n +"$((sfrom + 1))" "$SLOG" | grep -E 'endpoint [0-9.]+:[0-9]+ -> 10\.100\.1\.11:[0-9]+' | head -n 1 || true)
echo "  (server log: ${moved:-no endpoint change})"
nt_expect_true "server log shows endpoint A:P -> 10.100.1.11:Q" [ -n "$moved" ]
status=$(server_status)
dsl=$(uplink_line "$status" home/dsl)
nt_expect_range "server dsl endpoint changes (were $changes0)" "$(uplink_field "$status" home/dsl endpoint_changes)" \
	$((changes0 + 1)) $((changes0 + 3))
nt_expect_true "server dsl endpoint is now 10.100.1.11" grep -q 'endpoint 10\.100\.1\.11:' <<<"$dsl"
from=$(lines "$CLOG")
t0=$(now_ms)
nt_run router ip link set dev wan2 up
server_route 2
wait_lines "$CLOG" "$from" "$t0" 5 t_back='home/lte: probing -> up'
nt_expect_range "ms until lte is up again" "${t_back:-}" 0 5000

# ---- f. replayed, forged and garbage datagrams ----------------------------------------------
echo "f. datagrams to port 51820 captured on em1 and sent again towards the vps"
CAP=$NT_TMP/dsl.pcap
nt_bg em1 "$NT_TMP/capture.log" "$INJECT" a capture 20 51820 "$CAP" 10
CAPTURE=$NT_LAST_PID
sleep 0.2
e0=$(srv_in_echos)
answered=$(ping_received lan 60 0.05)
e1=$(srv_in_echos)
for _ in $(seq 100); do kill -0 "$CAPTURE" 2>/dev/null || break; sleep 0.05; done
cap_rc=0
wait "$CAPTURE" 2>/dev/null || cap_rc=$?
echo "  ($(cat "$NT_TMP/capture.log"))"
nt_expect_true "captured 20 data messages (exit $cap_rc)" grep -q '^capture: 20 of 20 .*: 20 data messages' "$NT_TMP/capture.log"
# The srv counter this part relies on counts the pings that do arrive.
nt_expect_range "srv echo requests counted of 60 pings ($answered answered)" "$((e1 - e0))" 60 60
sleep 1   # quiet: no tunnelled traffic, probes only

s1=$(server_status)
c1=$(client_status)
e1=$(srv_in_echos)
inject() { nt_run em1 "$INJECT" b "$@" 2>&1 | tee -a "$NT_TMP/inject.log" | sed 's/^/  (/; s/$/)/'; }
inject replay "$CAP"
inject replay "$CAP" flip
inject replay "$CAP" forge
inject garbage 50 "$CAP"
sleep 0.5
s2=$(server_status)
c2=$(client_status)
e2=$(srv_in_echos)

delta() { echo $(($(nt_wb_field "$s2" "$1") - $(nt_wb_field "$s1" "$1"))); }
garbage_data=$(sed -nE 's/^garbage: .*: ([0-9]+) data messages.*/\1/p' "$NT_TMP/inject.log")
garbage_short=$(sed -nE 's/^garbage: .* ([0-9]+) short or of unknown type.*/\1/p' "$NT_TMP/inject.log")
sent_from_tun=$(($(nt_wb_field "$c2" tun_rx_packets) - $(nt_wb_field "$c1" tun_rx_packets)))
echo "  (server: datagrams +$(delta datagrams), replays +$(delta replays), auth failures +$(delta auth_failures)," \
	"unknown index +$(delta "unknown index"), short or unknown +$(delta "short or unknown"), to tun +$(delta tun_tx_packets);" \
	"client from tun +$sent_from_tun; srv InEchos +$((e2 - e1)))"
nt_expect_range "server datagrams grew by at least the 110 sent" "$(delta datagrams)" 110 200
# A flipped tag on a counter the window has seen is refused before the AEAD: a replay too.
nt_expect_range "replays grew by 20 replayed + 20 flipped" "$(delta replays)" 40 40
nt_expect_range "auth failures grew by the 20 forged" "$(delta auth_failures)" 20 20
nt_expect_range "unknown index grew by the data-shaped garbage" "$(delta "unknown index")" "${garbage_data:-x}" "${garbage_data:-x}"
nt_expect_range "short or unknown grew by the rest of the garbage" "$(delta "short or unknown")" "${garbage_short:-x}" "${garbage_short:-x}"
nt_expect_range "malformed did not grow" "$(delta malformed)" 0 0
nt_expect_range "to tun grew by what the client sent (+$sent_from_tun)" "$(delta tun_tx_packets)" "$sent_from_tun" "$sent_from_tun"
nt_expect_range "srv echo requests received meanwhile" "$((e2 - e1))" 0 0
nt_expect_range "ping through the tunnel afterwards, answered of 10" "$(ping_received lan 10 0.1)" 10 10

nt_finish
