#!/usr/bin/env bash
# The OpenWrt package (openwrt/wanbond/files) against real OpenWrt
# components, run natively on this machine: ubusd, procd, rpcd, uci,
# jsonfilter, jshn and OpenWrt's shell libraries (/lib/functions.sh,
# /lib/functions/network.sh, /lib/functions/procd.sh, /etc/rc.common),
# found in OpenWrt's layout under the directory $OPENWRT_ROOT (its sbin/procd,
# sbin/ubusd, bin/ubus, sbin/uci, sbin/rpcd, usr/bin/jsonfilter, usr/bin/jshn,
# usr/share/libubox/jshn.sh, lib/ and usr/lib/ with their shared libraries;
# built for this machine, as they link against its C library).
# docs/testing.md says which versions it was run with. Without them it is
# skipped: test_openwrt_scripts.sh covers the scripts with test doubles.
#
# With them, as root, in a private mount namespace (OpenWrt's files are laid
# over /usr and /etc with overlays seen by this test only, /var is a tmpfs
# as on OpenWrt, /bin/sh is busybox ash) and the namespaces of lib.sh (a
# router with three uplinks, a vps running a server wanbondd): ubusd, procd
# (not PID 1: it only serves "service" and "hotplug.*" on ubus) and rpcd run
# in the router; the package's files are where the package puts them, with
# this build's wanbondd and wanbond.
#   a. the uci-defaults script as opkg's postinst runs it (default_postinst,
#      real uci): the key pair, network.wb_home, the zone "wanbond"; a second
#      run adds nothing
#   b. /etc/init.d/wanbond start: procd runs the bond's instance (ubus call
#      service list), the daemon reaches the server; kill -9: procd respawns it
#   c. uci set + uci commit + reload_config: the config.change trigger
#      reloads the service, the daemon gets a SIGHUP (same pid) and applies it
#   d. interface.update of an uplink's interface: the trigger writes the file
#      again with the interface's new device (network_get_device over ubus)
#      and HUPs the daemon; an update that changes nothing HUPs nothing
#   e. procd's hotplug.iface: ifdown takes the uplink out ("interface down
#      (the network manager's ifdown)"), ifup gives it back
#   f. a UCI value that does not check: the daemon goes on unchanged, the
#      instance's data.check_error and the log say why
#   g. ubus call wanbond status through rpcd (exec plugin, ACL); with the
#      daemon stopped, an error object
#
# netifd is not run: a TEST DOUBLE of it (below) answers "ubus call
# network.interface dump" from a file, and the events netifd would notify
# to procd are given to procd's "service event" method, which runs the same
# triggers.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
ROOT=${OPENWRT_ROOT:-}
FILES=openwrt/wanbond/files

# The components, in OpenWrt's layout under $OPENWRT_ROOT.
OW_BINS="sbin/procd sbin/ubusd bin/ubus sbin/uci sbin/rpcd usr/bin/jsonfilter usr/bin/jshn"
OW_SCRIPTS="usr/share/libubox/jshn.sh lib/functions.sh lib/config/uci.sh lib/functions/network.sh
	lib/functions/procd.sh lib/functions/service.sh etc/rc.common sbin/reload_config"
ow_found() {
	[ -n "$ROOT" ] && [ -d "$ROOT" ] || return 1
	local f
	for f in $OW_BINS; do [ -x "$ROOT/$f" ] || return 1; done
	for f in $OW_SCRIPTS; do [ -f "$ROOT/$f" ] || return 1; done
}

