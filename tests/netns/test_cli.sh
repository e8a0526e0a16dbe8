#!/usr/bin/env bash
# The wanbond CLI against running daemons, through their control sockets;
# and the client daemon under a stand-in for systemd's notify socket.
#
#   uplink 1 "dsl" (wan1): 30 Mbit/s, 10 ms one way
#   uplink 2 "lte" (wan2): 10 Mbit/s, 20 ms one way
#
# Checks, on one pair of daemons:
#   a. show (table), -j show (JSON read back by jq), dump, stats
#   b. monitor: wan2 set down shows as lte down in monitor and show within a
#      second (the link event, not the probes); back up, lte up again
#   c. with iperf3 running: sched set (policy and a rule, arrival too), uplink
#      set (backup, weight, down and up), uplink del and add (and an add bound
#      as another uplink is, refused), each seen in show; iperf3 goes on
#   d. a caller who is not root (nobody, in the control group) may read,
#      and may change nothing: the daemon refuses, exit code 2
#   e. the exit codes: usage error 1, no daemon 3
#   f. SIGHUP with an edited file: the new policy, a weight, a new binding
#      (lte with its policy rule again) and a new uplink apply, the session stays
#   g. the notify socket saw READY=1, STATUS=, WATCHDOG=1, RELOADING=1, then
#      READY=1 again, and STOPPING=1 at the end; the control socket and the
#      policy rule (lte: fwmark 0x10000, table 102) are gone after exit
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

CLI=$NT_BUILD/bin/wanbond
PROBE=$NT_BUILD/tests/tools/notify_probe
SRV=10.2.0.2

nt_init
[ -x "$CLI" ] || nt_die "missing $CLI (run make)"
[ -x "$PROBE" ] || nt_die "missing $PROBE (run make tool-bins)"
command -v setpriv >/dev/null || nt_die "missing setpriv (util-linux)"
nt_topology 2
nt_uplink_start 1 rate 30mbit delay 10ms limit 40ms seed 1
nt_uplink_start 2 rate 10mbit delay 20ms limit 60ms seed 2

nt_wb_home_pair
# The client's socket is open to the group nogroup; nobody must reach it through $NT_TMP.
sed -i "s|^control = { directory = \"$NT_TMP/ctl-client\"; };|control = { directory = \"$NT_TMP/ctl-client\"; group = \"nogroup\"; };|" "$CCONF"
grep -q 'group = "nogroup"' "$CCONF" || nt_die "could not set the control group in $CCONF"
# lte's traffic marked, and a policy rule for its mark (table 102 stays empty: the lookup falls through).
sed -i 's|{ name = "lte"; interface = "wan2"; }|{ name = "lte"; interface = "wan2"; fwmark = 0x10000; table = 102; }|' "$CCONF"
grep -q 'table = 102' "$CCONF" || nt_die "could not set lte's policy rule in $CCONF"
chmod 0711 "$NT_TMP"
CDIR=$NT_TMP/ctl-client
CLOG=$NT_TMP/notify.log # the probe's output and the daemon's log
NOTIFY=$NT_TMP/notify.sock
NOTIFY_OUT=$NT_TMP/notify.out

wb() { "$CLI" -d "$CDIR" "$@"; }
json() { wb -j show home | jq -r "$1"; }
uplink_json() { json ".[0].uplinks[] | select(.name == \"$1\") | $2"; }

state_is() { [ "$(uplink_json "$1" .state)" = "$2" ]; }
state_not() { [ "$(uplink_json "$1" .state)" != "$2" ]; }

nt_wb_start vps "$SCONF"
# The client runs under the notify stand-in, as systemd would run it (Type=notify, WatchdogSec=10s).
nt_bg router "$NT_TMP/notify.log" env WATCHDOG_USEC=10000000 "$PROBE" collect "$NOTIFY" "$NT_WANBONDD" -c "$CCONF"
PROBE_PID=$NT_LAST_PID
nt_wait_log "$CLOG" 'session established' 10 || { cat "$CLOG" "$NT_TMP/notify.log" "$SCONF.log" >&2; nt_die "no session"; }
nt_wait_for 5 state_is dsl up || true
nt_wait_for 5 state_is lte up || true
nt_run lan ping -q -n -c 5 -i 0.1 -W 2 "$SRV" >/dev/null 2>&1 || true

