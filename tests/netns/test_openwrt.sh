#!/usr/bin/env bash
# The OpenWrt package (openwrt/wanbond/files) against real OpenWrt
# components, run natively on this machine: netifd, ubusd, procd, rpcd, uci,
# jsonfilter, jshn and OpenWrt's shell libraries (/lib/functions.sh,
# /lib/functions/network.sh, /lib/functions/procd.sh, /etc/rc.common,
# /lib/netifd/netifd-proto.sh), found in OpenWrt's layout under the
# directory $OPENWRT_ROOT (its sbin/netifd, sbin/ifup, sbin/procd,
# sbin/ubusd, bin/ubus, sbin/uci, sbin/rpcd, usr/bin/jsonfilter,
# usr/bin/jshn, usr/share/libubox/jshn.sh, lib/netifd/, lib/ and usr/lib/
# with their shared libraries; built for this machine, as they link against
# its C library). docs/testing.md says which versions it was run with.
# Without them it is skipped: test_openwrt_scripts.sh covers the scripts
# with test doubles. Without netifd (sbin/netifd, lib/netifd/netifd-proto.sh)
# it is skipped too, saying so: the package runs its bonds as netifd
# interfaces (proto wanbond), and a test double of netifd would test little
# of that.
#
# With them, as root, in a private mount namespace (OpenWrt's files are laid
# over /usr and /etc with overlays seen by this test only, /var is a tmpfs
# as on OpenWrt, /bin/sh is busybox ash) and the namespaces of lib.sh (a
# router with three uplinks, a vps running a server wanbondd): ubusd, procd
# (not PID 1: it serves "service" and "hotplug.*" on ubus), rpcd and netifd
# run in the router, netifd as procd's instance the way /etc/init.d/network
# runs it (watch network.interface: procd gets the interfaces' events for
# the services' interface triggers); its interfaces: lan, wan (wan1) and
# wwan (wan2) static, and the bonds' wb_* (proto wanbond). The package's
# files are where the package puts them, with this build's wanbondd and
# wanbond.
#   a. the uci-defaults script as opkg's postinst runs it (default_postinst,
#      real uci): the key pair, network.wb_home (proto wanbond, option bond
#      home), the zone "wanbond"; a second run changes nothing; an upgrade
#      from an older package: its wb_office (proto none on the TUN device)
#      becomes proto wanbond with option bond office, its device gone
#   b. netifd runs the bond: wb_home comes up by itself (its status: up,
#      l3_device wb-home, its address and route), the daemon is netifd's
#      child and reaches the server, a ping through the tunnel; the disabled
#      bond's wb_office refuses (BOND_DISABLED); ifdown wb_home stops the
#      daemon (status down) and it stays down through an uplink's event and
#      a reload, ifup starts a new one; kill -9 of the daemon:
#      netifd brings the interface and a new daemon back
#   c. uci set + uci commit + reload_config: the config.change trigger
#      reloads the service, the daemon gets a SIGHUP (same pid, "reloaded"
#      in netifd's log of it) and applies it (wanbond -j show)
#   d. wan's device changed to wan3 in /etc/config/network, ubus call
#      network reload: netifd's interface events run the service's trigger,
#      which writes the file again with wan's new device and HUPs the daemon;
#      an interface.update that changes nothing (set_data on wan) runs the
#      trigger (the file is written beside and dropped) but HUPs nothing; an
#      interface no uplink names runs nothing
#   e. procd's hotplug.iface: ifdown takes the uplink out ("interface down
#      (the network manager's ifdown)"), ifup gives it back
#   f. a UCI value that does not check (weight 0): the daemon goes on
#      unchanged (same pid, no SIGHUP), the log says why, the file of before
#      stays; ifup wb_home with it: the handler runs the file of before (its
#      rc 3, said in the log); with no file of before (as after a reboot)
#      ifup refuses, CHECK_FAILED in the status's errors and no daemon; the
#      value fixed, reload_config: the service brings wb_home up again
#   g. ubus call wanbond status through rpcd (exec plugin, ACL); check: a
#      broken value committed but not applied is ok:false with the file's
#      FILE:LINE, the daemon untouched; uplink_set off and on; with the
#      daemon stopped (ifdown wb_home), an error object
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
ROOT=${OPENWRT_ROOT:-}
FILES=openwrt/wanbond/files

# The components, in OpenWrt's layout under $OPENWRT_ROOT.
OW_BINS="sbin/procd sbin/ubusd bin/ubus sbin/uci sbin/rpcd usr/bin/jsonfilter usr/bin/jshn"
OW_SCRIPTS="usr/share/libubox/jshn.sh lib/functions.sh lib/config/uci.sh lib/functions/network.sh
	lib/functions/procd.sh lib/functions/service.sh etc/rc.common sbin/reload_config"