if [ -z "${WB_OW_PRIVATE:-}" ]; then
	if ! ow_found; then
		echo "skipped: OpenWrt components not found (OPENWRT_ROOT)"
		exit 0
	fi
	[ "$(id -u)" -eq 0 ] || { echo "test_openwrt: needs root (namespaces, mounts)" >&2; exit 1; }
	# OpenWrt's /bin, /sbin and /lib are laid over this machine's /usr: a merged /usr.
	for d in bin sbin lib; do
		[ "$(readlink -f "/$d")" = "/usr/$d" ] || {
			echo "skipped: OpenWrt components found, but /$d is not /usr/$d here (the test needs a merged /usr)"
			exit 0
		}
	done
	for b in wanbondd wanbond linkem; do
		[ -x "$NT_BUILD/bin/$b" ] || { echo "test_openwrt: missing $NT_BUILD/bin/$b (run make)" >&2; exit 1; }
	done
	for t in busybox unshare jq openssl; do
		command -v "$t" >/dev/null || { echo "test_openwrt: missing $t (run make deps)" >&2; exit 1; }
	done
	grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || true
	# The mount point of this run's tmpfs (the overlays' upper layers); empty on the host.
	WB_OW_DIR=$(mktemp -d /tmp/wanbond-openwrt.XXXXXX)
	export WB_OW_DIR
	WB_OW_PRIVATE=1 unshare --mount --propagation private -- bash "$0" "$NT_BUILD" && rc=0 || rc=$?
	rmdir "$WB_OW_DIR" 2>/dev/null || true
	exit "$rc"
fi

# ---- in the private mount namespace: OpenWrt's file system ------------------------------
mount -t tmpfs -o mode=0755 wanbond-openwrt "$WB_OW_DIR"
for d in usr etc; do
	mkdir -p "$WB_OW_DIR/$d.upper" "$WB_OW_DIR/$d.work"
	mount -t overlay -o "lowerdir=/$d,upperdir=$WB_OW_DIR/$d.upper,workdir=$WB_OW_DIR/$d.work" overlay "/$d"
done
mount -t tmpfs -o mode=0755 var /var
# A /dev of this test's own, so that the log of procd's instances (syslog)
# reaches this test's syslogd (the stand-in of OpenWrt's logd), never the host's.
mkdir -p "$WB_OW_DIR/hostdev"
mount --bind /dev "$WB_OW_DIR/hostdev"
mount -t tmpfs -o mode=0755 dev /dev
for n in null zero full random urandom tty; do
	touch "/dev/$n"
	mount --bind "$WB_OW_DIR/hostdev/$n" "/dev/$n"
done
mkdir -p /dev/net /dev/pts /dev/shm
touch /dev/net/tun
mount --bind "$WB_OW_DIR/hostdev/net/tun" /dev/net/tun
mount --bind "$WB_OW_DIR/hostdev/pts" /dev/pts
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mkdir -p /var/run/ubus /var/lock /var/state /var/etc /tmp/.uci
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

