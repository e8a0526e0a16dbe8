#!/usr/bin/env bash
# Calibration of the link emulator: through one emulated uplink, the measured
# rate (TCP and UDP), RTT, loss ratio and queue bound must match what linkem
# was told. Bounds are ratios, generous for a shared 2-core machine and tight
# enough to catch a broken emulator.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

PEER=10.100.1.2   # the vps end of uplink 1
MTU=1500
UDP_LEN=1400      # UDP payload; the IP packet is 28 bytes more

nt_init
nt_topology 1

# The TCP goodput that a link of RATE bit/s carries: payload over packet size.
tcp_expected() { awk -v r="$1" -v mss="$2" -v mtu="$MTU" 'BEGIN { printf "%.0f", r * mss / mtu }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }

# iperf3 TCP for SECONDS after OMIT seconds of slow start: "goodput_bps mss".
iperf_tcp() {
	nt_iperf router vps "$PEER" -t "$1" -O "$2" >"$NT_TMP/tcp.json"
	jq -r '"\(.end.sum_received.bits_per_second) \(.start.tcp_mss_default)"' "$NT_TMP/tcp.json"
}

# iperf3 UDP at OFFERED bit/s for SECONDS: "received_bps packets lost".
iperf_udp() {
	nt_iperf router vps "$PEER" -u -b "$1" -l "$UDP_LEN" -t "$2" >"$NT_TMP/udp.json"
	jq -r '"\(.end.sum_received.bits_per_second) \(.end.sum.packets) \(.end.sum.lost_packets)"' "$NT_TMP/udp.json"
}

# case RATE_MBIT ONE_WAY_DELAY_MS: RTT, TCP rate, UDP rate and the queue bound.
calibrate() {
	local mbit=$1 delay=$2 rate=$(($1 * 1000000)) limit_ms rtt expect tcp mss udp pkts lost max_q
	limit_ms=$((4 * delay > 20 ? 4 * delay : 20))  # two round trips of queue: TCP fills the link
	echo "case rate ${mbit}mbit, one-way delay ${delay}ms, queue ${limit_ms}ms"
	nt_uplink_start 1 rate "${mbit}mbit" delay "${delay}ms" limit "${limit_ms}ms" seed 7

	# An 84-byte echo is serialised once each way.
	expect=$(awk -v d="$delay" -v r="$rate" 'BEGIN { printf "%.3f", 2 * d + 2 * 84 * 8 / r * 1000 }')
	rtt=$(nt_ping_rtt router "$PEER")
	nt_expect_range "ping RTT ms (expect $expect)" "$rtt" \
		"$(awk -v e="$expect" 'BEGIN { print e * 0.9 - 1 }')" "$(awk -v e="$expect" 'BEGIN { print e * 1.1 + 1 }')"

	read -r tcp mss < <(iperf_tcp 4 $((delay >= 20 ? 2 : 1)))
	nt_expect_range "TCP goodput / configured (mss $mss)" "$(ratio "$tcp" "$(tcp_expected "$rate" "$mss")")" 0.85 1.03

	# Offer 20% more than the link takes: the emulator, not the sender, sets the rate.
	read -r udp pkts lost < <(iperf_udp $((rate * 12 / 10)) 3)
	nt_expect_range "UDP goodput / configured" \
		"$(ratio "$udp" "$(awk -v r="$rate" -v l="$UDP_LEN" 'BEGIN { print r * l / (l + 28) }')")" 0.85 1.03
	max_q=$(nt_uplink_counter 1 a2b max_queue_ms)
	# The queue holds at most its limit; the packet that fills it may wait one packet time more.
	nt_expect_range "max queue ms under overload" "$max_q" 0 \
		"$(awk -v l="$limit_ms" -v r="$rate" 'BEGIN { print l + 1500 * 8 / r * 1000 }')"
	nt_expect_true "overload dropped at the queue" [ "$(nt_uplink_counter 1 a2b queue_drops)" -gt 0 ]
	nt_uplink_stop 1
}

# Bernoulli loss, upload only, at half the rate (no queue drops): the loss
# ratio iperf3 sees must be inside the binomial 99.9% interval.
calibrate_loss() {
	local p=0.02 udp pkts lost lo hi
	echo "case loss 2% upload only, rate 20mbit, UDP at 10mbit"
	nt_uplink_start 1 rate 20mbit delay 5ms limit 50ms seed 11 a2b loss 2%
	read -r udp pkts lost < <(iperf_udp 10000000 3)
	read -r lo hi < <(nt_binomial_interval "$pkts" "$p" 0.999)
	nt_expect_range "UDP packets lost of $pkts (p = $p)" "$lost" "$lo" "$hi"
	nt_expect_range "no queue drops below the rate" "$(nt_uplink_counter 1 a2b queue_drops)" 0 0
	nt_expect_range "download untouched by upload loss" "$(nt_uplink_counter 1 b2a loss_drops)" 0 0
	nt_uplink_stop 1
}

# Trace mode: a synthetic trace of 100 ms, 50 ms at 4 opportunities per ms and
# 50 ms at 1: a mean of 30 Mbit/s, bursty inside each period.
calibrate_trace() {
	local trace="$NT_TMP/square.trace" udp pkts lost mean=30000000
	echo "case trace: square wave 48/12 mbit, mean 30 mbit"
	awk 'BEGIN { for (t = 1; t <= 100; t++) for (i = 0; i < (t <= 50 ? 4 : 1); i++) print t }' >"$trace"
	nt_uplink_start 1 trace "$trace" delay 5ms limit 200p seed 3
	read -r udp pkts lost < <(iperf_udp 36000000 3)
	nt_expect_range "UDP goodput / trace mean rate" \
		"$(ratio "$udp" "$(awk -v r="$mean" -v l="$UDP_LEN" 'BEGIN { print r * l / (l + 28) }')")" 0.85 1.03
	nt_uplink_stop 1
}

# Neighbour discovery (IPv6) and ARP cross the emulator like any frame.
calibrate_neighbours() {
	echo "case ARP and IPv6 neighbour discovery through the emulator"
	nt_uplink_start 1 rate 10mbit delay 1ms
	nt_run router ip neigh flush dev wan1
	nt_expect_true "IPv4 ping after ARP" nt_run router ping -q -c 2 -i 0.2 -W 3 "$PEER"
	nt_expect_true "IPv6 ping after neighbour discovery" nt_run router ping -6 -q -c 2 -i 0.2 -W 3 fd00:100:1::2
	nt_uplink_stop 1
}

calibrate_neighbours
calibrate 10 5
calibrate 10 40
calibrate 50 5
calibrate 50 40
calibrate_loss
calibrate_trace
nt_finish
