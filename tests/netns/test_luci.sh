#!/usr/bin/env bash
# luci-app-wanbond in headless Chromium against real LuCI: uhttpd, rpcd with
# its ucode and luci plugins, ucode and luci-base, ubusd and procd, found in
# OpenWrt's layout under $OPENWRT_ROOT (as tests/netns/test_openwrt.sh finds
# its components; docs/testing.md lists what and which commits), with the
# package's files and this build's daemons, in the namespaces of lib.sh: a
# router with uplinks dsl (wan1) and lte (wan2) over the link emulator, a
# server wanbondd on the vps, an iperf3 through the tunnel for the charts.
# tests/openwrt/luci_flow.py drives the browser (tests/openwrt/cdp.py):
#   a. log in (rpcd's login), the status page: both uplinks up with their
#      RTT, the session, the charts
#   b. lte's emulated link taken away: its row turns down with its reason
#      ("no answer for N ms") within 3 s, without a reload of the page; the
#      link back: up again
#   c. dsl switched off from the page (LuCI's confirm dialog): the daemon
#      reports it off, the page says "disabled by the operator"; on again
#   d. the settings form: the policy changed, Save & Apply: rpcd commits,
#      procd's trigger runs /etc/init.d/wanbond reload, the daemon gets a
#      SIGHUP (same pid) and runs the new policy
#   e. a server key the browser takes but wanbondd --check refuses: the page
#      shows the check's FILE:LINE error, the daemon goes on unchanged;
#      fixed, the error goes
# Screenshots of each step go to $LUCI_SHOTS (default BUILD/luci-shots).
#
# Without the components, Chromium or Debian's python3-websocket it says
# that the browser test was skipped and passes: tests/openwrt/
# test_luci_lint.sh checks the views without a browser (what CI runs).
#
# With netifd in $OPENWRT_ROOT (and its netifd-proto.sh), netifd runs in the
# router and owns its interfaces (lan, wan, wwan static, and wb_home, proto
# wanbond): the client's daemon is the one netifd starts through the
# package's protocol handler, and before the browser:
#   n. wb_home comes up by itself (the uplinks' interfaces first, else the
#      service's trigger brings it up), its status names the TUN device,
#      its address and route; ifdown stops the daemon, ifup starts it
# and the browser also restarts the bond from the status page (a new
# daemon, the session again) and shows wb_home in Network -> Interfaces.
# Without netifd the daemon is started as the handler would start it
# (the file uci.sh writes, wanbondd -c FILE), and a TEST DOUBLE of netifd's
# network.interface answers "dump" (what network_get_device and LuCI read).
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
ROOT=${OPENWRT_ROOT:-}
LUCI_SHOTS=${LUCI_SHOTS:-$NT_BUILD/luci-shots}
LUCI_PASS=wanbond-luci-test

# What the test needs of $OPENWRT_ROOT: OpenWrt's daemons and shell files, LuCI.
OW_NEEDS="sbin/ubusd sbin/procd sbin/rpcd sbin/uci bin/ubus usr/sbin/uhttpd usr/bin/ucode usr/bin/jsonfilter
	usr/lib/rpcd/ucode.so usr/lib/rpcd/luci.so usr/share/ucode/luci/uhttpd.uc www/luci-static/resources/luci.js
	usr/share/luci/menu.d etc/rc.common lib/functions.sh lib/functions/network.sh lib/functions/procd.sh
	lib/config/uci.sh usr/share/libubox/jshn.sh"
# netifd, when it is there too.
netifd_found() { [ -x "$ROOT/sbin/netifd" ] && [ -f "$ROOT/lib/netifd/netifd-proto.sh" ]; }
skip_reason() {
	local f
	[ -n "$ROOT" ] && [ -d "$ROOT" ] || { echo "OpenWrt's and LuCI's components not found (OPENWRT_ROOT)"; return; }
	for f in $OW_NEEDS; do
		[ -e "$ROOT/$f" ] || { echo "$ROOT/$f not found (OPENWRT_ROOT lacks LuCI's components)"; return; }
	done
	[ -x /usr/bin/chromium ] || { echo "no /usr/bin/chromium (apt-get install chromium)"; return; }
	/usr/bin/python3 -c 'import websocket' 2>/dev/null ||
		{ echo "no python3-websocket for /usr/bin/python3 (apt-get install python3-websocket)"; return; }
}