# OpenWrt's components (/lib, /sbin and /bin are /usr's on this machine).
ow_install() { # FILE MODE: $ROOT/FILE where OpenWrt has it
	case "$1" in
	etc/* | usr/*) install -D -m "$2" "$ROOT/$1" "/$1" ;;
	*) install -D -m "$2" "$ROOT/$1" "/usr/$1" ;;
	esac
}
for f in $OW_BINS sbin/reload_config; do ow_install "$f" 0755; done
for f in $OW_SCRIPTS; do [ "$f" = sbin/reload_config ] || ow_install "$f" 0644; done
cp -a "$ROOT"/lib/lib*.so* "$ROOT"/usr/lib/lib*.so* /usr/lib/ 2>/dev/null || true
ln -sf busybox /usr/bin/sh
# The package, as its Makefile installs it, with this build's binaries.
install -m 0755 "$NT_BUILD/bin/wanbondd" /usr/sbin/wanbondd
install -m 0755 "$NT_BUILD/bin/wanbond" /usr/bin/wanbond
install -D -m 0755 "$FILES/wanbond.init" /etc/init.d/wanbond
install -D -m 0644 "$FILES/wanbond-uci.sh" /usr/share/wanbond/uci.sh
install -D -m 0644 "$FILES/wanbond.hotplug" /etc/hotplug.d/iface/30-wanbond
install -D -m 0755 "$FILES/wanbond.defaults" /etc/uci-defaults/90-wanbond
install -D -m 0755 "$FILES/wanbond.rpcd" /usr/libexec/rpcd/wanbond
install -D -m 0644 "$FILES/wanbond.acl.json" /usr/share/rpcd/acl.d/wanbond.json
mkdir -p /usr/lib/opkg/info /etc/config /etc/rc.d
printf '/etc/uci-defaults/90-wanbond\n' >/usr/lib/opkg/info/wanbond.list

source tests/netns/lib.sh
nt_init
jqt() { jq -e "$@" >/dev/null 2>&1; }
# nonempty FN / empty FN: FN's output, for nt_wait_for to ask again each time.
nonempty() { [ -n "$("$@")" ]; }
empty() { [ -z "$("$@")" ]; }
ubus_() { nt_run router ubus "$@"; }

# The router's netifd configuration: wan on wan1, wwan on wan2 (wan3 is
# the device wan moves to in d.).
cat >/etc/config/network <<'UCI'
config interface 'loopback'
	option device 'lo'
	option proto 'static'
	option ipaddr '127.0.0.1'
	option netmask '255.0.0.0'

config interface 'lan'
	option device 'lan0'
	option proto 'static'
	option ipaddr '10.1.0.1'
	option netmask '255.255.255.0'

config interface 'wan'
	option device 'wan1'
	option proto 'static'

config interface 'wwan'
	option device 'wan2'
	option proto 'static'
UCI
cat >/etc/config/firewall <<'UCI'
config defaults
	option input 'REJECT'
	option output 'ACCEPT'
	option forward 'REJECT'

config zone
	option name 'lan'
	list network 'lan'
	option input 'ACCEPT'
	option output 'ACCEPT'
	option forward 'ACCEPT'

config zone
	option name 'wan'
	list network 'wan'
	list network 'wwan'
	option input 'REJECT'
	option output 'ACCEPT'
	option forward 'REJECT'
UCI
# rpcd's logins: one user granted the ACL group "wanbond" (read).
PW=$(openssl passwd -1 wanbond-test)
cat >/etc/config/rpcd <<UCI
config rpcd
	option socket '/var/run/ubus/ubus.sock'
	option timeout '30'

config login
	option username 'wbtest'
	option password '$PW'
	list read 'wanbond'
UCI

# TEST DOUBLE of netifd: its ubus object network.interface, only the
# "dump" method network_get_device reads, served by rpcd as an exec plugin
# from the file $NETIFD_STATE (the interfaces, each with its l3_device).
NETIFD_STATE=/var/run/netifd-double.json
cat >/usr/libexec/rpcd/network.interface <<SH
#!/bin/sh
# TEST DOUBLE of netifd's network.interface (dump), for test_openwrt.sh.
case "\$1" in
list) echo '{"dump":{}}' ;;
call) [ "\$2" = dump ] && cat $NETIFD_STATE ;;
esac
SH
chmod 0755 /usr/libexec/rpcd/network.interface
netifd_state() { # netifd_state WAN_DEVICE WWAN_DEVICE
	local iface dev sep="" list=""
	for pair in "wan:$1" "wwan:$2"; do
		iface=${pair%%:*} dev=${pair#*:}
		list+="$sep{\"interface\":\"$iface\",\"up\":true,\"pending\":false,\"available\":true,\"proto\":\"static\",\"device\":\"$dev\",\"l3_device\":\"$dev\"}"
		sep=","
	done
	printf '{"interface":[%s]}\n' "$list" >"$NETIFD_STATE.new"
	mv "$NETIFD_STATE.new" "$NETIFD_STATE"
}
netifd_state wan1 wan2

nt_topology 3
for n in 1 2 3; do nt_uplink_start "$n" rate 20mbit delay 10ms limit 40ms seed "$n"; done

# ---- a. uci-defaults --------------------------------------------------------------------
echo "a. uci-defaults, as opkg's postinst runs it (default_postinst, real uci)"
cat >/etc/config/wanbond <<'UCI'
config bond 'home'
	option enabled '1'
	option role 'client'
	option private_key_file '/etc/wanbond/wanbond.key'
	option server_address '10.200.0.1'
	option server_port '51820'
	option tun_name 'wb-home'
	list tun_address '10.255.0.2/30'
	list route '10.2.0.0/24'

config uplink 'dsl'
	option bond 'home'
	option interface 'wan'
	option weight '2'

config uplink 'lte'
	option bond 'home'
	option interface 'wwan'
UCI
postinst() { nt_run router sh -c '. /lib/functions.sh; default_postinst wanbond'; }
out=$(postinst) && rc=0 || rc=$?
nt_expect_range "default_postinst: exit status" "$rc" 0 0
nt_expect_true "it prints nothing${out:+ (printed: $out)}" test -z "$out"
nt_expect_true "the uci-defaults script ran once and was removed" test ! -e /etc/uci-defaults/90-wanbond
nt_expect_true "the key pair: wanbond.key 0600" test "$(stat -c %a /etc/wanbond/wanbond.key 2>/dev/null)" = 600
nt_expect_true "the key pair: wanbond.pub is the key's" \
	test "$(wanbondd --pubkey </etc/wanbond/wanbond.key)" = "$(cat /etc/wanbond/wanbond.pub 2>/dev/null)"
nt_expect_true "network.wb_home: proto none, device wb-home" \
	test "$(uci -q get network.wb_home.proto) $(uci -q get network.wb_home.device)" = "none wb-home"
zones() { uci -q show firewall | grep -c "^firewall\.[^.]*\.name='wanbond'\$" || true; }
nt_expect_range "one zone 'wanbond'" "$(zones)" 1 1
zone_networks() { uci -q get "firewall.$(uci -q show firewall | sed -n "s/^firewall\.\([^.]*\)\.name='wanbond'\$/\1/p" | head -n 1).network"; }
nt_expect_true "the zone holds wb_home" test "$(zone_networks)" = wb_home
nt_expect_true "the other zones are untouched" test "$(uci -q get firewall.@zone[1].network)" = "wan wwan"
install -m 0755 "$FILES/wanbond.defaults" /etc/uci-defaults/90-wanbond
key_before=$(md5sum </etc/wanbond/wanbond.key)
postinst && rc=0 || rc=$?
nt_expect_range "second run: exit status" "$rc" 0 0
nt_expect_range "second run: still one zone 'wanbond'" "$(zones)" 1 1
nt_expect_range "second run: three zones in all (lan, wan, wanbond)" "$(uci -q show firewall | grep -c '^firewall\.[^.]*=zone$')" 3 3
nt_expect_true "second run: the zone holds wb_home once" test "$(zone_networks)" = wb_home
nt_expect_range "second run: one interface wb_home" "$(uci -q show network | grep -c '^network\.wb_home=interface$')" 1 1
nt_expect_true "second run: the key is the same" test "$(md5sum </etc/wanbond/wanbond.key)" = "$key_before"

# The server on the vps knows this router's key.
nt_wb_keys server
cp /etc/wanbond/wanbond.pub "$NT_TMP/home.pub"
SCONF=$NT_TMP/vps.conf
nt_wb_server_conf "$SCONF" home:10.255.0.1/30:10.1.0.0/24
nt_wb_start vps "$SCONF"
uci set "wanbond.home.server_public_key=$(cat "$NT_TMP/server.pub")"
uci commit wanbond

# ---- OpenWrt's daemons in the router --------------------------------------------------------
SYSLOG=$NT_TMP/syslog.log
nt_bg router "$NT_TMP/syslogd.log" busybox syslogd -n -O "$SYSLOG"
nt_wait_for 10 test -S /dev/log || nt_die "syslogd did not start"
nt_bg router "$NT_TMP/ubusd.log" ubusd
nt_wait_for 10 test -S /var/run/ubus/ubus.sock || nt_die "ubusd did not start (see $NT_TMP/ubusd.log)"
PROCD_LOG=$NT_TMP/procd.log
nt_bg router "$PROCD_LOG" procd -S
PROCD_PID=$NT_LAST_PID
nt_bg router "$NT_TMP/rpcd.log" rpcd
nt_wait_for 15 ubus_ -t 1 wait_for service hotplug.iface wanbond network.interface ||
	nt_die "procd or rpcd did not register on ubus: $(ubus_ list 2>&1 | tr '\n' ' ')"
nt_run router reload_config # the checksums of /etc/config/*, as at boot

# service list: the pid of instance home while it runs.
svc_pid() { ubus_ call service list '{"name":"wanbond"}' | jq -r '.wanbond.instances.home | select(.running == true) | .pid // empty'; }
wb() { nt_run router wanbond -d /var/run/wanbond "$@"; }
session_up() { wb status | jqt '.bonds.home.session == true'; }
reloads() { grep -c 'wanbondd.*reloaded /var/etc/wanbond/home.conf' "$SYSLOG" || true; }

# ---- b. start, respawn ----------------------------------------------------------------------
echo "b. /etc/init.d/wanbond start; procd runs and respawns the instance"
nt_run router /etc/init.d/wanbond start && rc=0 || rc=$?
nt_expect_range "/etc/init.d/wanbond start: exit status" "$rc" 0 0
nt_wait_for 10 nonempty svc_pid || true
PID1=$(svc_pid)
nt_expect_true "service list: instance home running, pid ${PID1:-none}" test -n "$PID1"
nt_expect_true "its command is wanbondd -c /var/etc/wanbond/home.conf" \
	jqt '.wanbond.instances.home.command == ["/usr/sbin/wanbondd","-c","/var/etc/wanbond/home.conf"]' <<<"$(ubus_ call service list '{"name":"wanbond"}')"
nt_expect_true "that pid is wanbondd" grep -qx wanbondd "/proc/${PID1:-0}/comm"
nt_expect_true "the daemon reaches the server (a session)" nt_wait_for 15 session_up
nt_expect_true "the tunnel carries packets (ping the server's tunnel address)" \
	nt_wait_for 10 nt_run router ping -c 1 -W 1 10.255.0.1
nt_expect_true "both uplinks up" nt_wait_for 10 bash -c \
	"ip netns exec $(nt_ns router) wanbond -d /var/run/wanbond status | jq -e '[.bonds.home.uplinks[].state] == [\"up\",\"up\"]'"
nt_run router /etc/init.d/wanbond enable && rc=0 || rc=$?
nt_expect_true "enable: /etc/rc.d/S99wanbond and K10wanbond (rc.common), enabled says so" \
	test "$rc $(readlink /etc/rc.d/S99wanbond) $(readlink /etc/rc.d/K10wanbond)" = "0 ../init.d/wanbond ../init.d/wanbond"
nt_expect_true "/etc/init.d/wanbond enabled" nt_run router /etc/init.d/wanbond enabled
[ -n "$PID1" ] && kill -KILL "$PID1"
respawned() { local p; p=$(svc_pid); [ -n "$p" ] && [ "$p" != "$PID1" ]; }
nt_expect_true "kill -9: procd respawns it (a new pid, running)" nt_wait_for 20 respawned
PID2=$(svc_pid)
echo "      pid $PID1 killed, respawned as ${PID2:-none}"
nt_expect_true "the respawned daemon reaches the server" nt_wait_for 15 session_up

# ---- c. a UCI change, reload_config ---------------------------------------------------------
echo "c. uci set, uci commit, reload_config: the config.change trigger"
# uci_reload [uci set ARGS...]: each set, then uci commit wanbond and reload_config, as an operator does.
uci_reload() {
	local a
	for a in "$@"; do nt_run router uci set "$a"; done
	nt_run router uci commit wanbond
	nt_run router reload_config
}
n0=$(reloads)
uci_reload wanbond.dsl.weight=5
weight_is() { wb status | jqt ".bonds.home.uplinks.dsl.weight == $1"; }
nt_expect_true "the daemon applies it: dsl's weight 5 (wanbond status)" nt_wait_for 10 weight_is 5
nt_expect_true "wanbond show has it too" bash -c "ip netns exec $(nt_ns router) wanbond -d /var/run/wanbond show | grep -E '^ +dsl ' | grep -qw 5"
nt_expect_true "the file has it" grep -qF '{ name = "dsl"; interface = "wan1"; weight = 5; }' /var/etc/wanbond/home.conf
nt_expect_true "the daemon got a SIGHUP (its log: reloaded)" test "$(reloads)" -gt "$n0"
nt_expect_true "same pid (${PID2:-none})" test "$(svc_pid)" = "$PID2"

# ---- d. interface.update ---------------------------------------------------------------------
echo "d. interface.update of wan (the device moves to wan3)"
# netifd notifies interface events on its network.interface object; procd's
# watch passes them to its triggers, as its "service event" method does.
iface_event() { ubus_ call service event "{\"type\":\"interface.update\",\"data\":{\"interface\":\"$1\"}}"; }
n1=$(reloads)
stamp1=$(stat -c '%i %Y.%y' /var/etc/wanbond/home.conf)
netifd_state wan3 wan2
iface_event wan
dev_is() { wb status | jqt ".bonds.home.uplinks.dsl.device == \"$1\""; }
nt_expect_true "the file gets wan's new device (network_get_device)" \
	nt_wait_for 10 grep -qF '{ name = "dsl"; interface = "wan3"; weight = 5; }' /var/etc/wanbond/home.conf
nt_expect_true "the daemon applies it: dsl on wan3" nt_wait_for 10 dev_is wan3
nt_expect_true "by a SIGHUP (reloaded), same pid" test "$(reloads)" -gt "$n1" -a "$(svc_pid)" = "$PID2"
nt_expect_true "dsl up again on wan3" nt_wait_for 10 bash -c \
	"ip netns exec $(nt_ns router) wanbond -d /var/run/wanbond status | jq -e '.bonds.home.uplinks.dsl.state == \"up\"'"
n2=$(reloads)
stamp2=$(stat -c '%i %Y.%y' /var/etc/wanbond/home.conf)
nt_expect_true "the file was replaced" test "$stamp2" != "$stamp1"
# The same again: the reload writes the same bytes, the file stays, no HUP.
iface_event wan
sleep 4
nt_expect_true "an update that changes nothing: the file untouched" test "$(stat -c '%i %Y.%y' /var/etc/wanbond/home.conf)" = "$stamp2"
nt_expect_true "and no SIGHUP" test "$(reloads)" = "$n2"
iface_event lan
sleep 2
nt_expect_true "an interface no uplink names: no SIGHUP" test "$(reloads)" = "$n2"

# ---- e. hotplug.iface ------------------------------------------------------------------------
echo "e. procd's hotplug.iface: /etc/hotplug.d/iface/30-wanbond"
ubus_ call hotplug.iface call '{"env":["ACTION=ifdown","INTERFACE=wan"]}' && rc=0 || rc=$?
nt_expect_range "ubus call hotplug.iface call (ifdown): exit status" "$rc" 0 0
down_why() { wb -j show | jqt '.. | objects | select(.name? == "dsl" and has("state")) | select(.state == "down" and .interface_up == false and (.state_reason | test("interface down \\(the network manager.s ifdown\\)")))'; }
nt_expect_true "ifdown: dsl down, \"interface down (the network manager's ifdown)\" (-j show)" nt_wait_for 10 down_why
lte_up() { wb status | jqt '.bonds.home.uplinks.lte.state == "up"'; }
nt_expect_true "the other uplink stays up" lte_up
wb status | jq -c '.bonds.home.uplinks.dsl | {state, enabled, interface_up, reason}' | sed 's/^/      /'
ubus_ call hotplug.iface call '{"env":["ACTION=ifup","INTERFACE=wan","DEVICE=wan3"]}' && rc=0 || rc=$?
nt_expect_range "ubus call hotplug.iface call (ifup): exit status" "$rc" 0 0
up_again() { wb status | jqt '.bonds.home.uplinks.dsl | .state == "up" and .interface_up == true'; }
nt_expect_true "ifup: dsl up again" nt_wait_for 10 up_again

# ---- f. a UCI value that does not check ---------------------------------------------------
echo "f. a UCI typo (weight 0): the daemon goes on with the file of before"
n3=$(reloads)
uci_reload wanbond.dsl.weight=0
check_error() { ubus_ call service list '{"name":"wanbond"}' | jq -r '.wanbond.instances.home.data.check_error // empty'; }
nt_wait_for 10 nonempty check_error || true
echo "      data.check_error: $(check_error)"
nt_expect_true "service list: the instance's data.check_error names the weight" bash -c "grep -q 'weight' <<<'$(check_error)'"
nt_expect_true "the log has it (logread)" grep -q 'wanbond.*bond home:.*weight.*the configuration of before stays' "$SYSLOG"
nt_expect_true "same pid, no SIGHUP, dsl's weight still 5" test "$(svc_pid) $(reloads)" = "$PID2 $n3" -a -n "$(weight_is 5 && echo y)"
nt_expect_true "the file of before stays" grep -qF 'weight = 5;' /var/etc/wanbond/home.conf
uci_reload wanbond.dsl.weight=5
nt_expect_true "fixed: check_error gone, same pid, no SIGHUP (same file)" \
	nt_wait_for 10 bash -c "[ -z \"\$(ip netns exec $(nt_ns router) ubus call service list '{\"name\":\"wanbond\"}' | jq -r '.wanbond.instances.home.data.check_error // empty')\" ]"
nt_expect_true "  (pid $PID2, reloads $n3)" test "$(svc_pid) $(reloads)" = "$PID2 $n3"
# A new bond whose file does not check: no file of before, so no daemon.
nt_run router uci batch >/dev/null <<'UCI'
set wanbond.office=bond
set wanbond.office.role='client'
set wanbond.office.private_key_file='/etc/wanbond/wanbond.key'
set wanbond.office.server_address='10.200.0.1'
set wanbond.office.server_public_key='not a key'
set wanbond.o1=uplink
set wanbond.o1.bond='office'
set wanbond.o1.interface='wwan'
UCI
nt_run router uci commit wanbond
nt_run router reload_config
office() { ubus_ call service list '{"name":"wanbond"}' | jq -c '.wanbond.instances.office // empty'; }
nt_wait_for 10 nonempty office || true
echo "      instance office: $(office | cut -c1-300)"
nt_expect_true "a new bond that does not check: its instance not running, with the check's line in errors" \
	jqt '.running == false and (.errors | length) == 1 and (.errors[0] | test("public_key"))' <<<"$(office)"
nt_expect_true "home goes on: same pid, no SIGHUP" test "$(svc_pid) $(reloads)" = "$PID2 $n3"
nt_run router uci delete wanbond.office
nt_run router uci delete wanbond.o1
nt_run router uci commit wanbond
nt_run router reload_config
nt_expect_true "removed again: the instance goes" nt_wait_for 10 empty office

# ---- g. ubus call wanbond status -------------------------------------------------------------
echo "g. ubus call wanbond status, through rpcd"
# Some traffic for the figures below: 20 pings through the tunnel.
nt_run router ping -q -c 20 -i 0.05 -W 1 10.255.0.1 >/dev/null 2>&1 && rc=0 || rc=$?
nt_expect_range "20 pings through the tunnel: exit status" "$rc" 0 0
nt_wait_for 10 session_up || true
ST=$(ubus_ call wanbond status) && rc=0 || rc=$?
nt_expect_range "ubus call wanbond status: exit status" "$rc" 0 0
# As ubus prints it; each "counters" and "device_counters" object on one line.
echo "      ubus call wanbond status:"
awk '/counters": \{/ { c = 1; line = $0; next }
	c { sub(/^[ \t]+/, ""); line = line " " $0; if ($0 ~ /^\}/) { print line; c = 0 }; next }
	{ print }' <<<"$ST" | sed 's/^/        /'
nt_expect_true "a bond object home, client, with a session" jqt '.bonds.home | .role == "client" and .session == true' <<<"$ST"
nt_expect_true "uplink objects dsl and lte, each with state and reason" \
	jqt '.bonds.home.uplinks | (keys == ["dsl","lte"]) and all(.[]; (.state | type) == "string" and (.reason | type) == "string")' <<<"$ST"
nt_expect_true "dsl up on wan3, weight 5" jqt '.bonds.home.uplinks.dsl | .state == "up" and .device == "wan3" and .weight == 5' <<<"$ST"
ST1=$(ubus_ call wanbond status '{"bond":"home"}') && rc=0 || rc=$?
nt_expect_range "ubus call wanbond status '{\"bond\":\"home\"}': exit status" "$rc" 0 0
nt_expect_true "that bond only" jqt '.bonds | keys == ["home"]' <<<"$ST1"
SESSION=$(ubus_ call session login '{"username":"wbtest","password":"wanbond-test"}' | jq -r '.ubus_rpc_session // empty')
nt_expect_true "rpcd login of a user of the ACL group wanbond" test -n "$SESSION"
access() { ubus_ call session access "{\"ubus_rpc_session\":\"$SESSION\",\"scope\":\"ubus\",\"object\":\"$1\",\"function\":\"$2\"}" | jqt ".access == $3"; }
nt_expect_true "the ACL grants it wanbond status" access wanbond status true
nt_expect_true "and nothing else of wanbond" access wanbond restart false
PROM=$(wb stats --prometheus)
# A sample of it: the bond's gauges and the uplinks' state, RTT and bytes, the device's datagrams.
echo "      wanbond stats --prometheus ($(grep -vc '^#' <<<"$PROM") samples), some of them:"
grep -E '^wanbond_(bond_(info|session_up|tun_[rt]x_bytes_total|retransmits_total)|uplink_(info|state|rtt_seconds|loss_ratio|tx_bytes_total|reinjected_total|penalties_total)|device_(rx_datagrams|bad_mac1)_total)[{ ]' <<<"$PROM" |
	sed 's/^/        /'
nt_expect_true "wanbond stats --prometheus: wanbond_ metrics of home" grep -q '^wanbond_.*bond="home"' <<<"$PROM"

nt_run router /etc/init.d/wanbond stop && rc=0 || rc=$?
nt_expect_range "/etc/init.d/wanbond stop: exit status" "$rc" 0 0
gone() { ! jqt '.wanbond.instances.home' <<<"$(ubus_ call service list '{"name":"wanbond"}')" && ! kill -0 "$PID2" 2>/dev/null; }
nt_expect_true "the instance and its daemon are gone" nt_wait_for 10 gone
ST2=$(ubus_ call wanbond status) && rc=0 || rc=$?
echo "      daemon stopped: $ST2"
nt_expect_range "daemon stopped: the call still answers (exit status)" "$rc" 0 0
nt_expect_true "with an error object: wanbondd is not running, code 3" \
	jqt '.error == "wanbondd is not running" and .code == 3 and (.detail | type) == "string"' <<<"$ST2"

nt_stop "$PROCD_PID"
if [ "$NT_FAILS" -gt 0 ]; then
	echo "      the end of the log (procd's instances, the scripts' logger):"
	tail -n 40 "$SYSLOG" | sed 's/^/        /'
fi
nt_finish
