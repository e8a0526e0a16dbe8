#!/usr/bin/env bash
# Two routers on one server at once: each bond carries its own traffic.
#
#   lan  ---- router  -- em1 (uplink 1) --+
#                                          +-- vps ---- srv
#   lan2 ---- router2 -- em2 (uplink 2) --+
#
#   router  client "home":   tun 10.255.0.2/30, uplink dsl (wan1), LAN 10.1.0.0/24
#   router2 client "office": tun 10.255.0.6/30, uplink lte (wan2), LAN 10.3.0.0/24
#   vps     server, peers home (10.255.0.1/30, 10.1.0.0/24) and office (10.255.0.5/30, 10.3.0.0/24)
#
# Checks: both sessions; concurrent TCP from lan and lan2 to srv, each bond's
# server tun_tx_packets close to its own client's tun_rx_packets; ping from both LANs;
# and a packet with office's source address sent into home's tunnel is
# delivered to home's TUN device on the server, not to office's.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

SRV=10.2.0.2

nt_init
nt_build_base
nt_add_uplink 1
nt_add_router router2 lan2 10.3.0
nt_add_uplink 2 router2
nt_uplink_start 1 rate 50mbit delay 10ms limit 40ms seed 1
nt_uplink_start 2 rate 20mbit delay 20ms limit 60ms seed 2

for k in server home office; do nt_wb_keys "$k"; done
SCONF=$NT_TMP/vps.conf
HCONF=$NT_TMP/home.conf
OCONF=$NT_TMP/office.conf
nt_wb_server_conf "$SCONF" home:10.255.0.1/30:10.1.0.0/24 office:10.255.0.5/30:10.3.0.0/24
nt_wb_client_conf "$HCONF" home 10.255.0.2/30 10.2.0.0/24 dsl:wan1
nt_wb_client_conf "$OCONF" office 10.255.0.6/30 10.2.0.0/24 lte:wan2

nt_wb_start vps "$SCONF"
SPID=$NT_LAST_PID
nt_wb_start router "$HCONF"
HPID=$NT_LAST_PID
nt_wb_start router2 "$OCONF"
OPID=$NT_LAST_PID

ping_received() {
	nt_run "$1" ping -q -n -c "$2" -i "$3" -W 2 "$SRV" 2>/dev/null |
		awk '/received/ { for (i = 1; i <= NF; i++) if ($i ~ /^received/) print $(i - 1) }' || true
}

# bond_field TEXT BOND NAME: a counter of one bond.
bond_field() { nt_wb_field "$(nt_wb_counters "$1" "$2")" "$3"; }

echo "sessions"
for pair in "home:$HCONF.log" "office:$OCONF.log"; do
	nt_expect_true "${pair%%:*}: client session established within 5 s" nt_wait_log "${pair#*:}" 'session established' 5
done
for peer in home office; do
	nt_expect_true "server: session with $peer established" nt_wait_log "$SCONF.log" "^<[0-9]>$peer: session established" 2
done
if ! grep -q 'session established' "$HCONF.log" || ! grep -q 'session established' "$OCONF.log"; then
	nt_finish # nothing below can work
fi

echo "concurrent TCP lan -> srv (home) and lan2 -> srv (office)"
s1=$(nt_wb_status "$SPID" "$SCONF.log")
h1=$(nt_wb_status "$HPID" "$HCONF.log")
o1=$(nt_wb_status "$OPID" "$OCONF.log")
(NT_PORT_BASE=5201 nt_iperf lan srv "$SRV" -t 4 --connect-timeout 3000 >"$NT_TMP/home.json") &
job_home=$!
(NT_PORT_BASE=5301 nt_iperf lan2 srv "$SRV" -t 4 --connect-timeout 3000 >"$NT_TMP/office.json") &
job_office=$!
wait "$job_home" "$job_office" || true
sleep 0.5 # the last packets and acks
s2=$(nt_wb_status "$SPID" "$SCONF.log")
h2=$(nt_wb_status "$HPID" "$HCONF.log")
o2=$(nt_wb_status "$OPID" "$OCONF.log")

mbit() { jq -r '.end.sum_received.bits_per_second // empty' "$1" 2>/dev/null | awk '{ printf "%.1f", $1 / 1e6 }' || true; }
# 50 and 20 Mbit/s links carry at most ~48 and ~19 Mbit/s of goodput.
nt_expect_range "home TCP goodput Mbit/s" "$(mbit "$NT_TMP/home.json")" 0.1 49
nt_expect_range "office TCP goodput Mbit/s" "$(mbit "$NT_TMP/office.json")" 0.1 20