# ---- a. show, JSON, dump, stats ------------------------------------------------------
echo "a. the policy rule; show, -j show, dump, stats"
rule_count() { nt_run router ip "$1" rule show | grep -cE '^901:[[:space:]]+from all fwmark 0x10000 lookup 102' || true; }
nt_expect_range "ip rule: fwmark 0x10000 lookup 102, priority 901 (IPv4)" "$(rule_count -4)" 1 1
nt_expect_range "ip rule: the same for IPv6" "$(rule_count -6)" 1 1
wb show >"$NT_TMP/show.txt" 2>&1 && rc=0 || rc=$?
sed 's/^/      /' "$NT_TMP/show.txt"
nt_expect_range "wanbond show: exit code" "$rc" 0 0
nt_expect_true "show: the bond line" grep -qE '^bond home: client, tun wb-home .*session up' "$NT_TMP/show.txt"
nt_expect_true "show: dsl and lte rows, up" sh -c "grep -qE '^  dsl +up ' '$NT_TMP/show.txt' && grep -qE '^  lte +up ' '$NT_TMP/show.txt'"
wb -j show >"$NT_TMP/show.json"
nt_expect_true "-j show: valid JSON (jq)" sh -c "jq -e . '$NT_TMP/show.json' >/dev/null"
nt_expect_range "-j show: uplinks of home" "$(jq '.[0].uplinks | length' "$NT_TMP/show.json")" 2 2
nt_expect_true "-j show: name, policy, counters" jq -e '.[0].name == "home" and .[0].scheduler.policy == "default"
	and (.[0].counters.tun_rx_packets >= 5) and (.[0].uplinks[0].counters.tx_bytes > 0)' "$NT_TMP/show.json" >/dev/null
wb dump >"$NT_TMP/dump.txt"
nt_expect_range "dump: lines (bond and 2 uplinks)" "$(wc -l <"$NT_TMP/dump.txt")" 3 3
nt_expect_range "dump: fields of an uplink line" "$(awk -F'\t' 'NR == 2 { print NF }' "$NT_TMP/dump.txt")" 17 17
wb stats -s >"$NT_TMP/stats.txt"
nt_expect_true "stats -s: tun_rx_packets of home, not zero" grep -qE '^home +tun_rx_packets +[1-9]' "$NT_TMP/stats.txt"
# The five pings above gave it more than two; after the reset, a packet the
# kernel sends on the TUN device by itself (IPv6 autoconfiguration) may be
# counted before the read, so it reads at most 2.
before=$(awk '$1 == "home" && $2 == "tun_rx_packets" { print $3 }' "$NT_TMP/stats.txt")
nt_expect_true "stats: tun_rx_packets of home above 2 before the reset" test "${before:-0}" -gt 2
wb stats reset
after=$(wb stats | awk '$1 == "home" && $2 == "tun_rx_packets" { print $3 }')
nt_expect_range "stats reset: then tun_rx_packets reads" "$after" 0 2
# The device's counters are the daemon's sockets': a reset of the bond's view leaves them.
dev_before=$(awk '$1 == "home:device" && $2 == "rx_datagrams" { print $3 }' "$NT_TMP/stats.txt")
dev_after=$(wb stats | awk '$1 == "home:device" && $2 == "rx_datagrams" { print $3 }')
nt_expect_true "stats: the device's rx_datagrams, not zero, not reset ($dev_before, then $dev_after)" \
	test "${dev_before:-0}" -gt 0 -a "${dev_after:-0}" -ge "${dev_before:-0}"
