#!/usr/bin/env bash
# Traffic classes end to end, through the real daemons over two emulated
# uplinks:
#
#   uplink 1 "dsl" (wan1): 30 Mbit/s, 10 ms one way, 40 ms queue
#   uplink 2 "lte" (wan2): 10 Mbit/s, 25 ms one way, 60 ms queue, 3% loss
#
#   a. pings marked EF (ping -Q 0xb8: the answers carry the request's TOS
#      back) every 20 ms beside an upload (iperf3, CUBIC): every ping is
#      answered; each end counted them as interactive, sent a copy of each
#      on the other uplink and delivered them unordered, some of them ahead
#      of a gap the upload's losses on lte left; the upload still runs;
#   b. the client's datagrams on wan1 carry the inner DSCP
#      (transport.outer_dscp): EF for the pings, 0 for the upload;
#   c. classes off by SIGHUP: the same pings are bulk, counted as nothing.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

DSCP_COUNT=$NT_BUILD/tests/tools/dscp_count
SRV=10.2.0.2
PINGS=300
EF_TOS=0xb8

nt_init
[ -x "$DSCP_COUNT" ] || nt_die "missing $DSCP_COUNT (run make tool-bins)"
nt_topology 2
nt_uplink_start 1 rate 30mbit delay 10ms limit 40ms seed 1
nt_uplink_start 2 rate 10mbit delay 25ms limit 60ms loss 3% seed 2
nt_wb_home_pair
echo 'transport = { outer_dscp = true; };' >>"$CCONF"
nt_wb_start vps "$SCONF"
SPID=$NT_LAST_PID
nt_wb_start router "$CCONF"
CPID=$NT_LAST_PID
nt_wait_log "$CCONF.log" "session established" 10 || nt_die "no session"
[ -n "$(nt_wait_ping lan "$SRV" 10)" ] || nt_die "no ping through the tunnel"
sleep 1

client_counter() { nt_wb_counter "$CPID" "$CCONF.log" "$1"; }
server_counter() { nt_wb_counter "$SPID" "$SCONF.log" "$1"; }

echo "a. $PINGS pings marked EF beside an upload"
tx0=$(client_counter interactive_tx_packets)
copies0=$(client_counter interactive_copies)
rx0=$(server_counter interactive_rx_packets)
early0=$(server_counter interactive_rx_early)
stx0=$(server_counter interactive_tx_packets)
PORT=$(nt_free_port srv "$NT_PORT_BASE")
nt_iperf_server srv "$SRV" "$PORT"
nt_bg lan "$NT_TMP/iperf-up.json" iperf3 -J -c "$SRV" -p "$PORT" -t 9
IPERF=$NT_LAST_PID
nt_bg router "$NT_TMP/dscp.log" "$DSCP_COUNT" wan1 51820 7
COUNT=$NT_LAST_PID
sleep 1
out=$(nt_run lan ping -q -n -Q "$EF_TOS" -c "$PINGS" -i 0.02 -W 2 "$SRV" 2>&1 || true)
wait "$IPERF" || true
wait "$COUNT" || true
echo "  ($(grep -E 'rtt|round-trip' <<<"$out" || echo "no rtt line"))"
upload=$(jq -r '.end.sum_received.bits_per_second // 0' "$NT_TMP/iperf-up.json")
echo "  (the upload beside them: $(awk -v b="$upload" 'BEGIN { printf "%.1f", b / 1e6 }') Mbit/s)"
nt_expect_range "pings answered of $PINGS" "$(nt_ping_answered "$out")" "$PINGS" "$PINGS"
nt_expect_range "client: interactive packets sent" $(($(client_counter interactive_tx_packets) - tx0)) "$PINGS" $((PINGS + 20))
nt_expect_range "client: copies of them on the other uplink" $(($(client_counter interactive_copies) - copies0)) $((PINGS * 8 / 10)) $((PINGS + 20))
nt_expect_range "server: interactive packets delivered" $(($(server_counter interactive_rx_packets) - rx0)) "$PINGS" $((PINGS + 20))
nt_expect_range "server: answers sent as interactive (their TOS is the request's)" $(($(server_counter interactive_tx_packets) - stx0)) "$PINGS" $((PINGS + 20))
nt_expect_range "server: of them delivered ahead of a gap" $(($(server_counter interactive_rx_early) - early0)) 1 "$PINGS"
nt_expect_range "the upload beside them, Mbit/s" "$(awk -v b="$upload" 'BEGIN { printf "%.1f", b / 1e6 }')" 5 40

echo "b. the outer DSCP on wan1"
sed 's/^/  (/; s/$/)/' "$NT_TMP/dscp.log"
ef=$(awk '$1 == "dscp" && $2 == 46 { print $4 }' "$NT_TMP/dscp.log")
plain=$(awk '$1 == "dscp" && $2 == 0 { print $4 }' "$NT_TMP/dscp.log")
others=$(awk '$1 == "dscp" && $2 != 0 && $2 != 46 { n += $4 } END { print n + 0 }' "$NT_TMP/dscp.log")
nt_expect_range "datagrams marked EF (the pings, first copies or second, on wan1)" "${ef:-0}" $((PINGS / 2)) $((PINGS * 2))
nt_expect_range "datagrams unmarked (the upload, its acks, probes)" "${plain:-0}" 1000 10000000
nt_expect_range "datagrams of any other DSCP" "$others" 0 0

echo "c. classes off by SIGHUP"
sed -i 's/^transport = { outer_dscp = true; };$/transport = { outer_dscp = true; };\nclasses = { enabled = false; };/' "$CCONF"
lines=$(wc -l <"$CCONF.log")
kill -HUP "$CPID"
nt_wait_log "$CCONF.log" "reload: traffic classes off" 5 || nt_die "the reload did not turn the classes off"
tx0=$(client_counter interactive_tx_packets)
out=$(nt_run lan ping -q -n -Q "$EF_TOS" -c 50 -i 0.02 -W 2 "$SRV" 2>&1 || true)
nt_expect_range "pings answered of 50" "$(nt_ping_answered "$out")" 50 50
nt_expect_range "client: interactive packets sent since" $(($(client_counter interactive_tx_packets) - tx0)) 0 0
nt_expect_true "the reload said so once" [ "$(tail -n +"$((lines + 1))" "$CCONF.log" | grep -c 'reload: traffic classes off')" = 1 ]
nt_finish
