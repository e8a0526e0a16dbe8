#!/usr/bin/env bash
# The handshake flood: a host that knows the server's public key sends it
# initiations with a valid mac1 at FLOOD_RATE (5000) a second for FLOOD_SECS
# (12), answering its cookie replies so that under load they carry a valid
# mac2, while a real router's session is renewed (rekey_after_seconds 10).
#
#   router "home" --- uplink dsl (50 Mbit/s, 5 ms one way) --- vps (server)
#   atk (the attacker) --- a veth of its own --------------------- vps
#
# Four runs side by side on the same pair of daemons:
#   none    no flood: the server's own cost and the rekey as it is;
#   own     the attacker's own key, no peer of the server: each initiation
#           that gets past the load limit costs one Diffie-Hellman;
#   tenant  the key of another router of the same server (a tenant of a
#           shared server): the same replayed initiation costs both;
#   prefix  its own key again, from PREFIX_SOURCES (4096) addresses, each in
#           a /64 of its own, of one IPv6 /48 routed to the attacker, each
#           with its own cookie: as many sources as the per-source table
#           has slots, and more (the router comes over IPv4 as ever).
# FLOOD_RUNS="own prefix" picks runs (the run without a flood always comes first).
# Each run, FLOOD_SECS with its flood started 2 s before (FLOOD_WARMUP): the
# server's CPU (user and system time from /proc, as a share of one core over
# the run), how long the router's rekey took (its first initiation after the
# session came due to the new session, from its counters polled every
# 100 ms) and how many initiations it sent in the run (one, and one more for
# each cookie reply or refusal), pings through the tunnel lost, and the
# server's counters (initiations that met the load limit, cookie replies,
# initiations over the per-source limit; the rest of those that met the load
# limit got past the per-source limit, a Diffie-Hellman each).
# Checks: under each flood the server stays under 50% of a core, the rekey
# completes within 5 s, as in the no-flood run, no ping is lost, and at most
# 200 initiations a second get past the per-source limit.
#
#   make bench BENCH=flood
#   NT_WANBONDD=other/wanbondd make bench BENCH=flood   another daemon, same tools
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

FLOOD_RATE=${FLOOD_RATE:-5000}
FLOOD_SECS=${FLOOD_SECS:-12}
FLOOD_WARMUP=2 # s of flood before a run's window: a flood from many sources needs a second to get its cookies
FLOOD_RUNS=${FLOOD_RUNS:-own tenant prefix}
PREFIX_SOURCES=${PREFIX_SOURCES:-4096}
ATK_PREFIX=2001:db8:aa:: # the attacker's /48 (documentation space, only in these namespaces)
REKEY_SECS=10
CPU_LIMIT=0.5
REKEY_LIMIT_MS=5000
PAST_LIMIT=200 # initiations a second past the per-source limit
FLOOD=$NT_BUILD/tests/tools/hsflood
CLI=$NT_BUILD/bin/wanbond
SRV=10.2.0.2
OUT=$NT_BUILD/bench/flood

nt_init
[ -x "$FLOOD" ] || nt_die "missing $FLOOD (run make tool-bins)"
mkdir -p "$OUT"
nt_topology 1
nt_uplink_start 1 rate 50mbit delay 5ms limit 40ms seed 1
# The attacker's own way to the server, apart from the router's uplink.
nt_add_ns atk
nt_veth atk eth0 vps atk0
nt_run atk ip addr add 10.201.0.2/24 dev eth0
nt_run atk ip link set dev eth0 up
nt_run atk ip route add "$NT_SERVER_ADDR/32" via 10.201.0.1
nt_run vps ip addr add 10.201.0.1/24 dev atk0
nt_run vps ip link set dev atk0 up
# And IPv6 on it, with the attacker's /48 routed to it and taken as local
# there: hsflood -s sends from any address of it and gets the replies.
nt_run atk ip -6 addr add fd00:201::2/64 dev eth0
nt_run vps ip -6 addr add fd00:201::1/64 dev atk0
nt_run vps ip -6 route add "$ATK_PREFIX/48" via fd00:201::2
nt_run atk ip -6 route add local "$ATK_PREFIX/48" dev lo

nt_wb_keys server
nt_wb_keys home
nt_wb_keys tenant
SCONF=$NT_TMP/vps.conf
CCONF=$NT_TMP/home.conf
nt_wb_server_conf "$SCONF" home:10.255.0.1/30:10.1.0.0/24 tenant:10.255.1.1/30:10.9.0.0/24
nt_wb_client_conf "$CCONF" home 10.255.0.2/30 10.2.0.0/24 dsl:wan1
echo "timers = { rekey_after_seconds = $REKEY_SECS; };" >>"$CCONF"
nt_wb_start vps "$SCONF"
SPID=$NT_LAST_PID
nt_wb_start router "$CCONF"
[ -n "$(nt_wait_ping lan "$SRV" 15)" ] || nt_die "no ping through the tunnel"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# The client's handshakes sent and rekeys, read at once: "SENT REKEYS".
client_handshakes() {
	"$CLI" -d "$NT_TMP/ctl-client" -j show home 2>/dev/null |
		jq -r '.[0].counters | "\(.handshakes_sent) \(.rekeys)"'
}
# The server's counters from one status, read at once (a flood may be on): "UNDER_LOAD COOKIES LIMITED".
server_counters() {
	local st
	st=$(nt_wb_status "$SPID" "$SCONF.log")
	echo "$(nt_wb_field "$st" "under load") $(nt_wb_field "$st" "cookie replies")" \
		"$(nt_wb_field "$st" "over the per-source limit")"
}