nt_expect_true "-j show: device_counters, bad_mac1 among them" [ "$(json '.[0].device_counters | has("bad_mac1") and .rx_datagrams > 0')" = true ]

# ---- b. monitor ------------------------------------------------------------------------
echo "b. monitor while wan2 goes down and comes back"
nt_bg router "$NT_TMP/monitor.txt" "$CLI" -d "$CDIR" monitor home
MON_PID=$NT_LAST_PID
sleep 0.3
nt_run router ip link set dev wan2 down
# The link event takes it out of use at once; the probes alone would take a second and more.
nt_wait_for 1 grep -qE 'home uplink-down lte' "$NT_TMP/monitor.txt" && seen=1 || seen=0
nt_expect_range "monitor: lte down within 1 s of wan2 down" "$seen" 1 1
nt_expect_true "show: lte down" state_is lte down
nt_expect_true "show: lte's socket closed, saying why" [ "$(uplink_json lte .socket_error)" = "interface wan2 down" ]
nt_run router ip link set dev wan2 up
nt_run router ip route replace "$NT_SERVER_ADDR/32" via 10.100.2.2 dev wan2 metric 2
nt_wait_for 8 grep -qE 'home uplink-up lte' "$NT_TMP/monitor.txt" && seen=1 || seen=0
nt_expect_range "monitor: lte up again within 8 s of wan2 up" "$seen" 1 1
sed 's/^/      /' "$NT_TMP/monitor.txt"

# ---- c. changes at run time, iperf3 running --------------------------------------------
echo "c. sched set and uplink set while iperf3 runs"
PORT=$(nt_free_port srv 5301)
nt_iperf_server srv "$SRV" "$PORT"
nt_bg lan "$NT_TMP/iperf.json" iperf3 -J -c "$SRV" -p "$PORT" -t 10
IPERF_PID=$NT_LAST_PID
sleep 1
nt_expect_true "sched set roundrobin: exit 0" wb sched set roundrobin
nt_expect_true "show: policy roundrobin" [ "$(json '.[0].scheduler.policy')" = roundrobin ]
nt_expect_true "sched set default penalise off: exit 0" wb sched set default penalise off
nt_expect_true "show: default, penalise off" [ "$(json '.[0].scheduler.policy + " " + .[0].scheduler.rules_off_names')" = "default penalise" ]
nt_expect_true "sched set penalise on: exit 0" wb sched set penalise on
nt_expect_true "show: no rule off" [ "$(json '.[0].scheduler.rules_off')" = 0 ]
# arrival's bit (0x80) is past the seven rules the control codec once knew.
nt_expect_true "sched set arrival off: exit 0" wb sched set arrival off
nt_expect_true "show: arrival off" [ "$(json '.[0].scheduler.rules_off_names')" = arrival ]
nt_expect_true "sched set arrival on: exit 0" wb sched set arrival on
nt_expect_true "uplink set lte backup on weight 7: exit 0" wb uplink set lte backup on weight 7
nt_expect_true "show: lte backup, weight 7" [ "$(uplink_json lte '"\(.backup) \(.weight)"')" = "true 7" ]
nt_expect_true "uplink lte dev wan2 down (hotplug): exit 0" wb uplink lte dev wan2 down
lte_now=$(uplink_json lte '"\(.enabled) \(.interface_up) \(.state): \(.state_reason)"')
nt_expect_true "show: lte down, its interface down, the operator's switch on ($lte_now)" \
	[ "$lte_now" = "true false down: interface down (the network manager's ifdown)" ]