# netifd: the daemon, its shell library (the protocol handlers'), ifup/ifdown.
OW_NETIFD="sbin/netifd sbin/ifup lib/netifd/netifd-proto.sh lib/netifd/utils.sh"
ow_found() {
	[ -n "$ROOT" ] && [ -d "$ROOT" ] || return 1
	local f
	for f in $OW_BINS; do [ -x "$ROOT/$f" ] || return 1; done
	for f in $OW_SCRIPTS; do [ -f "$ROOT/$f" ] || return 1; done
}
netifd_found() {
	local f
	for f in $OW_NETIFD; do [ -f "$ROOT/$f" ] || return 1; done
	[ -x "$ROOT/sbin/netifd" ]
}

if [ -z "${WB_OW_PRIVATE:-}" ]; then
	if ! ow_found; then
		echo "skipped: OpenWrt components not found (OPENWRT_ROOT)"
		exit 0
	fi
	if ! netifd_found; then
		echo "skipped: OpenWrt components found, but not netifd ($ROOT lacks one of: $OW_NETIFD); the package runs its bonds as netifd interfaces"
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
	for t in busybox unshare jq openssl pgrep; do
		command -v "$t" >/dev/null || { echo "test_openwrt: missing $t (run make deps)" >&2; exit 1; }
	done
	grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || true
	# The mount point of this run's tmpfs (the overlays' upper layers); empty on the host.
	WB_OW_DIR=$(mktemp -d /tmp/wanbond-openwrt.XXXXXX)
	export WB_OW_DIR
	# The namespaces of earlier runs whose process is gone: found from here,
	# where every run's pid is seen.
	source tests/netns/lib.sh
	nt_clean_stale
	# A PID namespace of its own too: /etc/init.d/wanbond finds a bond's
	# daemon by its command line in /proc, and another test's router (test_luci.sh)
	# runs one with the same command line; the namespaces of lib.sh are named
	# by this pid. The run's processes all end with it.
	WB_OW_PRIVATE=1 NT_PREFIX="wbt-$$-" unshare --mount --propagation private --pid --fork --mount-proc -- \
		bash "$0" "$NT_BUILD" && rc=0 || rc=$?
	rmdir "$WB_OW_DIR" 2>/dev/null || true
	exit "$rc"
fi

# ---- in the private mount namespace: OpenWrt's file system ------------------------------
source tests/netns/openwrt_root.sh
ow_private_root "$WB_OW_DIR"