# The arguments of hsflood before and after the usual ones (server, port, key, rate, time).
flood_args() {
	local target=$NT_SERVER_ADDR opts=() key=()
	case $1 in
	tenant) key=("$NT_TMP/tenant.key") ;;
	prefix) target=fd00:201::1 opts=(-s "$ATK_PREFIX" -n "$PREFIX_SOURCES") ;;
	esac
	printf '%s\n' "${opts[@]}" "$target" 51820 "$(cat "$NT_TMP/server.pub")" "$FLOOD_RATE" \
		$((FLOOD_WARMUP + FLOOD_SECS)) "${key[@]}"
}

# run NAME: one run (none, own, tenant, prefix); appends a row to
# $OUT/runs.txt and sets CPU, REKEY_MS (empty: no rekey completed in the run),
# LOST and PAST (initiations a second past the per-source limit).
run() {
	local name=$1 t0 ticks0 ticks1 secs sent0 rekeys0 s r t_sent="" t_done="" flood_pid="" hz args
	local load0 cookies0 limited0 ping_out lost load cookies limited
	hz=$(getconf CLK_TCK)
	if [ "$name" != none ]; then
		mapfile -t args < <(flood_args "$name")
		nt_bg atk "$OUT/hsflood-$name.log" "$FLOOD" "${args[@]}"
		flood_pid=$NT_LAST_PID
		sleep "$FLOOD_WARMUP"
	fi
	read -r load0 cookies0 limited0 <<<"$(server_counters)"
	read -r sent0 rekeys0 <<<"$(client_handshakes)"
	ticks0=$(cpu_ticks "$SPID")
	t0=$(now_ms)
	# A count, and a deadline later than the last one's reply: a ping sent just
	# before the deadline is not lost.
	nt_bg lan "$OUT/ping-$name.log" ping -q -n -i 0.1 -c $((FLOOD_SECS * 10)) -w $((FLOOD_SECS + 2)) "$SRV"
	local ping_pid=$NT_LAST_PID
	while [ $(($(now_ms) - t0)) -lt $((FLOOD_SECS * 1000)) ]; do
		read -r s r <<<"$(client_handshakes)"
		# Sent and done between two polls: the rekey took less than a poll (counted as 0).
		[ -z "$t_sent" ] && [ "${s:-0}" -gt "$sent0" ] && t_sent=$(now_ms)
		[ -z "$t_done" ] && [ "${r:-0}" -gt "$rekeys0" ] && t_done=$(now_ms)
		sleep 0.1
	done
	ticks1=$(cpu_ticks "$SPID")
	secs=$(( $(now_ms) - t0 ))
	read -r s r <<<"$(client_handshakes)"
	[ -n "$flood_pid" ] && wait "$flood_pid" 2>/dev/null || true
	wait "$ping_pid" 2>/dev/null || true
	CPU=$(awk -v d=$((ticks1 - ticks0)) -v hz="$hz" -v ms="$secs" 'BEGIN { printf "%.3f", d / hz / (ms / 1000) }')
	REKEY_MS=""
	[ -n "$t_sent" ] && [ -n "$t_done" ] && REKEY_MS=$((t_done - t_sent))
	lost=$(awk '/packet loss/ { for (i = 1; i <= NF; i++) if ($i == "packet") print $(i - 1) }' "$OUT/ping-$name.log")
	LOST=${lost%\%}
	local rate="0"
	[ "$name" != none ] && rate=$(grep -oE '\(([0-9]+)/s\)' "$OUT/hsflood-$name.log" | tr -d '()/s')
	read -r load cookies limited <<<"$(server_counters)"
	load=$((load - load0)) cookies=$((cookies - cookies0)) limited=$((limited - limited0))
	PAST=$(( (load - cookies - limited) * 1000 / secs ))
	printf '| %-7s | %9s | %11s | %13s | %12s | %9s | %10s | %14s | %16s | %15s |\n' "$name" "$rate" "$CPU" \
		"${REKEY_MS:-none}" "$(( ${s:-$sent0} - sent0 ))" "${LOST:-?}%" "$load" "$cookies" "$limited" "$PAST" |
		tee -a "$OUT/runs.txt"
}

: >"$OUT/runs.txt"
echo
echo "handshake flood: $FLOOD_RATE initiations a second with a valid mac1 for $FLOOD_SECS s; rekey every $REKEY_SECS s"
echo "| attack  | sent (/s) | server CPU  | rekey (ms)    | router inits | ping lost | under load | cookie replies | per-source limit | past limit (/s) |"
echo "| ---     | ---       | ---         | ---           | ---          | ---       | ---        | ---            | ---              | ---             |"
run none
nt_expect_true "no flood: the rekey completed" test -n "$REKEY_MS"
CHECKS=()
for name in $FLOOD_RUNS; do
	case $name in
	own) what="own key" ;;
	tenant) what="tenant key" ;;
	prefix) what="own key from $PREFIX_SOURCES /64s of a /48" ;;
	*) nt_die "FLOOD_RUNS: no run $name (own, tenant, prefix)" ;;
	esac
	run "$name"
	CHECKS+=("$what|$CPU|$REKEY_MS|$LOST|$PAST")
done
echo
for c in "${CHECKS[@]}"; do
	IFS='|' read -r what cpu rekey lost past <<<"$c"
	nt_expect_range "$what: server CPU (share of a core)" "$cpu" 0 "$CPU_LIMIT"
	nt_expect_range "$what: rekey (ms)" "$rekey" 0 "$REKEY_LIMIT_MS" # empty (none in the run): failed
	nt_expect_range "$what: pings lost (%)" "$lost" 0 0
	nt_expect_range "$what: past the per-source limit (/s)" "$past" 0 "$PAST_LIMIT"
done
nt_finish