# The operator's down and the interface's up are two things: an ifup never gives back what the operator took.
nt_expect_true "uplink set lte down (the operator, meanwhile): exit 0" wb uplink set lte down
nt_expect_true "uplink lte dev wan2 up (hotplug): exit 0" wb uplink lte dev wan2 up
sleep 0.3
lte_now=$(uplink_json lte '"\(.enabled) \(.interface_up) \(.state)"')
nt_expect_true "show: lte still down, the operator's ($lte_now)" [ "$lte_now" = "false true down" ]
nt_expect_true "uplink set lte up backup off: exit 0" wb uplink set lte up backup off
nt_wait_for 5 state_is lte up || true
nt_expect_true "show: lte enabled, active, up again" [ "$(uplink_json lte '"\(.enabled) \(.backup) \(.state)"')" = "true false up" ]
nt_expect_true "uplink del lte: exit 0" wb uplink del lte
nt_expect_true "show: dsl alone" [ "$(json '[.[0].uplinks[].name] | join(",")')" = dsl ]
nt_expect_true "uplink add lte dev wan2 weight 2: exit 0" wb uplink add lte dev wan2 weight 2
nt_wait_for 5 state_is lte up || true
nt_expect_true "show: lte back, up, weight 2" [ "$(uplink_json lte '"\(.state) \(.weight)"')" = "up 2" ]
wb uplink add lte dev wan2 >"$NT_TMP/again.txt" 2>&1 && rc=0 || rc=$?
nt_expect_range "uplink add of a name taken: exit code" "$rc" 2 2
nt_expect_true "uplink add of a name taken: the daemon's message" grep -q "an uplink is named 'lte' already" "$NT_TMP/again.txt"
wb uplink add lte2 dev wan2 >"$NT_TMP/alike.txt" 2>&1 && rc=0 || rc=$?
nt_expect_range "uplink add bound as lte is: exit code" "$rc" 2 2
nt_expect_true "uplink add bound as lte is: the file's message" grep -q "uplink 'lte2': the same interface, source and fwmark as uplink 'lte'" "$NT_TMP/alike.txt"
wait "$IPERF_PID" 2>/dev/null || true
goodput=$(jq -r '.end.sum_received.bits_per_second // 0' "$NT_TMP/iperf.json" 2>/dev/null || echo 0)
nt_expect_range "iperf3 through all the changes (10 s): Mbit/s received" "$(awk -v g="$goodput" 'BEGIN { printf "%.1f", g / 1e6 }')" 3 40

# ---- d. a caller who is not root ------------------------------------------------------------
echo "d. nobody (group nogroup) reads, and changes nothing"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$CLI" -d "$CDIR" "$@"; }
as_nobody show >/dev/null 2>&1 && rc=0 || rc=$?
nt_expect_range "nobody: show, exit code" "$rc" 0 0
as_nobody sched set redundant >"$NT_TMP/nobody.txt" 2>&1 && rc=0 || rc=$?
nt_expect_range "nobody: sched set, exit code" "$rc" 2 2
nt_expect_true "nobody: told why" grep -q 'changes need root' "$NT_TMP/nobody.txt"
nt_expect_true "nobody: the policy did not change" [ "$(json '.[0].scheduler.policy')" = default ]
as_nobody uplink set dsl down >/dev/null 2>&1 && rc=0 || rc=$?
nt_expect_range "nobody: uplink set, exit code" "$rc" 2 2
nt_expect_true "nobody: dsl still enabled" [ "$(uplink_json dsl .enabled)" = true ]

# ---- e. exit codes ---------------------------------------------------------------------------
echo "e. exit codes"
"$CLI" -d "$NT_TMP/none" show >"$NT_TMP/none.txt" 2>&1 && rc=0 || rc=$?
nt_expect_range "show with no daemon: exit code" "$rc" 3 3
nt_expect_true "show with no daemon: says so" grep -q 'no daemon running' "$NT_TMP/none.txt"
wb frobnicate >/dev/null 2>&1 && rc=0 || rc=$?
nt_expect_range "unknown command: exit code" "$rc" 1 1
wb sched set nosuchrule on >/dev/null 2>&1 && rc=0 || rc=$?
nt_expect_range "sched set of an unknown rule: exit code" "$rc" 1 1
wb uplink add extra2 >/dev/null 2>&1 && rc=0 || rc=$?
nt_expect_range "uplink add with no dev, source or fwmark: a usage error" "$rc" 1 1
wb uplink set nosuch weight 2 >"$NT_TMP/nosuch.txt" 2>&1 && rc=0 || rc=$?
nt_expect_range "uplink set of an unknown uplink: exit code" "$rc" 2 2
nt_expect_true "uplink set of an unknown uplink: the daemon's message" grep -q "no uplink 'nosuch' in bond home" "$NT_TMP/nosuch.txt"