# OpenWrt's components (/lib, /sbin and /bin are /usr's on this machine).
ow_install() { # FILE MODE: $ROOT/FILE where OpenWrt has it
	case "$1" in
	etc/* | usr/*) install -D -m "$2" "$ROOT/$1" "/$1" ;;
	*) install -D -m "$2" "$ROOT/$1" "/usr/$1" ;;
	esac
}
for f in $OW_BINS sbin/reload_config sbin/netifd sbin/ifup; do ow_install "$f" 0755; done
for f in $OW_SCRIPTS; do [ "$f" = sbin/reload_config ] || ow_install "$f" 0644; done
ln -sf ifup /usr/sbin/ifdown
# netifd's scripts and ucode (its protocol handlers' library, main.uc), and
# the ucode modules it may load.
cp -a "$ROOT/lib/netifd/." /usr/lib/netifd/ 2>/dev/null || { mkdir -p /usr/lib/netifd && cp -a "$ROOT/lib/netifd/." /usr/lib/netifd/; }
[ -d "$ROOT/usr/lib/ucode" ] && cp -a "$ROOT/usr/lib/ucode" /usr/lib/
cp -a "$ROOT"/lib/lib*.so* "$ROOT"/usr/lib/lib*.so* /usr/lib/ 2>/dev/null || true
# The package, as its Makefile installs it, with this build's binaries.
ow_install_wanbond "$NT_BUILD"
mkdir -p /usr/lib/opkg/info /etc/config /etc/rc.d
printf '/etc/uci-defaults/90-wanbond\n' >/usr/lib/opkg/info/wanbond.list
# No ujail here (procd built without it): the handler runs wanbondd itself.
[ ! -e /usr/sbin/ujail ] || echo "      note: /sbin/ujail present: the handler runs the daemon in a jail"

source tests/netns/lib.sh
# In this PID namespace the other runs' pids are not seen: their namespaces
# would all look stale (the outer shell cleaned the stale ones).
nt_clean_stale() { :; }
nt_init
# nonempty FN / empty FN: FN's output, for nt_wait_for to ask again each time.
nonempty() { [ -n "$("$@")" ]; }
empty() { [ -z "$("$@")" ]; }
ubus_() { nt_run router ubus "$@"; }

# The router's netifd configuration (openwrt_root.sh): wan on wan1, wwan on
# wan2 (wan3 is the device wan moves to in d.); the uci-defaults script (a.)
# adds the bonds' interfaces.
ow_router_network
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
touch /etc/config/dhcp /etc/config/wireless
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
nt_expect_true "network.wb_home: proto wanbond, bond home, no device" \
	test "$(uci -q get network.wb_home.proto) $(uci -q get network.wb_home.bond) $(uci -q get network.wb_home.device || echo -)" = "wanbond home -"
zones() { uci -q show firewall | grep -c "^firewall\.[^.]*\.name='wanbond'\$" || true; }
nt_expect_range "one zone 'wanbond'" "$(zones)" 1 1
zone_networks() { uci -q get "firewall.$(uci -q show firewall | sed -n "s/^firewall\.\([^.]*\)\.name='wanbond'\$/\1/p" | head -n 1).network"; }
nt_expect_true "the zone holds wb_home" test "$(zone_networks)" = wb_home
nt_expect_true "the other zones are untouched" test "$(uci -q get firewall.@zone[1].network)" = "wan wwan"
install -m 0755 "$FILES/wanbond.defaults" /etc/uci-defaults/90-wanbond
key_before=$(md5sum </etc/wanbond/wanbond.key)
uci_before=$(uci -q show network; uci -q show firewall)
postinst && rc=0 || rc=$?
nt_expect_range "second run: exit status" "$rc" 0 0
nt_expect_true "second run: network and firewall unchanged (uci show, every line)" \
	test "$(uci -q show network; uci -q show firewall)" = "$uci_before"
nt_expect_range "second run: still one zone 'wanbond'" "$(zones)" 1 1
nt_expect_true "second run: the key is the same" test "$(md5sum </etc/wanbond/wanbond.key)" = "$key_before"
# An upgrade from a package of before: it had made wb_office as proto none
# on the bond's TUN device (its init script ran the daemon).
nt_run router uci batch >/dev/null <<'UCI'
set wanbond.office=bond
set wanbond.office.enabled='0'
set wanbond.office.role='client'
set wanbond.office.tun_name='wb-office'
set network.wb_office=interface
set network.wb_office.proto='none'
set network.wb_office.device='wb-office'
UCI
nt_run router uci commit
install -m 0755 "$FILES/wanbond.defaults" /etc/uci-defaults/90-wanbond
home_before=$(uci -q show network.wb_home)
postinst && rc=0 || rc=$?
nt_expect_range "upgrade: exit status" "$rc" 0 0
nt_expect_true "upgrade: wb_office of before is proto wanbond, bond office, its device gone" \
	test "$(uci -q get network.wb_office.proto) $(uci -q get network.wb_office.bond) $(uci -q get network.wb_office.device || echo -)" = "wanbond office -"
nt_expect_range "upgrade: one interface wb_office" "$(uci -q show network | grep -c '^network\.wb_office=interface$')" 1 1
nt_expect_true "upgrade: wb_home unchanged" test "$(uci -q show network.wb_home)" = "$home_before"
nt_expect_true "upgrade: the zone holds wb_home and wb_office" test "$(zone_networks)" = "wb_home wb_office"
nt_expect_range "upgrade: three zones in all (lan, wan, wanbond)" "$(uci -q show firewall | grep -c '^firewall\.[^.]*=zone$')" 3 3

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
nt_wait_for 15 ubus_ -t 1 wait_for service hotplug.iface wanbond ||
	nt_die "procd or rpcd did not register on ubus: $(ubus_ list 2>&1 | tr '\n' ' ')"
nt_run router reload_config # the checksums of /etc/config/*, as at boot

# The daemon netifd runs for wb_home, found by its command line (as the
# service finds it) in this test's router: another test's router may run
# one with the same command line (test_luci.sh).
daemon_pid() {
	local p
	for p in $(pgrep -x -f '/usr/sbin/wanbondd -c /var/etc/wanbond/home.conf'); do
		[ "$(ip netns identify "$p" 2>/dev/null)" = "$(nt_ns router)" ] && { echo "$p"; return 0; }
	done
	return 0
}
ifstatus_() { ubus_ call "network.interface.$1" status; }
wb() { nt_run router wanbond -d /var/run/wanbond "$@"; }
session_up() { wb status home | jqt '.bonds.home.session == true'; }
both_up() { wb status home | jqt '[.bonds.home.uplinks[].state] == ["up","up"]'; }
# The daemon's output is in netifd's log (syslog), as "wb_home (PID): ...".
reloads() { grep -c 'wb_home ([0-9]*): .*reloaded /var/etc/wanbond/home.conf' "$SYSLOG" || true; }

# ---- b. netifd runs the bond ------------------------------------------------------------------
echo "b. netifd runs the bond (proto wanbond); ifdown, ifup, kill -9"
nt_run router /etc/init.d/wanbond start && rc=0 || rc=$?
nt_expect_range "/etc/init.d/wanbond start: exit status" "$rc" 0 0
svc_wanbond() { ubus_ call service list '{"name":"wanbond","verbose":true}'; }
nt_expect_true "the service runs no instance, it carries the triggers (config.change wanbond, interface.* wan and wwan)" \
	jqt '.wanbond | ((.instances // {}) | length) == 0 and ([.triggers[]? | tostring] | (any(test("config.change")) and any(test("interface.*\"wan\"")) and any(test("\"wwan\""))))' <<<"$(svc_wanbond)"
nt_run router /etc/init.d/wanbond enable && rc=0 || rc=$?
nt_expect_true "enable: /etc/rc.d/S99wanbond and K10wanbond (rc.common)" \
	test "$rc $(readlink /etc/rc.d/S99wanbond) $(readlink /etc/rc.d/K10wanbond)" = "0 ../init.d/wanbond ../init.d/wanbond"
nt_expect_true "/etc/init.d/wanbond enabled" nt_run router /etc/init.d/wanbond enabled
# netifd as /etc/init.d/network has procd run it (its hotplug calls aside:
# procd's hotplug-call is not used here, e. calls hotplug.iface itself).
ubus_ call service set '{"name":"network","instances":{"instance1":{"command":["/sbin/netifd","-l","2","-h","/bin/true"],"respawn":["3600","5","5"],"watch":["network.interface"]}}}' >/dev/null
netifd_pid() { ubus_ call service list '{"name":"network"}' | jq -r '.network.instances.instance1 | select(.running == true) | .pid // empty'; }
nt_wait_for 10 nonempty netifd_pid || true
NETIFD_PID=$(netifd_pid)
nt_expect_true "procd runs netifd (pid ${NETIFD_PID:-none})" grep -qx netifd "/proc/${NETIFD_PID:-0}/comm"
wb_up() { ifstatus_ wb_home | jqt '.up == true and .l3_device == "wb-home"'; }
wb_down() { ifstatus_ wb_home | jqt '.up == false'; }
nt_expect_true "wb_home comes up by itself (ubus call network.interface.wb_home status: up, l3_device wb-home)" nt_wait_for 40 wb_up
ifstatus_ wb_home >"$NT_TMP/ifstatus.json" || true
echo "      network.interface.wb_home: $(jq -c '{up, proto, l3_device, "ipv4-address": [."ipv4-address"[]? | "\(.address)/\(.mask)"], route: [.route[]? | "\(.target)/\(.mask)"], errors}' "$NT_TMP/ifstatus.json" 2>/dev/null)"
nt_expect_true "its status: proto wanbond, 10.255.0.2/30, the route 10.2.0.0/24" \
	jqt '.proto == "wanbond" and (."ipv4-address" | map("\(.address)/\(.mask)") | index("10.255.0.2/30") != null) and ([.route[] | "\(.target)/\(.mask)"] | index("10.2.0.0/24") != null)' "$NT_TMP/ifstatus.json"
nt_expect_true "the device wb-home has 10.255.0.2/30, the route 10.2.0.0/24 goes through it" \
	test "$(nt_run router ip -4 -o addr show dev wb-home 2>/dev/null | awk '{ print $4 }') $(nt_run router ip -4 route show 10.2.0.0/24 2>/dev/null | grep -o 'dev [^ ]*')" = "10.255.0.2/30 dev wb-home"
PID1=$(daemon_pid)
nt_expect_true "a wanbondd -c /var/etc/wanbond/home.conf runs (pid ${PID1:-none}), netifd's child" \
	test -n "$PID1" -a "$(awk '/^PPid:/ { print $2 }' "/proc/${PID1:-0}/status" 2>/dev/null)" = "$NETIFD_PID"
nt_expect_true "the daemon reaches the server (a session)" nt_wait_for 15 session_up
nt_expect_true "the tunnel carries packets (ping the server's tunnel address)" \
	nt_wait_for 10 nt_run router ping -c 1 -W 1 10.255.0.1
nt_expect_true "both uplinks up" nt_wait_for 10 both_up
office_refused() { ifstatus_ wb_office | jqt '.up == false and ([.errors[]?.code] | index("BOND_DISABLED") != null)'; }
nt_expect_true "wb_office (its bond enabled 0): down, BOND_DISABLED in its errors" nt_wait_for 10 office_refused
nt_run router ifdown wb_home >/dev/null 2>&1 || true
gone() { ! kill -0 "$1" 2>/dev/null; }
nt_expect_true "ifdown wb_home: the daemon ($PID1) stops" nt_wait_for 10 gone "${PID1:-0}"
nt_expect_true "ifdown wb_home: its status says down" nt_wait_for 5 wb_down
nt_expect_true "ifdown wb_home: no wanbondd for home" empty daemon_pid
# An event of an uplink's interface (a DHCP renew sends one) reloads the service:
# the operator's ifdown stays (the handler refused nothing).
nt_run router ubus call service event '{"type":"interface.update","data":{"interface":"wan"}}' >/dev/null 2>&1 || true
nt_run router /etc/init.d/wanbond reload >/dev/null 2>&1 || true
sleep 1
nt_expect_true "ifdown wb_home, then an uplink's event and a reload: still down" wb_down
nt_expect_true "ifdown wb_home, then an uplink's event and a reload: no daemon" empty daemon_pid
nt_run router ifup wb_home >/dev/null 2>&1 || true
nt_expect_true "ifup wb_home: up again" nt_wait_for 20 wb_up
PID2=$(daemon_pid)
nt_expect_true "ifup wb_home: a new daemon (${PID2:-none}) reaches the server" \
	test -n "$PID2" -a "$PID2" != "$PID1" -a -n "$(nt_wait_for 15 session_up && echo y)"
[ -n "$PID2" ] && kill -KILL "$PID2"
new_daemon() { local p; p=$(daemon_pid); [ -n "$p" ] && [ "$p" != "$PID2" ] && wb_up; }
nt_expect_true "kill -9 of the daemon: netifd brings wb_home back up, with a new daemon" nt_wait_for 40 new_daemon
PID3=$(daemon_pid)
echo "      pid $PID2 killed, netifd started ${PID3:-none}"
nt_expect_true "the new daemon reaches the server" nt_wait_for 15 session_up
nt_expect_true "and both uplinks are up" nt_wait_for 10 both_up

# ---- c. a UCI change, reload_config ---------------------------------------------------------
echo "c. uci set, uci commit, reload_config: the config.change trigger"
# uci_reload [uci set ARGS...]: each set, then uci commit wanbond and reload_config, as an operator does.
uci_reload() {
	local a
	for a in "$@"; do nt_run router uci set "$a"; done
	nt_run router uci commit wanbond
	nt_run router reload_config
}
weight_is() { wb status home | jqt ".bonds.home.uplinks.dsl.weight == $1"; }
n0=$(reloads)
uci_reload wanbond.dsl.weight=5
nt_expect_true "the daemon applies it: dsl's weight 5 (wanbond status)" nt_wait_for 10 weight_is 5
show_weight() { wb -j show | jqt '[.. | objects | select(.name? == "dsl" and has("weight")) | .weight] == [5]'; }
nt_expect_true "wanbond -j show has it too" show_weight
nt_expect_true "the file has it" grep -qF '{ name = "dsl"; interface = "wan1"; weight = 5; }' /var/etc/wanbond/home.conf
hup_seen() { [ "$(reloads)" -gt "$n0" ]; }
nt_expect_true "the daemon got a SIGHUP (netifd's log of it: wb_home ($PID3): ... reloaded)" nt_wait_for 5 hup_seen
nt_expect_true "same pid ($PID3)" test -n "$PID3" -a "$(daemon_pid)" = "$PID3"
# A change beyond the uplinks and the scheduler (a timer) takes a restart:
# the service restarts the bond's interface, a new daemon runs it.
uci_reload wanbond.home.probe_interval_ms=300
new_daemon() { local p; p=$(daemon_pid); [ -n "$p" ] && [ "$p" != "$PID3" ]; }
nt_expect_true "a timer changed (probe_interval_ms 300): wb_home restarted, a new daemon" nt_wait_for 20 new_daemon
nt_expect_true "a timer changed: wb_home up again, the new daemon reaches the server" nt_wait_for 20 session_up
nt_expect_true "a timer changed: the file has it" grep -q 'probe_interval_ms = 300;' /var/etc/wanbond/home.conf
nt_expect_true "a timer changed: the service said why (the log)" \
	nt_wait_for 5 grep -q 'wanbond: bond home: settings beyond its uplinks and scheduler changed: interface wb_home restarts it' "$SYSLOG"
PID3=$(daemon_pid)

# ---- d. wan's device changes --------------------------------------------------------------
echo "d. wan's device changes to wan3 (/etc/config/network, ubus call network reload)"
n1=$(reloads)
stamp1=$(stat -c '%i %Y.%y' /var/etc/wanbond/home.conf)
nt_run router uci batch >/dev/null <<'UCI'
set network.wan.device='wan3'
set network.wan.ipaddr='10.100.3.1'
set network.srv_wan.gateway='10.100.3.2'
UCI
nt_run router uci commit network
ubus_ call network reload && rc=0 || rc=$?
nt_expect_range "ubus call network reload: exit status" "$rc" 0 0
wan_on_wan3() { ifstatus_ wan | jqt '.up == true and .l3_device == "wan3"'; }
nt_expect_true "netifd: wan up on wan3" nt_wait_for 15 wan_on_wan3
nt_expect_true "the file gets wan's new device (the interface trigger, network_get_device)" \
	nt_wait_for 15 grep -qF '{ name = "dsl"; interface = "wan3"; weight = 5; }' /var/etc/wanbond/home.conf
dev_is() { wb status home | jqt ".bonds.home.uplinks.dsl.device == \"$1\""; }
nt_expect_true "the daemon applies it: dsl on wan3" nt_wait_for 10 dev_is wan3
nt_expect_true "by a SIGHUP (reloaded), same pid" test "$(reloads)" -gt "$n1" -a -n "$PID3" -a "$(daemon_pid)" = "$PID3"
dsl_up() { wb status home | jqt '.bonds.home.uplinks.dsl.state == "up"'; }
nt_expect_true "dsl up again on wan3" nt_wait_for 15 dsl_up
nt_expect_true "the file was replaced" test "$(stat -c '%i %Y.%y' /var/etc/wanbond/home.conf)" != "$stamp1"
# An interface.update of wan that changes no device (set_data: netifd
# notifies interface.update): the trigger runs the reload, which writes the
# file beside the one in use (home.conf.next) and drops it, the same bytes;
# the directory's mtime says that it ran.
sleep 2
n2=$(reloads)
stamp2=$(stat -c '%i %Y.%y' /var/etc/wanbond/home.conf)
dir2=$(stat -c '%Y.%y' /var/etc/wanbond)
ubus_ call network.interface.wan set_data '{"wbtest":"1"}' && rc=0 || rc=$?
nt_expect_range "ubus call network.interface.wan set_data: exit status" "$rc" 0 0
dir_moved() { [ "$(stat -c '%Y.%y' /var/etc/wanbond)" != "$1" ]; }
nt_expect_true "an update that changes nothing: the trigger ran (a file written beside, dropped)" nt_wait_for 10 dir_moved "$dir2"
sleep 1
nt_expect_true "the file untouched" test "$(stat -c '%i %Y.%y' /var/etc/wanbond/home.conf)" = "$stamp2"
nt_expect_true "and no SIGHUP" test "$(reloads)" = "$n2"
dir3=$(stat -c '%Y.%y' /var/etc/wanbond)
ubus_ call network.interface.lan set_data '{"wbtest":"1"}' >/dev/null
sleep 3
nt_expect_true "an update of an interface no uplink names: no reload, no SIGHUP" \
	test "$(stat -c '%Y.%y' /var/etc/wanbond) $(reloads)" = "$dir3 $n2"

# ---- e. hotplug.iface ------------------------------------------------------------------------
echo "e. procd's hotplug.iface: /etc/hotplug.d/iface/30-wanbond"
ubus_ call hotplug.iface call '{"env":["ACTION=ifdown","INTERFACE=wan"]}' && rc=0 || rc=$?
nt_expect_range "ubus call hotplug.iface call (ifdown): exit status" "$rc" 0 0
down_why() { wb -j show | jqt '.. | objects | select(.name? == "dsl" and has("state")) | select(.state == "down" and .interface_up == false and (.state_reason | test("interface down \\(the network manager.s ifdown\\)")))'; }
nt_expect_true "ifdown: dsl down, \"interface down (the network manager's ifdown)\" (-j show)" nt_wait_for 10 down_why
lte_up() { wb status home | jqt '.bonds.home.uplinks.lte.state == "up"'; }
nt_expect_true "the other uplink stays up" lte_up
wb status home | jq -c '.bonds.home.uplinks.dsl | {state, enabled, interface_up, reason}' | sed 's/^/      /'
ubus_ call hotplug.iface call '{"env":["ACTION=ifup","INTERFACE=wan","DEVICE=wan3"]}' && rc=0 || rc=$?
nt_expect_range "ubus call hotplug.iface call (ifup): exit status" "$rc" 0 0
up_again() { wb status home | jqt '.bonds.home.uplinks.dsl | .state == "up" and .interface_up == true'; }
nt_expect_true "ifup: dsl up again" nt_wait_for 10 up_again

# ---- f. a UCI value that does not check ---------------------------------------------------
echo "f. a UCI typo (weight 0): the daemon goes on with the file of before"
n3=$(reloads)
svc_err() { grep -c 'wanbond.*bond home: .*weight.*(the configuration of before stays)' "$SYSLOG" || true; }
e0=$(svc_err)
uci_reload wanbond.dsl.weight=0
said() { [ "$(svc_err)" -gt "$e0" ]; }
nt_expect_true "the log says why (the service: bond home: ... weight ... the configuration of before stays)" nt_wait_for 10 said
grep 'wanbond.*bond home: .*weight' "$SYSLOG" | tail -n 1 | sed 's/^/      /'
nt_expect_true "same pid, no SIGHUP, dsl's weight still 5" test -n "$PID3" -a "$(daemon_pid) $(reloads)" = "$PID3 $n3" -a -n "$(weight_is 5 && echo y)"
nt_expect_true "the file of before stays" grep -qF '{ name = "dsl"; interface = "wan3"; weight = 5; }' /var/etc/wanbond/home.conf
# ifup with the broken value: the handler's wanbond_prepare gives 3 (a
# file of before): it says so and runs that file.
handler_err() { grep -c 'wanbond.*interface wb_home: bond home: .*weight.*(the configuration of before stays)' "$SYSLOG" || true; }
h0=$(handler_err)
nt_run router ifup wb_home >/dev/null 2>&1 || true
up_new() { local p; p=$(daemon_pid); [ -n "$p" ] && [ "$p" != "$PID3" ] && wb_up; }
nt_expect_true "ifup wb_home with it: up, a new daemon, on the file of before (the handler's rc 3)" nt_wait_for 20 up_new
PID4=$(daemon_pid)
nt_expect_true "  the log says so (interface wb_home: bond home: ... the configuration of before stays)" test "$(handler_err)" -gt "$h0"
nt_expect_true "  the new daemon ($PID4) has dsl's weight 5" nt_wait_for 10 weight_is 5
nt_expect_true "  no CHECK_FAILED in the status" jqt '([.errors[]?.code] | index("CHECK_FAILED")) == null' <<<"$(ifstatus_ wb_home)"
# No file of before (as after a reboot: /var is a tmpfs): ifup refuses.
nt_run router ifdown wb_home >/dev/null 2>&1 || true
nt_wait_for 10 gone "${PID4:-0}" || true
rm -f /var/etc/wanbond/home.conf
nt_run router ifup wb_home >/dev/null 2>&1 || true
check_failed() { ifstatus_ wb_home | jqt '.up == false and ([.errors[]?.code] | index("CHECK_FAILED") != null)'; }
nt_expect_true "no file of before: ifup wb_home refuses, CHECK_FAILED in its status's errors" nt_wait_for 15 check_failed
echo "      errors: $(ifstatus_ wb_home | jq -c '.errors')"
sleep 2
nt_expect_true "  no daemon, no file, still down (no retry)" test -z "$(daemon_pid)" -a ! -e /var/etc/wanbond/home.conf -a -n "$(check_failed && echo y)"
nt_expect_true "  the log has the check's FILE:LINE (interface wb_home: bond home: home.conf.next:N: ... weight)" \
	grep -qE 'wanbond.*interface wb_home: bond home: [^ ]*home\.conf\.next:[0-9]+: .*weight' "$SYSLOG"
uci_reload wanbond.dsl.weight=5
nt_expect_true "fixed, reload_config: the service brings wb_home up (a new daemon)" nt_wait_for 20 nonempty daemon_pid
nt_expect_true "  its status: up, no errors" nt_wait_for 20 wb_up
PID5=$(daemon_pid)
nt_expect_true "  the daemon ($PID5) reaches the server, dsl's weight 5" nt_wait_for 15 session_up
nt_expect_true "  (weight 5)" weight_is 5

# ---- g. ubus call wanbond, through rpcd ------------------------------------------------------
echo "g. ubus call wanbond status, check, uplink_set, through rpcd"
nt_wait_for 10 both_up || true
# Some traffic for the figures below: 20 pings through the tunnel.
nt_run router ping -q -c 20 -i 0.05 -W 1 10.255.0.1 >/dev/null 2>&1 && rc=0 || rc=$?
nt_expect_range "20 pings through the tunnel: exit status" "$rc" 0 0
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
nt_expect_true "ubus -v list wanbond: the methods status, check, public_key, uplink_set, stats_reset, restart, generate_key" \
	test "$(ubus_ -v list wanbond | sed -n 's/^[[:space:]]*"\([a-z_]*\)":.*/\1/p' | sort | tr '\n' ' ')" = "check generate_key public_key restart stats_reset status uplink_set "
SESSION=$(ubus_ call session login '{"username":"wbtest","password":"wanbond-test"}' | jq -r '.ubus_rpc_session // empty')
nt_expect_true "rpcd login of a user of the ACL group wanbond" test -n "$SESSION"
access() { ubus_ call session access "{\"ubus_rpc_session\":\"$SESSION\",\"scope\":\"ubus\",\"object\":\"$1\",\"function\":\"$2\"}" | jqt ".access == $3"; }
reads_granted() { access wanbond status true && access wanbond check true; }
writes_denied() { access wanbond uplink_set false && access wanbond restart false; }
nt_expect_true "the ACL's read grants it wanbond status and check" reads_granted
nt_expect_true "and none of the writes (uplink_set, restart)" writes_denied
# check: a broken value saved (uci commit, as LuCI's Save without Apply),
# not applied: the file it checks is the one the handler would write.
n4=$(reloads)
nt_run router uci set wanbond.dsl.weight=0
nt_run router uci commit wanbond
CK=$(ubus_ call wanbond check '{"bond":"home"}') && rc=0 || rc=$?
echo "      ubus call wanbond check (weight 0): $(jq -c . <<<"$CK" 2>/dev/null || echo "$CK")"
nt_expect_range "ubus call wanbond check: exit status" "$rc" 0 0
nt_expect_true "check: home ok:false, the error with the file's FILE:LINE and the weight" \
	jqt '.bonds.home | .ok == false and .waiting == false and (.error | test("home\\.conf\\.[a-z]+:[0-9]+: .*weight"))' <<<"$CK"
nt_expect_true "check: the daemon untouched (same pid, no SIGHUP), the file in use still weight 5" \
	test -n "$PID5" -a "$(daemon_pid) $(reloads) $(grep -c 'weight = 5;' /var/etc/wanbond/home.conf)" = "$PID5 $n4 1"
nt_run router uci set wanbond.dsl.weight=5
nt_run router uci commit wanbond
nt_expect_true "check once it is fixed: ok:true" jqt '.bonds.home | .ok == true and .error == ""' <<<"$(ubus_ call wanbond check)"
US=$(ubus_ call wanbond uplink_set '{"bond":"home","uplink":"dsl","enabled":false}') && rc=0 || rc=$?
nt_expect_true "uplink_set dsl off: {\"ok\":true}" jqt '.ok == true' <<<"$US"
dsl_off() { wb status home | jqt '.bonds.home.uplinks.dsl | .enabled == false and .state != "up" and (.reason | test("operator"))'; }
dsl_off_lte_up() { dsl_off && lte_up; }
nt_expect_true "  the daemon has dsl off (disabled by the operator), lte up" nt_wait_for 10 dsl_off_lte_up
wb status home | jq -c '.bonds.home.uplinks.dsl | {state, enabled, reason}' | sed 's/^/      /'
US=$(ubus_ call wanbond uplink_set '{"bond":"home","uplink":"dsl","enabled":true}') && rc=0 || rc=$?
nt_expect_true "uplink_set dsl on: {\"ok\":true}" jqt '.ok == true' <<<"$US"
dsl_on() { wb status home | jqt '.bonds.home.uplinks.dsl | .enabled == true and .state == "up"'; }
nt_expect_true "  dsl up again" nt_wait_for 10 dsl_on
PROM=$(wb stats --prometheus)
# A sample of it: the bond's gauges and the uplinks' state, RTT and bytes, the device's datagrams.
echo "      wanbond stats --prometheus ($(grep -vc '^#' <<<"$PROM") samples), some of them:"
grep -E '^wanbond_(bond_(info|session_up|tun_[rt]x_bytes_total|retransmits_total)|uplink_(info|state|rtt_seconds|loss_ratio|tx_bytes_total|reinjected_total|penalties_total)|device_(rx_datagrams|bad_mac1)_total)[{ ]' <<<"$PROM" |
	sed 's/^/        /'
nt_expect_true "wanbond stats --prometheus: wanbond_ metrics of home" grep -q '^wanbond_.*bond="home"' <<<"$PROM"

nt_run router ifdown wb_home >/dev/null 2>&1 || true
stopped() { gone "${PID5:-0}" && empty daemon_pid && wb_down; }
nt_expect_true "ifdown wb_home: its daemon ($PID5) is gone, the status says down" nt_wait_for 10 stopped
ST2=$(ubus_ call wanbond status) && rc=0 || rc=$?
echo "      daemon stopped: $ST2"
nt_expect_range "daemon stopped: the call still answers (exit status)" "$rc" 0 0
nt_expect_true "with an error object: wanbondd is not running, code 3" \
	jqt '.error == "wanbondd is not running" and .code == 3 and (.detail | type) == "string"' <<<"$ST2"

# netifd goes as procd ends it (its interfaces torn down), then procd.
ubus_ call service delete '{"name":"network"}' >/dev/null 2>&1 || true
nt_wait_for 10 gone "${NETIFD_PID:-0}" || true
nt_stop "$PROCD_PID"
if [ "$NT_FAILS" -gt 0 ]; then
	echo "      the end of the log (netifd and the daemon it runs, the scripts' logger):"
	tail -n 60 "$SYSLOG" | sed 's/^/        /'
fi
nt_finish
