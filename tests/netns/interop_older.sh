#!/usr/bin/env bash
# A wanbondd with the traffic classes beside one from before them, both ways
# round (docs/protocol.md, "Capabilities"), over two emulated uplinks:
#
#   uplink 1 "dsl" (wan1): 30 Mbit/s, 10 ms one way, 40 ms queue
#   uplink 2 "lte" (wan2): 10 Mbit/s, 25 ms one way, 60 ms queue, 3% loss
#
# In each round, pings marked EF every 20 ms beside an upload (iperf3): the
# newer end still sends them first and copied, but as ordinary data, since
# the older end's handshake says it reads no traffic-class frames. Every
# ping is answered, the older end finds no frame it cannot parse
# (malformed 0), and the newer end said why once in its log. Before the
# handshake carried capabilities, the older end dropped every datagram with
# a call's packet in it.
#
#   tests/netns/interop_older.sh BUILD OLDER_BUILD
#
# OLDER_BUILD is a build of a wanbondd from before the classes (make
# check-interop builds one from the project's history).
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
OLDER_BUILD=${2:?usage: tests/netns/interop_older.sh BUILD OLDER_BUILD}
source tests/netns/lib.sh

NEWER=$NT_WANBONDD
OLDER=$OLDER_BUILD/bin/wanbondd
SRV=10.2.0.2
PINGS=200
EF_TOS=0xb8
NOTICE="the peer reads no traffic-class frames"

nt_init
[ -x "$OLDER" ] || nt_die "missing $OLDER (make check-interop builds it)"
nt_topology 2
nt_uplink_start 1 rate 30mbit delay 10ms limit 40ms seed 1
nt_uplink_start 2 rate 10mbit delay 25ms limit 60ms loss 3% seed 2
nt_wb_home_pair

# one_round LABEL CLIENT_BINARY SERVER_BINARY NEWER_SIDE (client or server)
one_round() {
	local label=$1 newer_side=$4 spid cpid npid nlog out port iperf
	echo "$label"
	rm -f "$SCONF.log" "$CCONF.log"
	NT_WANBONDD=$3 nt_wb_start vps "$SCONF"
	spid=$NT_LAST_PID
	NT_WANBONDD=$2 nt_wb_start router "$CCONF"
	cpid=$NT_LAST_PID
	nt_wait_log "$CCONF.log" "session established" 10 || nt_die "$label: no session"
	[ -n "$(nt_wait_ping lan "$SRV" 10)" ] || nt_die "$label: no ping through the tunnel"
	if [ "$newer_side" = client ]; then npid=$cpid nlog=$CCONF.log; else npid=$spid nlog=$SCONF.log; fi
	tx0=$(nt_wb_counter "$npid" "$nlog" interactive_tx_packets)
	port=$(nt_free_port srv "$NT_PORT_BASE")
	nt_iperf_server srv "$SRV" "$port"
	nt_bg lan "$NT_TMP/iperf-$newer_side.json" iperf3 -J -c "$SRV" -p "$port" -t 6
	iperf=$NT_LAST_PID
	sleep 1
	out=$(nt_run lan ping -q -n -Q "$EF_TOS" -c "$PINGS" -i 0.02 -W 2 "$SRV" 2>&1 || true)
	wait "$iperf" || true
	echo "  ($(grep -E 'rtt|round-trip' <<<"$out" || echo "no rtt line"))"
	nt_expect_range "pings answered of $PINGS" "$(nt_ping_answered "$out")" "$PINGS" "$PINGS"
	nt_expect_range "server: frames it could not parse" "$(nt_wb_counter "$spid" "$SCONF.log" malformed)" 0 0
	nt_expect_range "client: frames it could not parse" "$(nt_wb_counter "$cpid" "$CCONF.log" malformed)" 0 0
	nt_expect_range "$newer_side (newer): its pings or answers sent as interactive" \
		$(($(nt_wb_counter "$npid" "$nlog" interactive_tx_packets) - tx0)) "$PINGS" $((PINGS + 20))
	nt_expect_true "$newer_side (newer) logged why, once" [ "$(grep -c "$NOTICE" "$nlog")" = 1 ]
	nt_stop "$cpid"
	nt_stop "$spid"
}

one_round "a. a newer client, an older server" "$NEWER" "$OLDER" client
one_round "b. an older client, a newer server" "$OLDER" "$NEWER" server
nt_finish
