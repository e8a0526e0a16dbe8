#!/usr/bin/env bash
# `make demo`: a router with three emulated WAN uplinks of different kinds
# (DSL, an LTE link replayed from a real trace, a satellite link with jitter
# and loss), each measured alone with iperf3 in both directions, their sum,
# and then wanbond: a client on the router, a server on the vps, and TCP from
# the LAN host to the server host through the bonded tunnel.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

SECONDS_PER_RUN=${SECONDS_PER_RUN:-4}
TRACES=tests/traces
# name | linkem parameters (a2b is the upload, b2a the download)
UPLINKS=(
	"dsl|delay 10ms limit 50ms a2b rate 10mbit b2a rate 50mbit"
	"lte|delay 25ms limit 300p a2b trace $TRACES/TMobile-LTE-short.up b2a trace $TRACES/TMobile-LTE-short.down"
	"sat|delay 20ms jitter 4ms loss 0.5% limit 60ms a2b rate 15mbit b2a rate 100mbit"
)

nt_init
nt_topology "${#UPLINKS[@]}"

# (Re)start uplink K's emulator: a trace then starts again from its beginning,
# so every measurement of a trace-driven uplink sees the same stretch of it.
restart_uplink() {
	local params
	IFS='|' read -r _ params <<<"${UPLINKS[$(($1 - 1))]}"
	nt_uplink_stop "$1"
	# shellcheck disable=SC2086 # the parameters are words
	nt_uplink_start "$1" $params seed "$1"
}

mbit() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }

# configured K DIR: the rate linkem was given for that direction, in Mbit/s;
# for a trace, its rate over the measured seconds (after the first, omitted).
configured() {
	local line trace
	line=$(grep "^linkem: $2 " "$NT_TMP/linkem$1.log")
	trace=$(sed -nE 's/.* trace ([^ ]+) \(mean.*/\1/p' <<<"$line")
	if [ -n "$trace" ]; then
		awk -v from=1000 -v to=$(((1 + SECONDS_PER_RUN) * 1000)) \
			'$1 >= from && $1 < to { n++ } END { printf "%.1f (trace)", n * 12000 / (to - from) / 1000 }' "$trace"
	else
		sed -E 's/.* rate ([0-9.]+) mbit.*/\1/' <<<"$line" | awk '{ printf "%.1f", $1 }'
	fi
}

# tcp K [-R]: TCP goodput over uplink K, upload (or download with -R)
tcp() {
	nt_iperf router vps "10.100.$1.2" -t "$SECONDS_PER_RUN" -O 1 ${2:-} >"$NT_TMP/tcp.json"
	GOODPUT=$(jq -r '.end.sum_received.bits_per_second // 0' "$NT_TMP/tcp.json")
}

echo
echo "Emulated uplinks, each measured alone (TCP goodput, ${SECONDS_PER_RUN} s each way):"
printf '%-8s %-22s %-22s %s\n' "uplink" "download Mbit/s" "upload Mbit/s" "idle RTT"
printf '%-8s %-13s %-8s %-13s %-8s\n' "" "configured" "measured" "configured" "measured"
sum_down=0; sum_up=0
for k in $(seq "${#UPLINKS[@]}"); do
	IFS='|' read -r name _ <<<"${UPLINKS[$((k - 1))]}"
	restart_uplink "$k"
	rtt=$(nt_ping_rtt router "10.100.$k.2" 10)
	restart_uplink "$k"
	tcp "$k" -R
	down=$GOODPUT
	restart_uplink "$k"
	tcp "$k"
	up=$GOODPUT
	sum_down=$(awk -v a="$sum_down" -v b="$down" 'BEGIN { print a + b }')
	sum_up=$(awk -v a="$sum_up" -v b="$up" 'BEGIN { print a + b }')
	printf '%-8s %-13s %-8s %-13s %-8s %s ms\n' "$name" "$(configured "$k" b2a)" "$(mbit "$down")" \
		"$(configured "$k" a2b)" "$(mbit "$up")" "$rtt"
done
printf '%-8s %-13s %-8s %-13s %-8s\n' "sum" "" "$(mbit "$sum_down")" "" "$(mbit "$sum_up")"

# The bond: a client on the router over the three uplinks, a server on the vps.
nt_wb_keys server
nt_wb_keys home
nt_wb_server_conf "$NT_TMP/server.conf" "home:10.255.0.1/30:10.1.0.0/24"
uplink_args=()
for k in $(seq "${#UPLINKS[@]}"); do
	IFS='|' read -r name _ <<<"${UPLINKS[$((k - 1))]}"
	uplink_args+=("$name:wan$k")
done
nt_wb_client_conf "$NT_TMP/client.conf" home 10.255.0.2/30 10.2.0.0/24 "${uplink_args[@]}"
nt_wb_start vps "$NT_TMP/server.conf"
nt_wb_start router "$NT_TMP/client.conf"
nt_wait_log "$NT_TMP/client.conf.log" "session established" 10 || nt_die "the tunnel did not come up"

# Every trace starts again for the bond's runs, as for each uplink's. Not in a
# subshell: the restarted emulators' pids must stay known to this shell.
bond_tcp() {
	for k in $(seq "${#UPLINKS[@]}"); do restart_uplink "$k"; done
	sleep 1 # the uplinks answer their probes again
	nt_iperf lan srv 10.2.0.2 -t "$SECONDS_PER_RUN" -O 1 ${1:-} >"$NT_TMP/bond.json"
	BOND_GOODPUT=$(jq -r '.end.sum_received.bits_per_second // 0' "$NT_TMP/bond.json")
}
bond_tcp -R
bond_down=$BOND_GOODPUT
bond_tcp
bond_up=$BOND_GOODPUT
rtt=$(nt_ping_rtt lan 10.2.0.2 10)
printf '%-8s %-13s %-8s %-13s %-8s %s ms\n' "wanbond" "" "$(mbit "$bond_down")" "" "$(mbit "$bond_up")" "$rtt"
echo
echo "(each run replays the LTE trace from its start; its configured figure is the"
echo " trace's capacity over the measured seconds; TCP through the bond is the"
echo " LAN host's own TCP, lan to srv, over the tunnel)"
echo
echo "The router's view after the runs (wanbond show):"
"$NT_BUILD/bin/wanbond" -d "$NT_TMP/ctl-client" show | sed 's/^/  /'
