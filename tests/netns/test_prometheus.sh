#!/usr/bin/env bash
# `wanbond stats --prometheus` and the OpenWrt collector
# (openwrt/wanbond/files/wanbond.lua) against running daemons:
#
#   uplink 1 "dsl" (wan1): 30 Mbit/s, 10 ms one way
#   uplink 2 "lte" (wan2): 10 Mbit/s, 20 ms one way
#   the server has two peers: home (the client here) and office (never connects)
#
# Checks:
#   a. the checker (prom_check.awk) refuses what is not the format
#   b. the client's and the server's output: exit code 0, every line of the
#      format (promtool is not in the dependencies: Debian's prometheus
#      package is the whole server), a HELP for every family; both bonds on
#      the server, session up on one and not the other; both uplinks with
#      the families expected; a family for every counter of `wanbond -j show`
#   c. counters grow with traffic: five pings, five packets more at least
#   d. the collector under lua5.1 with cjson, through a driver that defines
#      metric() as prometheus-node-exporter-lua does: the same series as
#      `wanbond stats --prometheus`, and the same values (read between two
#      reads of the CLI: counters between the two, gauges as both)
#   e. wan2 down: lte's wanbond_uplink_up 0 and its state 0, why in
#      wanbond_uplink_info; dsl's 1; the collector says the same
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

CLI=$NT_BUILD/bin/wanbond
CHECK=tests/netns/prom_check.awk
SERIES=tests/netns/prom_series.awk
DRIVER=tests/netns/prom_lua_driver.lua
COLLECTOR_DIR=openwrt/wanbond/files
SRV=10.2.0.2

nt_init
[ -x "$CLI" ] || nt_die "missing $CLI (run make)"
command -v lua5.1 >/dev/null || nt_die "missing lua5.1 (make deps)"
lua5.1 -e 'require "cjson"' 2>/dev/null || nt_die "missing cjson for Lua 5.1 (lua-cjson; make deps)"
nt_topology 2
nt_uplink_start 1 rate 30mbit delay 10ms limit 40ms seed 1
nt_uplink_start 2 rate 10mbit delay 20ms limit 60ms seed 2

nt_wb_home_pair
nt_wb_keys office
nt_wb_server_conf "$SCONF" home:10.255.0.1/30:10.1.0.0/24 office:10.255.0.5/30:10.3.0.0/24
CDIR=$NT_TMP/ctl-client
SDIR=$NT_TMP/ctl-server

