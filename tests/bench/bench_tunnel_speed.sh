#!/usr/bin/env bash
# Speed of the tunnel's packet path: one emulated uplink of RATE (400 Mbit/s)
# and 20 ms RTT; TCP through the tunnel (lan to srv) against plain TCP over
# the same uplink (router to vps), side by side, both directions, for each
# cipher; with the daemons' CPU and the socket drops. Target: at least 0.9.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

RATE=${RATE:-400}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-6}

nt_init
nt_topology 1
nt_uplink_start 1 rate "${RATE}mbit" delay 10ms limit 40ms seed 1
nt_wb_keys server
nt_wb_keys home
nt_wb_server_conf "$NT_TMP/server.conf" "home:10.255.0.1/30:10.1.0.0/24"
nt_wb_client_conf "$NT_TMP/client.conf" home 10.255.0.2/30 10.2.0.0/24 dsl:wan1

cpu_seconds() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }
goodput() { jq -r '.end.sum_received.bits_per_second // 0'; }

# run CIPHER: prints one table row per direction
run() {
	local cipher=$1 spid cpid plain tun c0 c1 t0 t1 dir flag st
	for f in server client; do
		sed -i '/^cipher/d' "$NT_TMP/$f.conf"
		echo "cipher = \"$cipher\";" >>"$NT_TMP/$f.conf"
	done
	nt_wb_start vps "$NT_TMP/server.conf"; spid=$NT_LAST_PID
	nt_wb_start router "$NT_TMP/client.conf"; cpid=$NT_LAST_PID
	nt_wait_log "$NT_TMP/client.conf.log" "session established" 10 || nt_die "no session with $cipher"
	sleep 1
	for dir in upload download; do
		flag=""; [ "$dir" = download ] && flag=-R
		plain=$(nt_iperf router vps 10.100.1.2 -t "$SECONDS_PER_RUN" -O 1 $flag | goodput)
		c0=$(awk -v a="$(cpu_seconds "$spid")" -v b="$(cpu_seconds "$cpid")" 'BEGIN { print a + b }')
		t0=$(date +%s.%N)
		tun=$(nt_iperf lan srv 10.2.0.2 -t "$SECONDS_PER_RUN" -O 1 $flag | goodput)
		t1=$(date +%s.%N)
		c1=$(awk -v a="$(cpu_seconds "$spid")" -v b="$(cpu_seconds "$cpid")" 'BEGIN { print a + b }')
		printf '%-18s %-9s %8.1f %8.1f   %5.3f    %4.0f%%\n' "$cipher" "$dir" \
			"$(awk -v x="$plain" 'BEGIN { print x / 1e6 }')" "$(awk -v x="$tun" 'BEGIN { print x / 1e6 }')" \
			"$(awk -v a="$tun" -v b="$plain" 'BEGIN { print (b > 0) ? a / b : 0 }')" \
			"$(awk -v c="$c1" -v d="$c0" -v t="$t1" -v s="$t0" 'BEGIN { print 100 * (c - d) / (t - s) }')"
	done
	st=$(nt_wb_status "$cpid" "$NT_TMP/client.conf.log"; nt_wb_status "$spid" "$NT_TMP/server.conf.log")
	echo "                   receive buffer overflows: $(grep -oE 'overflows [0-9]+' <<<"$st" | awk '{ s += $2 } END { print s + 0 }')"
	nt_stop "$cpid"
	nt_stop "$spid"
	rm -f "$NT_TMP"/*.conf.log
}

echo "tunnel speed: one uplink of ${RATE} Mbit/s, 20 ms RTT; TCP goodput in Mbit/s, ${SECONDS_PER_RUN} s runs"
printf '%-18s %-9s %8s %8s   %-8s %s\n' "cipher" "direction" "plain" "tunnel" "ratio" "daemons' CPU (of one core)"
run chacha20-poly1305
run aes-256-gcm