# ---- f. SIGHUP ---------------------------------------------------------------------------------
echo "f. SIGHUP with an edited configuration"
DPID=$(pgrep -P "$PROBE_PID" -x wanbondd || true)
[ -n "$DPID" ] || nt_die "the client daemon is not running under the notify probe"
cat >>"$CCONF" <<'CONF'
scheduler = { policy = "redundant"; };
CONF
# lte: the file's binding (with its mark and rule) differs from the one 'uplink add' gave it
# in c., and a weight of 5; and a new uplink on an interface that does not exist yet.
sed -i 's|table = 102; }|table = 102; weight = 5; }, { name = "extra"; interface = "wan9"; }|' "$CCONF"
grep -q '"extra"' "$CCONF" || nt_die "could not add an uplink to $CCONF"
kill -HUP "$DPID"
nt_wait_log "$CLOG" 'reloaded' 5 || true
nt_expect_true "after SIGHUP: policy redundant" [ "$(json '.[0].scheduler.policy')" = redundant ]
nt_expect_true "after SIGHUP: lte weight 5" [ "$(uplink_json lte .weight)" = 5 ]
nt_expect_range "after SIGHUP: lte's policy rule back (IPv4)" "$(rule_count -4)" 1 1
nt_expect_true "after SIGHUP: extra added, waiting for wan9" [ "$(uplink_json extra '"\(.state) \(.socket_error)"' | cut -c1-20)" = "down interface wan9 " ]
nt_wait_for 5 state_is lte up || true
nt_expect_true "after SIGHUP: lte up again" state_is lte up
nt_expect_true "after SIGHUP: nothing said to need a restart" sh -c "! grep -q 'takes a restart' '$CLOG'"
nt_expect_true "after SIGHUP: the session stayed"
# What a reload cannot apply is said, and the rest goes on.
echo 'timers = { probe_interval_ms = 200; };' >>"$CCONF"
kill -HUP "$DPID"
nt_wait_log "$CLOG" 'the timers changed: that takes a restart' 5 && said=1 || said=0
nt_expect_range "second SIGHUP, new timers: said to take a restart" "$said" 1 1 [ "$(json '.[0].session')" = true ]

# ---- g. the notify socket -------------------------------------------------------------------------
echo "g. notifications"
kill -TERM "$DPID"
wait "$PROBE_PID" 2>/dev/null || true
grep '^datagram' "$NT_TMP/notify.log" >"$NOTIFY_OUT" || true
sed 's/^/      /' "$NOTIFY_OUT" | head -8
nt_expect_true "READY=1 first" sh -c "head -n 1 '$NOTIFY_OUT' | grep -q 'READY=1'"
nt_expect_true "a STATUS= line with the uplinks" grep -qE 'STATUS=[0-9]+ of 2 uplinks up' "$NOTIFY_OUT"
nt_expect_true "WATCHDOG=1" grep -q 'WATCHDOG=1' "$NOTIFY_OUT"
nt_expect_true "RELOADING=1 then READY=1" sh -c "grep -A1 'RELOADING=1' '$NOTIFY_OUT' | tail -n 1 | grep -q 'READY=1'"
nt_expect_true "STOPPING=1 last" sh -c "tail -n 1 '$NOTIFY_OUT' | grep -q 'STOPPING=1'"
nt_expect_true "control socket removed at exit" [ ! -e "$CDIR/home.sock" ]
nt_expect_range "policy rules removed at exit (IPv4 and IPv6)" "$(($(rule_count -4) + $(rule_count -6)))" 0 0
nt_finish