# Upload: what each client took from its TUN, and what the server wrote to each bond's TUN.
h_from=$(($(nt_wb_field "$h2" tun_rx_packets) - $(nt_wb_field "$h1" tun_rx_packets)))
o_from=$(($(nt_wb_field "$o2" tun_rx_packets) - $(nt_wb_field "$o1" tun_rx_packets)))
sh_to=$(($(bond_field "$s2" home tun_tx_packets) - $(bond_field "$s1" home tun_tx_packets)))
so_to=$(($(bond_field "$s2" office tun_tx_packets) - $(bond_field "$s1" office tun_tx_packets)))
# Download (the ACKs): what the server took from each bond's TUN, and what each client delivered.
sh_from=$(($(bond_field "$s2" home tun_rx_packets) - $(bond_field "$s1" home tun_rx_packets)))
so_from=$(($(bond_field "$s2" office tun_rx_packets) - $(bond_field "$s1" office tun_rx_packets)))
h_to=$(($(nt_wb_field "$h2" tun_tx_packets) - $(nt_wb_field "$h1" tun_tx_packets)))
o_to=$(($(nt_wb_field "$o2" tun_tx_packets) - $(nt_wb_field "$o1" tun_tx_packets)))
echo "  (upload packets: home client from tun $h_from, server home to tun $sh_to;" \
	"office client from tun $o_from, server office to tun $so_to)"
echo "  (download packets: server home from tun $sh_from, home client to tun $h_to;" \
	"server office from tun $so_from, office client to tun $o_to)"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f", a / b }'; }
# The emulators drop what overflows their queues (TCP fills them): a little
# less arrives than left; traffic of the other bond, or twice, would not fit.
nt_expect_range "home: packets the client sent" "$h_from" 1000 1000000
nt_expect_range "office: packets the client sent" "$o_from" 1000 1000000
nt_expect_range "home: server to tun / client from tun" "$(ratio "$sh_to" "$h_from")" 0.9 1
nt_expect_range "office: server to tun / client from tun" "$(ratio "$so_to" "$o_from")" 0.9 1
nt_expect_range "home: client to tun / server from tun" "$(ratio "$h_to" "$sh_from")" 0.9 1
nt_expect_range "office: client to tun / server from tun" "$(ratio "$o_to" "$so_from")" 0.9 1

echo "ping from both LANs"
nt_expect_range "lan -> srv, answered of 10" "$(ping_received lan 10 0.1)" 10 10
nt_expect_range "lan2 -> srv, answered of 10" "$(ping_received lan2 10 0.1)" 10 10

echo "a packet from office's prefix sent into home's tunnel"
# The home router sends with a source address of lan2's prefix: its route to
# srv is home's tunnel. The server takes from a bond only the sources of its
# routes and tunnel subnet: it must refuse them (source rejected), and never
# deliver them to any TUN device.
nt_run router ip addr add 10.3.0.77/32 dev lo
s1=$(nt_wb_status "$SPID" "$SCONF.log")
h1=$(nt_wb_status "$HPID" "$HCONF.log")
nt_run router ping -q -n -c 5 -i 0.1 -W 1 -I 10.3.0.77 "$SRV" >/dev/null 2>&1 || true # no answer expected here
sleep 0.3
s2=$(nt_wb_status "$SPID" "$SCONF.log")
h2=$(nt_wb_status "$HPID" "$HCONF.log")
h_from=$(($(nt_wb_field "$h2" tun_rx_packets) - $(nt_wb_field "$h1" tun_rx_packets)))
sh_to=$(($(bond_field "$s2" home tun_tx_packets) - $(bond_field "$s1" home tun_tx_packets)))
so_to=$(($(bond_field "$s2" office tun_tx_packets) - $(bond_field "$s1" office tun_tx_packets)))
sh_rej=$(($(bond_field "$s2" home source_rejected) - $(bond_field "$s1" home source_rejected)))
echo "  (home client from tun +$h_from; server: home to tun +$sh_to, office to tun +$so_to, home source rejected +$sh_rej)"
nt_expect_range "home client sent the 5 spoofed requests" "$h_from" 5 5
nt_expect_range "server refused them (source rejected)" "$sh_rej" 5 5
nt_expect_range "server delivered none to home's TUN" "$sh_to" 0 0
nt_expect_range "server delivered none to office's TUN" "$so_to" 0 0

nt_finish