prom() { "$CLI" -d "$1" stats --prometheus; }
# collector DIR: the Lua collector's output, its wanbond reading the daemons of DIR.
collector() { WANBOND_CONTROL_DIR=$1 PATH="$NT_BUILD/bin:$PATH" lua5.1 "$DRIVER" "$COLLECTOR_DIR" wanbond; }
# value FILE SERIES: the value of a series (labels as printed) in an output; empty if none.
value() { awk -v s="$2" 'index($0, s " ") == 1 { print substr($0, length(s) + 2); exit }' "$1"; }
state_is() { [ "$("$CLI" -d "$CDIR" -j show home | jq -r ".[0].uplinks[] | select(.name == \"$1\") | .state")" = "$2" ]; }

# ---- a. the checker ----------------------------------------------------------------------------------
echo "a. the checker refuses what is not the format"
# accepted LINE...: the lines, as they are, pass the checker; refused: they do not.
accepted() { printf '%s\n' "$@" | awk -f "$CHECK"; }
refused() { ! printf '%s\n' "$@" | awk -f "$CHECK" >/dev/null; }
nt_expect_true "checker: takes a good exposition" accepted '# HELP a_total A, \\ and \n.' '# TYPE a_total counter' \
	'a_total{x="1\\\"\n",y=""} 3' '# a comment' '# TYPE b gauge' 'b 1.5e3' 'b{y="2"} NaN' 'b{y="3"} -Inf 1700000000000'
nt_expect_true "checker: a TYPE twice" refused '# TYPE b gauge' '# TYPE b gauge' 'b 1'
nt_expect_true "checker: a family's samples apart" refused '# TYPE b gauge' 'b{x="1"} 1' '# TYPE c gauge' 'c 1' 'b{x="2"} 1'
nt_expect_true "checker: an escape that is not one" refused '# TYPE b gauge' 'b{x="\x41"} 1'
nt_expect_true "checker: a value that is not a number" refused '# TYPE b gauge' 'b 1,5'
nt_expect_true "checker: a counter not named _total" refused '# TYPE b counter' 'b 1'
nt_expect_true "checker: a negative counter" refused '# TYPE b_total counter' 'b_total -1'
nt_expect_true "checker: a sample before its TYPE" refused 'b 1' '# TYPE b gauge'
nt_expect_true "checker: a series twice" refused '# TYPE b gauge' 'b{x="1"} 1' 'b{x="1"} 2'
nt_expect_true "checker: a label twice" refused '# TYPE b gauge' 'b{x="1",x="2"} 1'
nt_expect_true "checker: a label not closed" refused '# TYPE b gauge' 'b{x="1} 1'
nt_expect_true "checker: no value" refused '# TYPE b gauge' 'b{x="1"}'
nt_expect_true "checker: need_help, a family without" sh -c "! printf '# TYPE b gauge\nb 1\n' | awk -v need_help=1 -f '$CHECK' >/dev/null"

nt_wb_start vps "$SCONF"
nt_wb_start router "$CCONF"
nt_wait_log "$CCONF.log" 'session established' 10 || { cat "$CCONF.log" "$SCONF.log" >&2; nt_die "no session"; }
nt_wait_for 5 state_is dsl up || true
nt_wait_for 5 state_is lte up || true

# ---- b. the format, the families -------------------------------------------------------------------
echo "b. wanbond stats --prometheus: the format and the families"
prom "$CDIR" >"$NT_TMP/client.prom" && rc=0 || rc=$?
nt_expect_range "client: exit code" "$rc" 0 0
prom "$SDIR" >"$NT_TMP/server.prom" && rc=0 || rc=$?
nt_expect_range "server: exit code" "$rc" 0 0
for side in client server; do
	awk -v need_help=1 -f "$CHECK" "$NT_TMP/$side.prom" >"$NT_TMP/$side.check" && ok=1 || ok=0
	sed 's/^/      /' "$NT_TMP/$side.check" | head -5
	nt_expect_range "$side: every line of the format, HELP for each family" "$ok" 1 1
done
nt_expect_range "client: lines" "$(wc -l <"$NT_TMP/client.prom")" 200 2000
sed 's/^/      /' "$NT_TMP/client.prom" | grep -E '^      (# (HELP|TYPE) )?wanbond_(bond_info|bond_session_up|uplink_(up|rtt_seconds|loss_ratio|info|tx_bytes_total))[ {]'
nt_expect_true "server: home's session up" [ "$(value "$NT_TMP/server.prom" 'wanbond_bond_session_up{bond="home"}')" = 1 ]
nt_expect_true "server: office's session not" [ "$(value "$NT_TMP/server.prom" 'wanbond_bond_session_up{bond="office"}')" = 0 ]
nt_expect_true "server: office has no handshake age" [ -z "$(value "$NT_TMP/server.prom" 'wanbond_bond_handshake_age_seconds{bond="office"}')" ]
nt_expect_true "server: both bonds' info" sh -c "grep -q '^wanbond_bond_info{bond=\"home\",role=\"server\"' '$NT_TMP/server.prom' && grep -q '^wanbond_bond_info{bond=\"office\",role=\"server\"' '$NT_TMP/server.prom'"
# The device's counters: the server's one socket, the same under both its bonds.
dgrams_home=$(value "$NT_TMP/server.prom" 'wanbond_device_rx_datagrams_total{bond="home"}')
nt_expect_range "server: the device's datagrams received" "${dgrams_home:-0}" 1 100000000
nt_expect_true "server: the device's counters the same under office" [ "$(value "$NT_TMP/server.prom" 'wanbond_device_rx_datagrams_total{bond="office"}')" = "$dgrams_home" ]
missing=""
for family in wanbond_uplink_up wanbond_uplink_state wanbond_uplink_enabled wanbond_uplink_backup wanbond_uplink_weight \
	wanbond_uplink_rtt_seconds wanbond_uplink_min_rtt_seconds wanbond_uplink_rtt_variation_seconds wanbond_uplink_loss_ratio \
	wanbond_uplink_cwnd_bytes wanbond_uplink_in_flight_bytes wanbond_uplink_pacing_rate_bytes_per_second \
	wanbond_uplink_pmtu_bytes wanbond_uplink_max_packet_bytes; do
	for up in dsl lte; do
		[ -n "$(value "$NT_TMP/client.prom" "$family{bond=\"home\",uplink=\"$up\"}")" ] || missing+=" $family/$up"
	done
done
nt_expect_true "client: the uplink gauges of dsl and lte${missing:+ (missing:$missing)}" [ -z "$missing" ]
# Every counter the JSON has: a family of that name, a sample per bond or uplink.
"$CLI" -d "$CDIR" -j show >"$NT_TMP/client.json"
missing=""
for c in $(jq -r '.[0].counters | keys[]' "$NT_TMP/client.json"); do
	grep -qE "^wanbond_bond_${c}(_total|_bytes)?\{bond=\"home\"\} [0-9]" "$NT_TMP/client.prom" || missing+=" $c"
done
for c in $(jq -r '.[0].uplinks[0].counters | keys[]' "$NT_TMP/client.json"); do
	for up in dsl lte; do
		[ -n "$(value "$NT_TMP/client.prom" "wanbond_uplink_${c}_total{bond=\"home\",uplink=\"$up\"}")" ] || missing+=" $up/$c"
	done
done
nt_expect_range "client: JSON's bond counters" "$(jq '.[0].counters | length' "$NT_TMP/client.json")" 39 1000
nt_expect_true "client: a family for every counter of the JSON${missing:+ (missing:$missing)}" [ -z "$missing" ]
nt_expect_true "client: rtt in seconds (dsl: 20 ms at least)" awk -v v="$(value "$NT_TMP/client.prom" 'wanbond_uplink_min_rtt_seconds{bond="home",uplink="dsl"}')" 'BEGIN { exit !(v >= 0.019 && v < 1) }'

# ---- c. counters grow ---------------------------------------------------------------------------------
echo "c. five pings: the counters grow"
tun_rx='wanbond_bond_tun_rx_packets_total{bond="home"}'
data_sum() { awk '/^wanbond_uplink_data_packets_total\{bond="home"/ { s += $NF } END { print s + 0 }' "$1"; }
before=$(value "$NT_TMP/client.prom" "$tun_rx")
data_before=$(data_sum "$NT_TMP/client.prom")
nt_run lan ping -q -n -c 5 -i 0.1 -W 2 "$SRV" >/dev/null 2>&1 || true
prom "$CDIR" >"$NT_TMP/after.prom"
nt_expect_range "tun_rx_packets_total: more after the pings" "$(($(value "$NT_TMP/after.prom" "$tun_rx") - before))" 5 1000
nt_expect_range "data_packets_total of the uplinks: more" "$(($(data_sum "$NT_TMP/after.prom") - data_before))" 5 1000

# ---- d. the OpenWrt collector --------------------------------------------------------------------------
echo "d. the OpenWrt collector under lua5.1: the same series and values"
# compare C1 LUA C2: every series of the collector's in the CLI's and back; counters (and
# the times and peaks that only grow) between the CLI's two reads, the other gauges as both.
compare() {
	awk -F'\t' '
		function grows(k) { return k ~ /^[a-z_]*_total\{/ || k ~ /^wanbond_(daemon_uptime_seconds|bond_handshake_age_seconds|bond_reorder_held_max_bytes|bond_pool_high_water_bytes)\{/ }
		function near(a, b) { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; return d <= 1e-9 * (m > 1 ? m : 1) }
		FILENAME == ARGV[1] { c1[$1] = $2; next }
		FILENAME == ARGV[2] { lua[$1] = $2; next }
		{ c2[$1] = $2 }
		END {
			for (k in c1) { n++; if (!(k in lua)) { print "not from the collector: " k; bad++ } }
			for (k in lua) {
				if (!(k in c1) || !(k in c2)) { print "not from the CLI: " k; bad++; continue }
				if (grows(k)) {
					if (lua[k] + 1e-6 < c1[k] || lua[k] > c2[k] + 1e-6) { print "outside the CLI'"'"'s reads: " k " " c1[k] " " lua[k] " " c2[k]; bad++ }
				} else if (!near(c1[k], c2[k])) {
					print "changed between the CLI'"'"'s reads: " k " " c1[k] " " c2[k]; bad++
				} else if (!near(lua[k], c1[k])) {
					print "differs: " k " " c1[k] " " lua[k]; bad++
				}
			}
			printf "%d series compared\n", n
			exit bad > 0
		}' "$1" "$2" "$3"
}
# agree DIR TAG: the CLI, the collector, the CLI again, until one round agrees (a probe every
# 250 ms moves an RTT now and then: a round it lands in is read again); 0 if one did.
agree() {
	local dir=$1 tag=$2
	for round in $(seq 20); do
		prom "$dir" >"$NT_TMP/$tag.c1" || true
		collector "$dir" >"$NT_TMP/$tag.lua" 2>"$NT_TMP/$tag.lua.err" || { cat "$NT_TMP/$tag.lua.err"; return 1; }
		prom "$dir" >"$NT_TMP/$tag.c2" || true
		for f in c1 lua c2; do awk -f "$SERIES" "$NT_TMP/$tag.$f" >"$NT_TMP/$tag.$f.series"; done
		if compare "$NT_TMP/$tag.c1.series" "$NT_TMP/$tag.lua.series" "$NT_TMP/$tag.c2.series" >"$NT_TMP/$tag.diff"; then
			echo "      round $round: $(tail -n 1 "$NT_TMP/$tag.diff")"
			return 0
		fi
	done
	head -n 10 "$NT_TMP/$tag.diff" | sed 's/^/      /'
	return 1
}
collector "$CDIR" >"$NT_TMP/lua.prom" && rc=0 || rc=$?
nt_expect_range "collector: scrape succeeded" "$rc" 0 0
awk -f "$CHECK" "$NT_TMP/lua.prom" >"$NT_TMP/lua.check" && ok=1 || ok=0
sed 's/^/      /' "$NT_TMP/lua.check" | head -5
nt_expect_range "collector: every line of the format" "$ok" 1 1
sed 's/^/      /' "$NT_TMP/lua.prom" | grep -E '^      wanbond_(uplink_(up|rtt_seconds)|bond_tun_rx_packets_total)[ {]'
nt_expect_true "collector: the client's series and values as the CLI's" agree "$CDIR" client
nt_expect_true "collector: the server's (two bonds) as the CLI's" agree "$SDIR" server
WANBOND_CONTROL_DIR=$NT_TMP/none PATH="$NT_BUILD/bin:$PATH" lua5.1 "$DRIVER" "$COLLECTOR_DIR" wanbond >"$NT_TMP/none.prom" && rc=0 || rc=$?
nt_expect_true "collector, no daemon: scrape succeeds, no sample (exit $rc)" sh -c "[ $rc = 0 ] && ! grep -qv '^#' '$NT_TMP/none.prom'"
# Names with a double quote, a backslash and a newline (the file allows none; the collector escapes anyway),
# from a stand-in for wanbond that prints a JSON of its own.
mkdir -p "$NT_TMP/fakebin"
printf '#!/bin/sh\ncat "%s"\n' "$NT_TMP/fake.json" >"$NT_TMP/fakebin/wanbond"
chmod +x "$NT_TMP/fakebin/wanbond"
cat >"$NT_TMP/fake.json" <<'JSON'
[{"name":"a\"b\\c\nd","session":false,"handshake_ago_ns":null,"counters":{"tun_rx_packets":7},
  "uplinks":[{"name":"u\\","state":"stale","counters":{"tx_bytes":5}}]}]
JSON
PATH="$NT_TMP/fakebin:$PATH" lua5.1 "$DRIVER" "$COLLECTOR_DIR" wanbond >"$NT_TMP/fake.prom" || true
nt_expect_true "collector: label values escaped" sh -c "awk -f '$CHECK' '$NT_TMP/fake.prom' >/dev/null &&
	grep -qxF 'wanbond_bond_tun_rx_packets_total{bond=\"a\\\"b\\\\c\\nd\"} 7' '$NT_TMP/fake.prom' &&
	grep -qxF 'wanbond_uplink_state{bond=\"a\\\"b\\\\c\\nd\",uplink=\"u\\\\\"} 3' '$NT_TMP/fake.prom'"
PATH=/nonexistent /usr/bin/lua5.1 "$DRIVER" "$COLLECTOR_DIR" wanbond >/dev/null 2>&1 && rc=0 || rc=$?
nt_expect_range "collector, no wanbond command: the scrape fails" "$rc" 1 1

# ---- e. an uplink down -----------------------------------------------------------------------------------
echo "e. wan2 down: lte's up gauge 0"
nt_run router ip link set dev wan2 down
nt_wait_for 3 state_is lte down || true
prom "$CDIR" >"$NT_TMP/down.prom"
collector "$CDIR" >"$NT_TMP/down.lua"
grep -E '^wanbond_uplink_(up|state|info)\{' "$NT_TMP/down.prom" | sed 's/^/      /'
nt_expect_true "lte: wanbond_uplink_up 0" [ "$(value "$NT_TMP/down.prom" 'wanbond_uplink_up{bond="home",uplink="lte"}')" = 0 ]
nt_expect_true "lte: wanbond_uplink_state 0 (down)" [ "$(value "$NT_TMP/down.prom" 'wanbond_uplink_state{bond="home",uplink="lte"}')" = 0 ]
nt_expect_true "lte: info says down, and why" grep -q '^wanbond_uplink_info{bond="home",uplink="lte",state="down",reason="interface wan2 down",' "$NT_TMP/down.prom"
nt_expect_true "dsl: wanbond_uplink_up 1" [ "$(value "$NT_TMP/down.prom" 'wanbond_uplink_up{bond="home",uplink="dsl"}')" = 1 ]
nt_expect_true "collector: lte's up 0, dsl's 1" sh -c "grep -qx 'wanbond_uplink_up{bond=\"home\",uplink=\"lte\"} 0' '$NT_TMP/down.lua' && grep -qx 'wanbond_uplink_up{bond=\"home\",uplink=\"dsl\"} 1' '$NT_TMP/down.lua'"
nt_expect_true "collector: lte's info as the CLI's" sh -c "grep -q 'wanbond_uplink_info{.*reason=\"interface wan2 down\".*state=\"down\".*uplink=\"lte\"} 1' '$NT_TMP/down.lua'"
nt_finish