if [ -z "${WB_LUCI_PRIVATE:-}" ]; then
	why=$(skip_reason)
	if [ -n "$why" ]; then
		echo "skipped: the browser test of luci-app-wanbond: $why; the views were linted by tests/openwrt/test_luci_lint.sh"
		exit 0
	fi
	[ "$(id -u)" -eq 0 ] || { echo "test_luci: needs root (namespaces, mounts)" >&2; exit 1; }
	for d in bin sbin lib; do
		[ "$(readlink -f "/$d")" = "/usr/$d" ] || { echo "skipped: the browser test: /$d is not /usr/$d here (a merged /usr is needed)"; exit 0; }
	done
	for b in wanbondd wanbond linkem; do
		[ -x "$NT_BUILD/bin/$b" ] || { echo "test_luci: missing $NT_BUILD/bin/$b (run make)" >&2; exit 1; }
	done
	grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || true
	mkdir -p "$LUCI_SHOTS"
	rm -f "$LUCI_SHOTS"/*.png
	LUCI_SHOTS=$(cd "$LUCI_SHOTS" && pwd)
	# The overlays' upper layers, on a tmpfs mounted in the private namespace only.
	WB_LUCI_DIR=$(mktemp -d /run/wanbond-luci.XXXXXX)
	export WB_LUCI_DIR LUCI_SHOTS
	# /www is LuCI's document root: a mount point made for the test, removed after.
	made_www=""
	[ -e /www ] || { mkdir /www && made_www=1; }
	WB_LUCI_PRIVATE=1 unshare --mount --propagation private -- bash "$0" "$NT_BUILD" && rc=0 || rc=$?
	[ -n "$made_www" ] && rmdir /www
	rmdir "$WB_LUCI_DIR" 2>/dev/null || true
	exit "$rc"
fi

# ---- in the private mount namespace: OpenWrt's file system with LuCI -------------------------
source tests/netns/openwrt_root.sh
ow_private_root "$WB_LUCI_DIR"
# LuCI's document root, and OpenWrt's /tmp (LuCI's caches, uci's staging).
mount -t tmpfs -o mode=0755 www /www
mount -t tmpfs -o mode=1777 tmp /tmp
mkdir -p /tmp/.uci

# OpenWrt's and LuCI's files (OpenWrt's /bin, /sbin and /lib are /usr's here).
cp -a "$ROOT/www/." /www/
cp -a "$ROOT/usr/." /usr/
cp -a "$ROOT/bin/." /usr/bin/
cp -a "$ROOT/sbin/." /usr/sbin/
cp -a "$ROOT/lib/." /usr/lib/
cp -a "$ROOT/etc/." /etc/
APP=openwrt/luci-app-wanbond
# The packages, as their Makefiles install them, with this build's binaries.
ow_install_wanbond "$NT_BUILD"
cp -a "$APP/htdocs/." /www/
cp -a "$APP/root/." /
(umask 077 && wanbondd --genkey >/etc/wanbond/wanbond.key)
wanbondd --pubkey </etc/wanbond/wanbond.key >/etc/wanbond/wanbond.pub

source tests/netns/lib.sh
nt_init
mkdir -p "$NT_TMP"

# rpcd's login for LuCI: root, all of the ACLs.
cat >/etc/config/rpcd <<UCI
config rpcd
	option socket '/var/run/ubus/ubus.sock'
	option timeout '30'

config login
	option username 'root'
	option password '$(openssl passwd -5 "$LUCI_PASS")'
	list read '*'
	list write '*'
UCI
cat >/etc/config/system <<'UCI'
config system
	option hostname 'router'
	option timezone 'UTC'
UCI
ow_router_network
cat >>/etc/config/network <<'UCI'

config interface 'wb_home'
	option proto 'wanbond'
	option bond 'home'
UCI
touch /etc/config/firewall /etc/config/dhcp /etc/config/wireless

# Without netifd: a TEST DOUBLE of its network.interface, "dump" from a file, as an rpcd exec plugin.
NETIFD=""
netifd_found && NETIFD=1
NETIFD_STATE=/var/run/netifd-double.json
[ -n "$NETIFD" ] || {
cat >/usr/libexec/rpcd/network.interface <<SH
#!/bin/sh
# TEST DOUBLE of netifd's network.interface (dump), for test_luci.sh.
case "\$1" in
list) echo '{"dump":{}}' ;;
call) [ "\$2" = dump ] && cat $NETIFD_STATE ;;
esac
SH
chmod 0755 /usr/libexec/rpcd/network.interface
cat >"$NETIFD_STATE" <<'JSON'
{"interface":[
{"interface":"lan","up":true,"pending":false,"available":true,"proto":"static","device":"lan0","l3_device":"lan0"},
{"interface":"wan","up":true,"pending":false,"available":true,"proto":"static","device":"wan1","l3_device":"wan1"},
{"interface":"wwan","up":true,"pending":false,"available":true,"proto":"static","device":"wan2","l3_device":"wan2"}]}
JSON
}

nt_topology 2
nt_uplink_start 1 rate 20mbit delay 10ms limit 40ms seed 1
LINKEM2="rate 10mbit delay 25ms limit 60ms seed 2"
# shellcheck disable=SC2086 # the emulator's words
nt_uplink_start 2 $LINKEM2

nt_wb_keys server
cp /etc/wanbond/wanbond.pub "$NT_TMP/home.pub"
SCONF=$NT_TMP/vps.conf
nt_wb_server_conf "$SCONF" home:10.255.0.1/30:10.1.0.0/24
nt_wb_start vps "$SCONF"
cat >/etc/config/wanbond <<UCI
config bond 'home'
	option enabled '1'
	option role 'client'
	option private_key_file '/etc/wanbond/wanbond.key'
	option server_address '$NT_SERVER_ADDR'
	option server_port '51820'
	option server_public_key '$(cat "$NT_TMP/server.pub")'
	option tun_name 'wb-home'
	list tun_address '10.255.0.2/30'
	list route '10.2.0.0/24'
	option policy 'default'

config uplink 'dsl'
	option bond 'home'
	option interface 'wan'

config uplink 'lte'
	option bond 'home'
	option interface 'wwan'
UCI

# ---- OpenWrt's daemons and LuCI in the router ------------------------------------------------
SYSLOG=$NT_TMP/syslog.log
nt_bg router "$NT_TMP/syslogd.log" busybox syslogd -n -O "$SYSLOG"
nt_wait_for 10 test -S /dev/log || nt_die "syslogd did not start"
nt_bg router "$NT_TMP/ubusd.log" ubusd
nt_wait_for 10 test -S /var/run/ubus/ubus.sock || nt_die "ubusd did not start"
nt_bg router "$NT_TMP/procd.log" procd -S
nt_bg router "$NT_TMP/rpcd.log" rpcd
nt_wait_for 15 nt_run router ubus -t 1 wait_for service session luci wanbond ||
	nt_die "procd or rpcd did not register on ubus: $(nt_run router ubus list 2>&1 | tr '\n' ' ')"
nt_bg router "$NT_TMP/uhttpd.log" uhttpd -f -p 127.0.0.1:8080 -h /www -r router -x /cgi-bin -u /ubus \
	-o /cgi-bin/luci -O /usr/share/ucode/luci/uhttpd.uc -t 60 -T 30 -k 20 -A 1 -n 3 -N 100
nt_wait_for 10 nt_run router curl -sf -o /dev/null http://127.0.0.1:8080/ || nt_die "uhttpd did not answer"
nt_run router reload_config
# The service registers its triggers with procd (config.change, the uplinks' interfaces).
nt_run router /etc/init.d/wanbond start

# The daemon's output: netifd logs it ("wb_home (PID): ...").
CLOG=$NT_TMP/netifd.log
# daemon_pid: the client's wanbondd, by its command line (netifd started it).
# (In the router's network namespace: another test may run a daemon of the same command line.)
daemon_pid() { nt_run router sh -c 'pgrep --ns $$ --nslist net -x -f "/usr/sbin/wanbondd -c /var/etc/wanbond/home.conf"' | head -n 1; }
ifstatus_() { nt_run router ubus call network.interface.wb_home status; }
wb_up() { ifstatus_ | jqt '.up == true and .l3_device == "wb-home"'; }
wb_down() { ifstatus_ | jqt '.up == false'; }
session_up() { nt_run router wanbond -d /var/run/wanbond status home | jqt '.bonds.home.session == true'; }
if [ -n "$NETIFD" ]; then
	echo "n. netifd runs the bond: proto wanbond"
	nt_bg router "$NT_TMP/netifd.log" netifd -S -c /etc/config -h /bin/true
	nt_expect_true "wb_home comes up by itself (netifd, the handler, the service's trigger)" nt_wait_for 30 wb_up
	nt_expect_true "the daemon netifd runs reaches the server" nt_wait_for 15 session_up
	ifstatus_ >"$NT_TMP/ifstatus.json" || true
	echo "      network.interface.wb_home: $(jq -c '{up, proto, l3_device, "ipv4-address": ."ipv4-address", route: [.route[]? | "\(.target)/\(.mask)"]}' "$NT_TMP/ifstatus.json")"
	nt_expect_true "its status: proto wanbond on wb-home, 10.255.0.2/30, the route 10.2.0.0/24" \
		jqt '.proto == "wanbond" and .l3_device == "wb-home" and (."ipv4-address" | map("\(.address)/\(.mask)") | index("10.255.0.2/30") != null) and ([.route[] | "\(.target)/\(.mask)"] | index("10.2.0.0/24") != null)' "$NT_TMP/ifstatus.json"
	nt_expect_true "the tunnel carries packets (ping the server's tunnel address)" nt_wait_for 10 nt_run router ping -c 1 -W 1 10.255.0.1
	PID_A=$(daemon_pid)
	nt_run router ubus call network.interface.wb_home down
	nt_expect_true "ifdown wb_home: down, the daemon ($PID_A) gone" nt_wait_for 10 sh -c "! kill -0 ${PID_A:-0} 2>/dev/null"
	nt_expect_true "ifdown wb_home: netifd says down" wb_down
	nt_run router ubus call network.interface.wb_home up
	nt_expect_true "ifup wb_home: up again" nt_wait_for 20 wb_up
	nt_expect_true "ifup wb_home: the new daemon reaches the server" nt_wait_for 15 session_up
	CPID=$(daemon_pid)
else
	# The client's daemon, as the proto handler starts it: the file uci.sh writes, checked.
	nt_run router sh -c '. /lib/functions.sh; . /lib/functions/network.sh; . /usr/share/wanbond/uci.sh
		mkdir -p -m 0700 /var/etc/wanbond; config_load wanbond; wanbond_prepare home /var/etc/wanbond/home.conf' ||
		nt_die "the bond's file did not check"
	nt_bg router "$NT_TMP/client.log" /usr/sbin/wanbondd -c /var/etc/wanbond/home.conf
	CPID=$NT_LAST_PID
	CLOG=$NT_TMP/client.log
	nt_wait_log "$CLOG" 'session established' 15 || nt_die "the client reached no session (see $CLOG)"
fi
[ -n "${CPID:-}" ] || nt_die "no client daemon"

# Traffic through the tunnel, for the charts: lan -> srv, 6 Mbit/s for the whole test.
PORT=$(nt_free_port srv 5301)
nt_bg srv "$NT_TMP/iperf3-server.log" iperf3 -s -B 10.2.0.2 -p "$PORT"
nt_wait_listen srv "$PORT"
nt_bg lan "$NT_TMP/iperf3.log" iperf3 -c 10.2.0.2 -p "$PORT" -t 600 -b 6M

# What the flow asks of the test, by the pids this test started.
LINKEM2_PID_FILE=$NT_TMP/linkem2.pid
CONTROL=$NT_TMP/control.sh
echo "$NT_LINKEM_PID_2" >"$LINKEM2_PID_FILE"
cat >"$CONTROL" <<SH
# luci_flow.py's control (test_luci.sh).
case "\$1" in
link_down) kill \$(cat $LINKEM2_PID_FILE) ;;
link_up)
	ip netns exec $(nt_ns em2) $NT_LINKEM a b $LINKEM2 >>$NT_TMP/linkem2-again.log 2>&1 &
	echo \$! >$LINKEM2_PID_FILE ;;
show) ip netns exec $(nt_ns router) wanbond -d /var/run/wanbond -j show home ;;
pid) ip netns exec $(nt_ns router) sh -c 'pgrep --ns \$\$ --nslist net -x -f "/usr/sbin/wanbondd -c /var/etc/wanbond/home.conf"' | head -n 1 ;;
reloads) grep -c 'reloaded /var/etc/wanbond/home.conf' $CLOG || true ;;
mode) echo ${NETIFD:+netifd} ;;
server_key) cat $NT_TMP/server.pub ;;
esac
SH

echo "the views in headless Chromium (tests/openwrt/luci_flow.py), screenshots in $LUCI_SHOTS"
rc=0
nt_run router /usr/bin/python3 tests/openwrt/luci_flow.py http://127.0.0.1:8080 "$LUCI_PASS" "$LUCI_SHOTS" "$CONTROL" || rc=$?
[ "$(cat "$LINKEM2_PID_FILE")" = "$NT_LINKEM_PID_2" ] || nt_stop "$(cat "$LINKEM2_PID_FILE")"
nt_expect_true "the browser's steps all passed" test "$rc" -eq 0
[ -z "$NETIFD" ] || grep -E "Interface 'wb_home'|wb_home \([0-9]+\): .*(reloaded|exit|signal|stopp)" "$NT_TMP/netifd.log" |
	sed 's/^/      netifd: /'
nt_expect_true "the reload logged why the broken key was refused (the check's line)" \
	grep -q 'wanbond: bond home: .*home.conf.next:[0-9]*: server.public_key: an example key' "$SYSLOG"
if [ -n "$NETIFD" ]; then
	nt_expect_true "a client daemon runs at the end (the bond restarted from the page: pid $CPID, then $(daemon_pid))" \
		test -n "$(daemon_pid)"
else
	nt_expect_true "the client's daemon ran throughout (pid $CPID)" kill -0 "$CPID"
fi
nt_finish
