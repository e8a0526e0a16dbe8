#!/usr/bin/env bash
# The OpenWrt package's shell scripts (openwrt/wanbond/files), outside
# OpenWrt, under busybox ash as OpenWrt runs them:
#   a. each parses (ash -n), the proto handler too; the ACL (read: status,
#      check, public_key; write: uplink_set, stats_reset, restart,
#      generate_key); the Makefile installs the proto handler as
#      /lib/netifd/proto/wanbond.sh and the keep.d file (/etc/wanbond/);
#      the capabilities file, installed where the proto handler looks
#   b. the UCI -> libconfig generator (wanbond-uci.sh) with
#      test doubles of OpenWrt's config_load/config_get/config_foreach and
#      network_get_device: the package's example, a client with an
#      interface down, a server with two peers; each checks with
#      wanbondd --check; the same UCI gives the same file, untouched; no
#      uplink up writes nothing; a broken UCI value fails the check, and
#      only a file that checks replaces the one in use; every file it
#      makes is 0600 from its creation (an inline key), its directory 0700;
#      a list item "*" stays "*" in a directory of files (no globbing), and
#      a newline in a down interface's name stays in its comment; the
#      traffic classes (classes_enabled, interactive_*): the group classes
#      with interactive inside it, only what is set, none when nothing is;
#      a hostile list item or value (quotes, brackets, a newline) a string
#      that wanbondd --check refuses, naming the setting; the init
#      script's start_service (the directory 0700, no daemon) and
#      service_triggers with test doubles of procd.sh; the uci-defaults
#      steps (key pair; interface proto wanbond and zone, only if absent; an
#      older package's proto none interface on the TUN moved to proto
#      wanbond; the operator's own left alone) with a test double of uci,
#      and TUN names that would inject uci commands or are no interface
#      name refused, said
#   c. against real daemons (a server, two client routers):
#      the proto handler (INCLUDE_ONLY, test doubles of netifd-proto.sh's
#      functions, the command it runs started in the router's namespace):
#      no option bond, an unknown bond, enabled 0, a broken UCI value, no
#      uplink up: each refused with its code, no retry, nothing run; setup
#      through a ujail stand-in (its arguments; the daemon with the
#      capabilities file's three alone, no_new_privs), the session
#      established, the update with the TUN device, its addresses and
#      routes; teardown ends the daemon; without ujail, the daemon run
#      directly; a server bond: the handler waits on its peer's socket and
#      gives netifd no device, the peer's own TUN device has its address;
#      the init script's start_service (its reload too) on that daemon: an
#      uplink's change gives a new file and a SIGHUP (the same daemon, the
#      change in wanbond -j show), no change no SIGHUP, a broken value
#      logged and the file kept, a timer's change a restart of the
#      interface (ubus down and up, no SIGHUP), enabled 0 a restart (its
#      setup refuses it); no daemon running: ubus brings up an interface
#      the handler refused, never one the operator took down;
#      the rpcd plugin, run as rpcd runs it: list; call status of a
#      client's bond, one uplink switched off, a server's two bonds, a bond
#      named in the arguments, a bad argument; uplink_set off and on, a bad
#      uplink name, enabled missing, an uplink the bond has not; 300
#      seeded random argument texts to five methods, each answered with a
#      JSON object and no uplink switched; stats_reset;
#      check of a good and a broken UCI; public_key; generate_key (a new
#      key, the old one kept; a key file outside the keys' directory
#      neither read nor replaced); restart (ubus down, then up; no
#      interface: an error); and with the daemons stopped
#   d. the hotplug script: an ifdown switches its uplink off and an ifup
#      back on; an uplink the operator switched off stays off through both
# WANBOND_OPENWRT_FILES names another directory of these scripts (the ones
# of an older commit, say, to see a check fail on them).
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

# Absolute: some steps run in a directory of their own.
FILES=$(cd "${WANBOND_OPENWRT_FILES:-openwrt/wanbond/files}" && pwd)
CLI=$NT_BUILD/bin/wanbond
ASH="busybox ash"

nt_init
command -v busybox >/dev/null || nt_die "missing busybox (run make deps)"
[ -x "$CLI" ] || nt_die "missing $CLI (run make)"

# ---- a. parsing ---------------------------------------------------------------------
echo "a. every script parses under busybox ash -n"
for f in "$FILES"/wanbond-uci.sh "$FILES"/wanbond.init "$FILES"/wanbond.hotplug "$FILES"/wanbond.defaults \
	"$FILES"/wanbond.rpcd "$FILES"/wanbond.proto; do
	nt_expect_true "ash -n $(basename "$f")" $ASH -n "$f"
done
nt_expect_true "the ACL is JSON: read status, check, public_key; write uplink_set, stats_reset, restart, generate_key" \
	jqt '.wanbond.read.ubus.wanbond == ["status", "check", "public_key"] and
		.wanbond.write.ubus.wanbond == ["uplink_set", "stats_reset", "restart", "generate_key"]' "$FILES/wanbond.acl.json"
MAKEFILE=$FILES/../Makefile
nt_expect_true "the package installs the proto handler as /lib/netifd/proto/wanbond.sh, executable" sh -c "
	grep -qx '[[:space:]]*\$(INSTALL_DIR) \$(1)/lib/netifd/proto' '$MAKEFILE' &&
	grep -qx '[[:space:]]*\$(INSTALL_BIN) ./files/wanbond.proto \$(1)/lib/netifd/proto/wanbond.sh' '$MAKEFILE'"
nt_expect_true "the package installs the keep.d file (/lib/upgrade/keep.d/wanbond), which keeps /etc/wanbond/" sh -c "
	grep -qx '[[:space:]]*\$(INSTALL_DIR) \$(1)/lib/upgrade/keep.d' '$MAKEFILE' &&
	grep -qx '[[:space:]]*\$(INSTALL_DATA) ./files/wanbond.keep \$(1)/lib/upgrade/keep.d/wanbond' '$MAKEFILE' &&
	grep -qx '/etc/wanbond/' '$FILES/wanbond.keep'"
# The capabilities procd's ujail gives the daemon (the proto handler's jail,
# below): the same three in each of the five sets ujail reads.
CAPS_JSON=$FILES/wanbond.capabilities.json
nt_expect_true "the capabilities file is JSON: CAP_CHOWN, CAP_NET_ADMIN, CAP_NET_RAW in each of its five sets" \
	jqt '(keys == ["ambient", "bounding", "effective", "inheritable", "permitted"]) and
		([.[]] | all(. == ["CAP_CHOWN", "CAP_NET_ADMIN", "CAP_NET_RAW"]))' "$CAPS_JSON"
# Where the proto handler looks for it when nothing overrides it (sourced
# with INCLUDE_ONLY, the way of netifd's handlers for tests), and where the
# package puts it.
caps_proto=$(env -u WANBOND_CAPABILITIES INCLUDE_ONLY=1 WANBOND_UCI_SH="$FILES/wanbond-uci.sh" \
	$ASH -c ". '$FILES/wanbond.proto' && printf '%s' \"\$WANBOND_CAPABILITIES\"" 2>/dev/null || true)
caps_installed=$(sed -n 's|^[[:space:]]*\$(INSTALL_DATA) ./files/wanbond.capabilities.json \$(1)\(/[^[:space:]]*\)$|\1|p' \
	"$MAKEFILE")
nt_expect_true "the package installs it where the proto handler looks (proto: '$caps_proto', Makefile: '$caps_installed')" \
	sh -c "[ -n '$caps_proto' ] && [ '$caps_proto' = '$caps_installed' ]"

# ---- test doubles of OpenWrt's shell functions ----------------------------------------
# TEST DOUBLES, not OpenWrt's code: /lib/functions.sh's config_load,
# config_get, config_get_bool and config_foreach, and network.sh's
# network_get_device, as small as the scripts need. A UCI file is shell
# ("config TYPE 'NAME'", "option KEY 'VALUE'", "list KEY 'VALUE'"), so
# config_load sources it with config/option/list defined: the fixtures are
# real UCI files. As OpenWrt's, a section's TYPE is an option of it, and
# config_get with two arguments (SECTION OPTION) prints the value. $UCI_DIR holds them; $WB_DEVICES maps interfaces to their
# devices ("wan=eth1 wwan=wwan0"): an interface not in it is down.
# With $WB_T_SPY_DIR set, each config_get first writes a line for each file
# of the generator's in that directory (its first line the generator's) to
# $WB_T_SPY_LOG, "UMASK MODE NAME": the generator calls config_get while its
# file is open, so the lines show the file as it is being written, not as
# it is left.
DOUBLES=$NT_TMP/openwrt-doubles.sh
cat >"$DOUBLES" <<'SH'
# TEST DOUBLES of OpenWrt's config_* and network_get_device (see the test).
WB_T_SECTIONS=""
config() {
	WB_T_SECTION=$2
	WB_T_SECTIONS="$WB_T_SECTIONS $1:$2"
	eval "WB_T_${2}__TYPE=\$1"
}
option() { eval "WB_T_${WB_T_SECTION}__$1=\$2"; }
list() { eval "WB_T_${WB_T_SECTION}__$1=\"\${WB_T_${WB_T_SECTION}__$1:+\$WB_T_${WB_T_SECTION}__$1 }\$2\""; }
config_load() { WB_T_SECTIONS=""; . "$UCI_DIR/$1"; }
wb_t_spy() {
	local f
	for f in $(find "$WB_T_SPY_DIR" -mindepth 1 -maxdepth 1 -type f 2>/dev/null); do
		head -n 1 "$f" | grep -q '^# Written from' || continue
		printf '%s %s %s\n' "$(umask)" "$(stat -c %a "$f")" "${f##*/}" >>"$WB_T_SPY_LOG"
	done
}
config_get() {
	[ -z "${WB_T_SPY_DIR-}" ] || wb_t_spy
	if [ $# -eq 2 ]; then
		eval "printf '%s\\n' \"\${WB_T_${1}__$2-}\""
		return 0
	fi
	eval "$1=\${WB_T_${2}__$3:-\$4}"
}
config_get_bool() {
	local v
	config_get v "$2" "$3" "$4"
	case "$v" in 1 | yes | on | true | enabled) v=1 ;; *) v=0 ;; esac
	eval "$1=\$v"
}
config_foreach() {
	local fn=$1 type=$2 s
	for s in $WB_T_SECTIONS; do
		[ "${s%%:*}" = "$type" ] && "$fn" "${s#*:}"
	done
	return 0
}
network_get_device() {
	local _wb_pair _wb_dev=""
	for _wb_pair in $WB_DEVICES; do
		[ "${_wb_pair%%=*}" = "$2" ] && _wb_dev=${_wb_pair#*=}
	done
	eval "$1=\$_wb_dev"
	[ -n "$_wb_dev" ]
}
SH

UCI_DIR=$NT_TMP/uci
mkdir -p "$UCI_DIR"
export UCI_DIR
# /etc/config/network is always there on OpenWrt: here, until c) writes the
# bond's interface, one with no interface of proto wanbond.
printf "config interface 'loopback'\n\toption device 'lo'\n\toption proto 'static'\n" >"$UCI_DIR/network"
for k in server home office; do nt_wb_keys "$k"; done

# gen BOND OUT [DEVICES]: the generator under ash; its exit code.
gen() {
	WB_DEVICES=${3-} WANBOND_CONTROL_DIR=$NT_TMP/ctl $ASH -c \
		". '$DOUBLES'; . '$FILES/wanbond-uci.sh'; config_load wanbond; wanbond_generate '$1' '$2'"
}
check() { "$NT_WANBONDD" --check -c "$1" >"$1.check" 2>&1; }

# The package's example, enabled, with this test's keys: its server key is
# the documentation's, which wanbondd refuses (daemon/example_keys.c).
example_uci() {
	sed -e "s|/etc/wanbond/wanbond.key|$NT_TMP/home.key|" -e "s|option enabled '0'|option enabled '1'|" \
		-e "s|option server_public_key '.*'|option server_public_key '$(cat "$NT_TMP/server.pub")'|" \
		"$FILES/wanbond.config"
}

# ---- b. the generator -------------------------------------------------------------------
echo "b. UCI to libconfig"
# The package's example, enabled and with this test's key.
example_uci >"$UCI_DIR/wanbond"
gen home "$NT_TMP/example.conf" "wan=eth1 wwan=wwan0 starlink=eth2" && rc=0 || rc=$?
nt_expect_range "the example: written" "$rc" 0 0
check "$NT_TMP/example.conf" && rc=0 || rc=$?
sed 's/^/      /' "$NT_TMP/example.conf"
nt_expect_range "the example: wanbondd --check passes" "$rc" 0 0
[ "$rc" = 0 ] || cat "$NT_TMP/example.conf.check"
nt_expect_true "the example: dsl on eth1 (netifd's device of wan), weight 2" \
	grep -qF '{ name = "dsl"; interface = "eth1"; weight = 2; }' "$NT_TMP/example.conf"
nt_expect_true "the example: sat marked, a backup, its table" \
	grep -qF '{ name = "sat"; interface = "eth2"; fwmark = 0x10000; table = 103; backup = true; }' "$NT_TMP/example.conf"

# A client with every kind of option, lte's interface down.
cat >"$UCI_DIR/wanbond" <<UCI
config bond 'home'
	option role 'client'
	option private_key_file '$NT_TMP/home.key'
	option cipher 'aes-256-gcm'
	option server_address '192.0.2.1'
	option server_public_key '$(cat "$NT_TMP/server.pub")'
	option tun_name 'wb-home'
	list tun_address '10.255.0.2/30'
	list tun_address 'fd00:255::2/64'
	option tun_mtu '1400'
	list route '10.2.0.0/24'
	list route '10.4.0.0/16'
	option policy 'redundant'
	option reinject '0'
	option probe_interval_ms '200'
	option rekey_after_messages '1000000000000'
	option send_buffer_kb '2048'
	option aqm 'no'

config uplink 'dsl'
	option bond 'home'
	option interface 'wan'
	option weight '3'

config uplink 'lte'
	option bond 'home'
	option interface 'wwan'

config uplink 'sat'
	option bond 'home'
	option interface 'starlink'
	option fwmark '0x20000'
	option table '104'
	option backup '1'

config uplink 'spare'
	option bond 'home'
	option interface 'wan6'
	option enabled '0'

config uplink 'other'
	option bond 'elsewhere'
	option interface 'wan'
UCI
CONF=$NT_TMP/home.conf
gen home "$CONF" "wan=eth1" && rc=0 || rc=$?
nt_expect_range "client, wwan and starlink down: written" "$rc" 0 0
sed 's/^/      /' "$CONF"
check "$CONF" && rc=0 || { rc=$?; cat "$CONF.check"; }
nt_expect_range "client: wanbondd --check passes" "$rc" 0 0
nt_expect_true "lte, its interface down: left out, said in a comment" \
	sh -c "! grep -q 'name = \"lte\"' '$CONF' && grep -q '^# uplink lte: interface wwan is down' '$CONF'"
nt_expect_true "sat, down but marked: written without an interface" \
	grep -qF '{ name = "sat"; fwmark = 0x20000; table = 104; backup = true; }' "$CONF"
nt_expect_true "spare (enabled 0) and another bond's uplink: not written" \
	sh -c "! grep -qE 'spare|other' '$CONF'"
nt_expect_true "a 64-bit number gets its L" grep -qF 'rekey_after_messages = 1000000000000L;' "$CONF"
nt_expect_true "lists: tun addresses and routes" sh -c "grep -qF 'address = [ \"10.255.0.2/30\", \"fd00:255::2/64\" ];' '$CONF' &&
	grep -qF 'routes = [ \"10.2.0.0/24\", \"10.4.0.0/16\" ];' '$CONF'"
nt_expect_true "booleans: UCI's 0 and no are false" sh -c "grep -qF 'reinject = false;' '$CONF' && grep -qF 'aqm = false;' '$CONF'"
nt_expect_true "no class option: no group classes (the daemon's defaults hold)" \
	sh -c "! grep -qE 'classes|interactive' '$CONF'"

# The same UCI and interfaces: the same bytes, and the file not replaced (procd's checksum, no HUP).
cp "$CONF" "$NT_TMP/home.before"
inode=$(stat -c %i "$CONF")
touch -d '2001-01-01' "$CONF"
gen home "$CONF" "wan=eth1"
nt_expect_true "generated again: the same bytes" cmp -s "$CONF" "$NT_TMP/home.before"
nt_expect_true "generated again: the file untouched (same inode, old mtime)" \
	sh -c "[ \"\$(stat -c %i '$CONF')\" = '$inode' ] && [ \"\$(stat -c %Y '$CONF')\" -lt 1000000000 ]"
gen home "$CONF" "wan=eth1 wwan=wwan0"
nt_expect_true "wwan up: lte in the file, on wwan0" grep -qF '{ name = "lte"; interface = "wwan0"; }' "$CONF"
check "$CONF" && rc=0 || rc=$?
nt_expect_range "wwan up: wanbondd --check passes" "$rc" 0 0

# No uplink up: nothing to start, the last file stays.
sed -i '/option fwmark/d' "$UCI_DIR/wanbond"
cp "$CONF" "$NT_TMP/home.before"
gen home "$CONF" "" && rc=0 || rc=$?
nt_expect_range "no interface up: exit 2 (nothing to start)" "$rc" 2 2
nt_expect_true "no interface up: the file as it was" cmp -s "$CONF" "$NT_TMP/home.before"

# A server with two peers.
cat >"$UCI_DIR/wanbond" <<UCI
config bond 'vps'
	option role 'server'
	option private_key_file '$NT_TMP/server.key'
	option listen_port '51821'
	option control_group 'nogroup'
	option control_admin_group 'staff'

config peer 'home'
	option bond 'vps'
	option public_key '$(cat "$NT_TMP/home.pub")'
	list tun_address '10.255.0.1/30'
	list route '10.1.0.0/24'

config peer 'office_2'
	option bond 'vps'
	option name 'office-2'
	option public_key '$(cat "$NT_TMP/office.pub")'
	list tun_address '10.255.0.5/30'
	option tun_mtu '1400'
	list route '10.3.0.0/24'
UCI
gen vps "$NT_TMP/vps.conf" && rc=0 || rc=$?
sed 's/^/      /' "$NT_TMP/vps.conf"
check "$NT_TMP/vps.conf" && rc=0 || { rc=$?; cat "$NT_TMP/vps.conf.check"; }
nt_expect_range "server with two peers: wanbondd --check passes" "$rc" 0 0
nt_expect_true "server: the peer's name option (office-2)" grep -qF 'name = "office-2";' "$NT_TMP/vps.conf"
nt_expect_true "server: control_group and control_admin_group" \
	grep -qF 'group = "nogroup"; admin_group = "staff"; };' "$NT_TMP/vps.conf"

# Broken UCI: a weight out of range, and a value that tries to end its string.
example_uci | sed -e "s|option weight '2'|option weight '0'|" >"$UCI_DIR/wanbond"
gen home "$NT_TMP/broken.conf" "wan=eth1 wwan=wwan0 starlink=eth2"
check "$NT_TMP/broken.conf" && rc=0 || rc=$?
nt_expect_range "weight 0: wanbondd --check fails" "$rc" 1 255
nt_expect_true "weight 0: the check names it ($(head -n 1 "$NT_TMP/broken.conf.check"))" grep -q "weight" "$NT_TMP/broken.conf.check"
sed -i -e "s|option weight '0'|option weight 'x; role = \"server\"'|" -e "s|option tun_name 'wb-home'|option tun_name 'wb\"; x = \"y'|" \
	"$UCI_DIR/wanbond"
gen home "$NT_TMP/broken.conf" "wan=eth1 wwan=wwan0 starlink=eth2"
check "$NT_TMP/broken.conf" && rc=0 || rc=$?
nt_expect_range "a value with quotes and ';': wanbondd --check fails" "$rc" 1 255
nt_expect_true "... as a wrong value, not as new settings ($(head -n 1 "$NT_TMP/broken.conf.check"))" \
	sh -c "grep -qF 'name = \"wb\\\"; x = \\\"y\";' '$NT_TMP/broken.conf' && ! grep -q '^role = \"server\"' '$NT_TMP/broken.conf'"

# UCI values are not patterns: a list item "*" (an address, a route) and a
# down interface named "*", generated in a directory of files, stay "*"; a
# newline in a down interface's name does not end its comment.
GLOB=$NT_TMP/glob
mkdir -p "$GLOB"
touch "$GLOB/glob-file-a" "$GLOB/lte:glob-file-b"
cat >"$UCI_DIR/wanbond" <<UCI
config bond 'home'
	option role 'client'
	option private_key_file '$NT_TMP/home.key'
	option server_address '192.0.2.1'
	option server_public_key '$(cat "$NT_TMP/server.pub")'
	list tun_address '*'
	list route '*'
	list route '10.9.0.0/24'

config uplink 'dsl'
	option bond 'home'
	option interface 'wan'

config uplink 'lte'
	option bond 'home'
	option interface '*'

config uplink 'lte2'
	option bond 'home'
	option interface "wwan
role = \"server\";"
UCI
(cd "$GLOB" && gen home "$GLOB/glob.conf" "wan=eth1") && rc=0 || rc=$?
sed 's/^/      /' "$GLOB/glob.conf"
nt_expect_range "a list item '*': written" "$rc" 0 0
nt_expect_true "a list item '*': the string \"*\", not the directory's files" sh -c "
	grep -qF 'address = [ \"*\" ];' '$GLOB/glob.conf' && grep -qF 'routes = [ \"*\", \"10.9.0.0/24\" ];' '$GLOB/glob.conf' &&
	! grep -q 'glob-file' '$GLOB/glob.conf'"
nt_expect_true "a down interface '*': named as '*' in its comment" \
	grep -qx '# uplink lte: interface \* is down (no device): left out until it comes up' "$GLOB/glob.conf"
nt_expect_true "a newline in a down interface's name: kept in its comment, no setting of its own" sh -c "
	grep -q '^# uplink lte2: interface wwanrole = \"server\"; is down' '$GLOB/glob.conf' &&
	! grep -q '^role = \"server\"' '$GLOB/glob.conf'"

# Traffic classes: classes_enabled and interactive_* are the group
# "classes" with "interactive" inside it, only what is set; the file checks.
# A hostile list item or value (quotes, brackets, a newline) stays a string
# of its setting, which wanbondd --check refuses, naming it.
# classes_uci: a client bond with the options on stdin, and an uplink.
classes_uci() {
	local options
	options=$(cat)
	cat <<UCI
config bond 'home'
	option role 'client'
	option private_key_file '$NT_TMP/home.key'
	option server_address '192.0.2.1'
	option server_public_key '$(cat "$NT_TMP/server.pub")'
	list tun_address '10.255.0.2/30'
$options

config uplink 'dsl'
	option bond 'home'
	option interface 'wan'
UCI
}
CLS=$NT_TMP/classes.conf
# classes_is WANT: the group "classes" of $CLS is the text of the file WANT.
classes_is() { sed -n '/^classes = {$/,/^};$/p' "$CLS" | cmp -s - "$1"; }
classes_uci >"$UCI_DIR/wanbond" <<'UCI'
	option outer_dscp '1'
	option classes_enabled '1'
	list interactive_dscp 'EF'
	list interactive_dscp '34'
	list interactive_dscp 'CS5'
	list interactive_ports 'udp:3478-3481'
	list interactive_ports 'tcp:27015'
	list interactive_ports '5060'
	option interactive_policy 'redundant'
	option interactive_ordered 'no'
	option interactive_fec 'off'
UCI
gen home "$CLS" "wan=eth1" && rc=0 || rc=$?
nt_expect_range "classes, every option: written" "$rc" 0 0
sed 's/^/      /' "$CLS"
check "$CLS" && rc=0 || { rc=$?; cat "$CLS.check"; }
nt_expect_range "classes, every option: wanbondd --check passes" "$rc" 0 0
cat >"$NT_TMP/classes.want" <<'CONF'
classes = {
  enabled = true;
  interactive = {
    dscp = [ "EF", "34", "CS5" ];
    ports = [ "udp:3478-3481", "tcp:27015", "5060" ];
    policy = "redundant";
    ordered = false;
    fec = "off";
  };
};
CONF
nt_expect_true "classes, every option: the group, interactive inside it, lists of strings" classes_is "$NT_TMP/classes.want"
nt_expect_true "outer_dscp: transport.outer_dscp" grep -qF 'outer_dscp = true;' "$CLS"
classes_uci >"$UCI_DIR/wanbond" <<'UCI'
	option classes_enabled 'off'
UCI
gen home "$CLS" "wan=eth1" && check "$CLS" && rc=0 || rc=$?
nt_expect_range "classes_enabled alone: written, wanbondd --check passes" "$rc" 0 0
printf 'classes = {\n  enabled = false;\n};\n' >"$NT_TMP/classes.want"
nt_expect_true "classes_enabled alone: classes = { enabled = false; }, no interactive group" classes_is "$NT_TMP/classes.want"
classes_uci >"$UCI_DIR/wanbond" <<'UCI'
	option interactive_fec 'auto'
UCI
gen home "$CLS" "wan=eth1" && check "$CLS" && rc=0 || rc=$?
nt_expect_range "interactive_fec alone: written, wanbondd --check passes" "$rc" 0 0
printf 'classes = {\n  interactive = {\n    fec = "auto";\n  };\n};\n' >"$NT_TMP/classes.want"
nt_expect_true "interactive_fec alone: classes = { interactive = { fec = \"auto\"; }; }" classes_is "$NT_TMP/classes.want"
# hostile LABEL SETTING: the UCI on stdin generated and checked: refused,
# naming SETTING, with nothing of the value's outside its string.
hostile() {
	local label=$1 setting=$2 rc
	classes_uci >"$UCI_DIR/wanbond"
	gen home "$CLS" "wan=eth1"
	sed 's/^/      /' "$CLS"
	check "$CLS" && rc=0 || rc=$?
	nt_expect_range "$label: wanbondd --check fails" "$rc" 1 255
	nt_expect_true "$label: ... naming $setting ($(head -n 1 "$CLS.check"))" grep -qF "$setting:" "$CLS.check"
	nt_expect_true "$label: ... no setting of its own in the file" \
		sh -c "[ \"\$(grep -c '^role = ' '$CLS')\" = 1 ] && ! grep -qE '^ *(x|evil) = ' '$CLS'"
}
hostile "a port item with quotes and brackets" classes.interactive.ports <<'UCI'
	list interactive_ports '5060'
	list interactive_ports 'udp:1" ]; role = "server"; x = [ "'
UCI
nt_expect_true "... each word of it a quoted string" \
	grep -qF 'ports = [ "5060", "udp:1\"", "];", "role", "=", "\"server\";", "x", "=", "[", "\"" ];' "$CLS"
hostile "a port item with a newline" classes.interactive.ports <<'UCI'
	list interactive_ports "udp:5060
role = \"server\";"
UCI
hostile "a DSCP item with quotes and a newline" classes.interactive.dscp <<'UCI'
	list interactive_dscp 'EF'
	list interactive_dscp "EF\" ];
evil = [ \"x"
UCI
hostile "a policy with a quote and a newline" classes.interactive.policy <<'UCI'
	option interactive_policy "bonded\";
role = \"server"
UCI
nt_expect_true "... its newline dropped, the whole value one string" \
	grep -qF 'policy = "bonded\";role = \"server";' "$CLS"
hostile "interactive_ordered not a boolean" classes.interactive.ordered <<'UCI'
	option interactive_ordered 'maybe"; x = 1; y = "'
UCI

# The init script's step: generated, checked, and only a file that checks replaces the one of before.
prepare() {
	WB_DEVICES=${3-} WANBOND_CONTROL_DIR=$NT_TMP/ctl WANBONDD=$NT_WANBONDD $ASH -c \
		". '$DOUBLES'; . '$FILES/wanbond-uci.sh'; config_load wanbond; wanbond_prepare '$1' '$2'; rc=\$?;
		printf '%s' \"\$WANBOND_ERROR\" >'$2.error'; exit \$rc"
}
example_uci >"$UCI_DIR/wanbond"
RUN=$NT_TMP/run.conf
prepare home "$RUN" "wan=eth1 wwan=wwan0" && rc=0 || rc=$?
nt_expect_range "prepare: a file that checks: ready (0)" "$rc" 0 0
nt_expect_true "prepare: in place, nothing left beside it" sh -c "[ -s '$RUN' ] && [ ! -e '$RUN.next' ]"
cp "$RUN" "$NT_TMP/run.before"
sed -i "s|option weight '2'|option weight '0'|" "$UCI_DIR/wanbond"
prepare home "$RUN" "wan=eth1 wwan=wwan0" && rc=0 || rc=$?
nt_expect_range "prepare: broken, a file of before: kept (3)" "$rc" 3 3
nt_expect_true "prepare: the file of before unchanged" cmp -s "$RUN" "$NT_TMP/run.before"
nt_expect_true "prepare: the check's line said ($(cat "$RUN.error"))" grep -q "weight: 0 is out of range" "$RUN.error"
prepare home "$NT_TMP/fresh.conf" "wan=eth1 wwan=wwan0" && rc=0 || rc=$?
nt_expect_range "prepare: broken, no file of before: an error (1)" "$rc" 1 1
nt_expect_true "prepare: no file given to the daemon" test ! -e "$NT_TMP/fresh.conf"

# An inline private key: every file the generator makes, the temporary ones
# too, is 0600 from its creation, under the init script's umask (022), and
# a directory it makes is 0700. A stale FILE.new (a crash, 0644) is not
# reused with its mode. The config_get double's spy ($WB_T_SPY_DIR) sees
# the files while they are written.
SECRET=$NT_TMP/secret
cat >"$UCI_DIR/wanbond" <<UCI
config bond 'home'
	option role 'client'
	option private_key '$(cat "$NT_TMP/home.key")'
	option server_address '192.0.2.1'
	option server_public_key '$(cat "$NT_TMP/server.pub")'
	list tun_address '10.255.0.2/30'

config uplink 'dsl'
	option bond 'home'
	option interface 'wan'
UCI
export WB_T_SPY_DIR=$SECRET WB_T_SPY_LOG=$NT_TMP/spy.log
: >"$WB_T_SPY_LOG"
(umask 022 && prepare home "$SECRET/home.conf" "wan=eth1") && rc=0 || rc=$?
nt_expect_range "an inline key: written (0)" "$rc" 0 0
sed -i "s|^\toption server_address .*|&\n\toption probe_interval_ms '300'|" "$UCI_DIR/wanbond"
(umask 022 && : >"$SECRET/home.conf.next.new" && chmod 0644 "$SECRET/home.conf.next.new")
(umask 022 && prepare home "$SECRET/home.conf" "wan=eth1") && rc=0 || rc=$?
unset WB_T_SPY_DIR WB_T_SPY_LOG
sort -u "$NT_TMP/spy.log" | sed 's/^/      seen while written (umask mode file): /'
nt_expect_range "an inline key, changed, a stale .new there: written (0)" "$rc" 0 0
nt_expect_true "an inline key: the temporary file seen while it is written" grep -q ' home\.conf\.next\.new$' "$NT_TMP/spy.log"
nt_expect_true "an inline key: every file 0600 while it is written" sh -c "! grep -v '^[0-7]* 600 ' '$NT_TMP/spy.log'"
nt_expect_true "an inline key: written under umask 077" sh -c "! grep ' [^ ]*\.new\$' '$NT_TMP/spy.log' | grep -v '^0077 '"
nt_expect_true "an inline key: the directory made 0700, the file 0600, nothing beside it" sh -c "
	[ \"\$(stat -c %a '$SECRET')\" = 700 ] && [ \"\$(stat -c %a '$SECRET/home.conf')\" = 600 ] &&
	[ \"\$(ls '$SECRET' | grep -v '\.error\$')\" = home.conf ] && grep -q probe_interval_ms '$SECRET/home.conf'"

# The init script itself: start_service and service_triggers here (its
# reload_service, which needs a running daemon, in c), with test doubles of
# procd.sh's functions and logger, which write what they are given to
# $PROCD_LOG. $IPKG_INSTROOT gives the script its two includes.
ROOT=$NT_TMP/root
mkdir -p "$ROOT/lib/functions" "$ROOT/usr/share/wanbond"
cp "$DOUBLES" "$ROOT/lib/functions/network.sh"
cp "$FILES/wanbond-uci.sh" "$ROOT/usr/share/wanbond/uci.sh"
PROCD_DOUBLES=$NT_TMP/procd-doubles.sh
cat >"$PROCD_DOUBLES" <<'SH'
# TEST DOUBLES of procd.sh's functions and of logger: each call a line in $PROCD_LOG.
procd_open_instance() { echo "open $*" >>"$PROCD_LOG"; }
procd_set_param() { echo "param $*" >>"$PROCD_LOG"; }
procd_close_instance() { echo "close" >>"$PROCD_LOG"; }
procd_add_jail() { echo "jail $*" >>"$PROCD_LOG"; }
procd_add_reload_trigger() { echo "reload-trigger $*" >>"$PROCD_LOG"; }
procd_add_interface_trigger() { echo "interface-trigger $*" >>"$PROCD_LOG"; }
logger() { echo "logger $*" >>"$PROCD_LOG"; }
SH
# A TEST DOUBLE of ubus: each call a line in $UBUS_LOG, answered 0.
UBUS_LOG=$NT_TMP/ubus.log
UBUS_DOUBLE=$NT_TMP/ubus
# "call network.interface.IFACE status" answers $UBUS_LOG.status, if there.
cat >"$UBUS_DOUBLE" <<SH
#!/bin/sh
# TEST DOUBLE of ubus: its arguments a line in $UBUS_LOG.
printf '%s\\n' "\$*" >>"$UBUS_LOG"
case "\$*" in
"call network.interface."*" status") cat "$UBUS_LOG.status" 2>/dev/null ;;
esac
exit 0
SH
chmod 0755 "$UBUS_DOUBLE"
# The daemon as the package installs it, at an absolute path: the init
# script finds a bond's daemon by its command line, "$WANBONDD -c FILE".
WBD=$(realpath "$NT_WANBONDD")
# The bonds' files, as /var/etc/wanbond is (the proto handler's and the init script's).
WB_CONF=$NT_TMP/var-etc
# init FUNCTION DEVICES: the init script's function run under ash; its procd
# and logger calls in $PROCD_LOG, its ubus calls in $UBUS_LOG.
init() {
	: >"$PROCD_LOG"
	# In the router's namespace once it is there, where the daemons run (the
	# script finds a daemon in its own network namespace only).
	local in_router=()
	ip netns pids "$(nt_ns router)" >/dev/null 2>&1 && in_router=(ip netns exec "$(nt_ns router)")
	"${in_router[@]}" env WB_DEVICES="$2" IPKG_INSTROOT="$ROOT" WANBOND_CONTROL_DIR="$NT_TMP/ctl-client" $ASH -c \
		". '$PROCD_DOUBLES'; . '$FILES/wanbond.init'; CONF_DIR='$WB_CONF'; WANBONDD='$WBD'; UBUS='$UBUS_DOUBLE'; $1" 2>/dev/null
}
export PROCD_LOG=$NT_TMP/procd.log
example_uci >"$UCI_DIR/wanbond"
# The directory as an older package left it: 0755.
mkdir -m 0755 "$WB_CONF"
init start_service "wan=eth1 wwan=wwan0"
sed 's/^/      /' "$PROCD_LOG"
nt_expect_true "init: start_service makes the files' directory 0700 (it was 0755)" \
	test "$(stat -c %a "$WB_CONF")" = 700
nt_expect_true "init: start_service starts no daemon (no procd instance, no file written: netifd runs the bonds)" sh -c "
	! grep -qE '^(open|param|jail)' '$PROCD_LOG' && [ -z \"\$(ls -A '$WB_CONF')\" ]"
init service_triggers ""
sed 's/^/      /' "$PROCD_LOG"
nt_expect_true "init: triggers: the config, and each uplink's interface once" sh -c "
	grep -qx 'reload-trigger wanbond' '$PROCD_LOG' &&
	grep -qx 'interface-trigger interface.\* wan /etc/init.d/wanbond reload' '$PROCD_LOG' &&
	grep -qx 'interface-trigger interface.\* wwan /etc/init.d/wanbond reload' '$PROCD_LOG' &&
	grep -qx 'interface-trigger interface.\* starlink /etc/init.d/wanbond reload' '$PROCD_LOG' &&
	[ \$(grep -c interface-trigger '$PROCD_LOG') -eq 3 ]"

# The uci-defaults script's two steps (in the library it sources): the key
# pair, and a network interface and firewall zone per bond, with a test
# double of uci whose state is a file of "uci show" lines.
UCI_DOUBLE=$NT_TMP/uci-double.sh
cat >"$UCI_DOUBLE" <<'SH'
# TEST DOUBLE of OpenWrt's uci: get, show, set, add, add_list, delete, batch,
# commit on $UCI_STATE, a file of "uci show" lines (config.section.option='value');
# each command it gets (a batch's too) a line in $UCI_STATE.cmds. And of
# logger: its lines in $UCI_STATE.log.
logger() { echo "logger $*" >>"$UCI_STATE.log"; }
_wb_uci_unquote() { printf '%s' "$1" | sed -e "s/^'//" -e "s/'\$//" -e "s/' '/ /g"; }
_wb_uci_line() { grep -F "$1=" "$UCI_STATE" | while IFS= read -r l; do [ "${l%%=*}" = "$1" ] && printf '%s' "${l#*=}"; done; }
_wb_uci_resolve() {
	# config.@type[-1].option: the last section of that type.
	case "$1" in
	*.@*\[-1\]*)
		local conf=${1%%.*} rest=${1#*.@} type sec
		type=${rest%%\[*}
		sec=$(grep "^$conf\.[^.=]*=$type\$" "$UCI_STATE" | tail -n 1 | sed 's/=.*//')
		printf '%s%s' "$sec" "${rest#*\]}"
		;;
	*) printf '%s' "$1" ;;
	esac
}
_wb_uci_put() { grep -v -F "$1=" "$UCI_STATE" >"$UCI_STATE.tmp"; grep -F "$1=" "$UCI_STATE" | grep -v "^$1=" >>"$UCI_STATE.tmp"
	printf '%s=%s\n' "$1" "$2" >>"$UCI_STATE.tmp"; mv "$UCI_STATE.tmp" "$UCI_STATE"; }
uci() {
	local cmd arg key val n line
	[ "$1" = -q ] && shift
	printf '%s\n' "$*" >>"$UCI_STATE.cmds"
	cmd=$1
	shift
	arg=$*
	case "$cmd" in
	get)
		val=$(_wb_uci_line "$(_wb_uci_resolve "$arg")")
		[ -n "$val" ] || return 1
		_wb_uci_unquote "$val"
		echo
		;;
	show) grep "^$arg\." "$UCI_STATE" || true ;;
	set)
		key=$(_wb_uci_resolve "${arg%%=*}")
		val=${arg#*=}
		case "$key" in
		*.*.*) _wb_uci_put "$key" "'$(_wb_uci_unquote "$val")'" ;;
		*) _wb_uci_put "$key" "$val" ;;
		esac
		;;
	add)
		n=$(wc -l <"$UCI_STATE")
		printf '%s.cfg%02x=%s\n' "${arg%% *}" "$((n + 1))" "${arg#* }" >>"$UCI_STATE"
		printf 'cfg%02x\n' "$((n + 1))"
		;;
	delete)
		grep -v "^$arg[.=]" "$UCI_STATE" >"$UCI_STATE.tmp" || true
		mv "$UCI_STATE.tmp" "$UCI_STATE"
		;;
	add_list)
		key=$(_wb_uci_resolve "${arg%%=*}")
		val=$(_wb_uci_line "$key")
		_wb_uci_put "$key" "${val:+$val }'${arg#*=}'"
		;;
	batch)
		while IFS= read -r line; do
			line=$(printf '%s' "$line" | sed 's/^[[:space:]]*//')
			[ -n "$line" ] && uci "${line%% *}" "${line#* }"
		done
		;;
	commit) echo "commit $arg" >>"$UCI_STATE.commits" ;;
	esac
}
SH
export UCI_STATE=$NT_TMP/uci-state
cat >"$UCI_STATE" <<'STATE'
network.lan=interface
network.lan.proto='static'
firewall.cfg01=zone
firewall.cfg01.name='lan'
firewall.cfg01.network='lan'
network.wb_old=interface
network.wb_old.proto='none'
network.wb_old.device='wb-old'
STATE
# wb_old: the interface an older package made for bond old (proto none on
# its TUN device, wb-old by default).
sed -e "s|option enabled '0'|option enabled '1'|" "$FILES/wanbond.config" >"$UCI_DIR/wanbond"
printf "\nconfig bond 'office'\n\toption role 'client'\n\nconfig bond 'old'\n\toption role 'client'\n" >>"$UCI_DIR/wanbond"
defaults() {
	WANBONDD=$NT_WANBONDD $ASH -c ". '$DOUBLES'; . '$UCI_DOUBLE'; . '$FILES/wanbond-uci.sh';
		wanbond_keypair '$NT_TMP/etc-wanbond' && config_load wanbond && config_foreach wanbond_tunnel_network bond"
}
defaults && rc=0 || rc=$?
sed 's/^/      /' "$UCI_STATE"
nt_expect_range "defaults: exit code" "$rc" 0 0
nt_expect_true "defaults: the key 0600, the public key its own" sh -c "
	[ \"\$(stat -c %a '$NT_TMP/etc-wanbond/wanbond.key')\" = 600 ] &&
	[ \"\$('$NT_WANBONDD' --pubkey <'$NT_TMP/etc-wanbond/wanbond.key')\" = \"\$(cat '$NT_TMP/etc-wanbond/wanbond.pub')\" ]"
nt_expect_true "defaults: network wb_home, proto wanbond, bond home (no device); wb_office, bond office" sh -c "
	grep -qx \"network.wb_home=interface\" '$UCI_STATE' &&
	grep -qx \"network.wb_home.proto='wanbond'\" '$UCI_STATE' && grep -qx \"network.wb_home.bond='home'\" '$UCI_STATE' &&
	grep -qx \"network.wb_office.proto='wanbond'\" '$UCI_STATE' && grep -qx \"network.wb_office.bond='office'\" '$UCI_STATE' &&
	! grep -qE '^network\.wb_(home|office)\.device=' '$UCI_STATE'"
nt_expect_true "defaults: an older package's wb_old (proto none on wb-old) moved to proto wanbond, bond old, its device gone" sh -c "
	grep -qx \"network.wb_old=interface\" '$UCI_STATE' &&
	grep -qx \"network.wb_old.proto='wanbond'\" '$UCI_STATE' && grep -qx \"network.wb_old.bond='old'\" '$UCI_STATE' &&
	! grep -q '^network\.wb_old\.device=' '$UCI_STATE'"
nt_expect_true "defaults: a zone wanbond with the three, rejecting input and forward" sh -c "
	zone=\$(sed -n \"s/^firewall\\.\\([^.]*\\)\\.name='wanbond'\$/\\1/p\" '$UCI_STATE') && [ -n \"\$zone\" ] &&
	grep -qx \"firewall.\$zone.network='wb_home' 'wb_office' 'wb_old'\" '$UCI_STATE' &&
	grep -qx \"firewall.\$zone.input='REJECT'\" '$UCI_STATE' && grep -qx \"firewall.\$zone.forward='REJECT'\" '$UCI_STATE'"
nt_expect_true "defaults: the lan zone as it was" grep -qx "firewall.cfg01.network='lan'" "$UCI_STATE"
cp "$UCI_STATE" "$NT_TMP/uci-state.before"
cp "$NT_TMP/etc-wanbond/wanbond.key" "$NT_TMP/key.before"
defaults
nt_expect_true "defaults again: nothing changes (UCI, key)" sh -c "cmp -s '$UCI_STATE' '$NT_TMP/uci-state.before' &&
	cmp -s '$NT_TMP/etc-wanbond/wanbond.key' '$NT_TMP/key.before'"
# The operator's own: wb_office proto none on another device, wb_home
# static on the bond's TUN device.
sed -i -e "s|^network.wb_office.proto=.*|network.wb_office.proto='none'|" -e '/^network\.wb_office\.bond=/d' \
	-e "s|^network.wb_home.proto=.*|network.wb_home.proto='static'|" "$UCI_STATE"
printf "network.wb_office.device='mine'\nnetwork.wb_home.device='wb-home'\n" >>"$UCI_STATE"
cp "$UCI_STATE" "$NT_TMP/uci-state.mine"
defaults
nt_expect_true "defaults: interfaces of the operator's (proto none on another device, static on the TUN) left alone" \
	cmp -s "$UCI_STATE" "$NT_TMP/uci-state.mine"

# TUN names from UCI that are no interface name: one with a quote and
# newlines that, in a "uci batch" text, would be commands of their own
# (delete dhcp.lan, set network.lan.proto), a "/", white space, "..", 16
# characters. Each bond refused, named in the log; a good name still made.
export UCI_STATE=$NT_TMP/uci-state-evil
cat >"$UCI_STATE" <<'STATE'
network.lan=interface
network.lan.proto='static'
dhcp.lan=dhcp
dhcp.lan.interface='lan'
STATE
cat >"$UCI_DIR/wanbond" <<'UCI'
config bond 'evil'
	option role 'client'
	option tun_name "wb-x'
delete dhcp.lan
set network.lan.proto='none"

config bond 'slash'
	option tun_name 'wb/x'

config bond 'blank'
	option tun_name 'wb x'

config bond 'dots'
	option tun_name '..'

config bond 'long'
	option tun_name 'wb-0123456789abc'

config bond 'good'
	option tun_name 'wb.good-1_x'
UCI
defaults 2>"$NT_TMP/evil.err" && rc=0 || rc=$?
sed 's/^/      state: /' "$UCI_STATE"
sed 's/^/      uci got: /' "$UCI_STATE.cmds"
sed 's/^/      /' "$NT_TMP/evil.err"
nt_expect_range "defaults, bad TUN names: exit code" "$rc" 0 0
nt_expect_true "a TUN name with a quote and newlines: no delete, no set of another's, dhcp.lan and lan as they were" sh -c "
	! grep -q '^delete' '$UCI_STATE.cmds' && ! grep -q 'network\.lan\.' '$UCI_STATE.cmds' &&
	grep -qx \"dhcp.lan.interface='lan'\" '$UCI_STATE' && grep -qx \"network.lan.proto='static'\" '$UCI_STATE'"
nt_expect_true "bad TUN names: no interface for those bonds, the good one made (proto wanbond, bond good)" sh -c "
	! grep -qE '^network\.wb_(evil|slash|blank|dots|long)' '$UCI_STATE' &&
	grep -qx \"network.wb_good.proto='wanbond'\" '$UCI_STATE' && grep -qx \"network.wb_good.bond='good'\" '$UCI_STATE'"
nt_expect_true "bad TUN names: each bond named, in the log and on stderr" sh -c "
	for b in evil slash blank dots long; do
		grep -q \"^logger .*bond \$b: TUN name\" '$UCI_STATE.log' && grep -q \"bond \$b: TUN name\" '$NT_TMP/evil.err' || exit 1
	done
	! grep -q 'bond good' '$UCI_STATE.log'"

# ---- c. against real daemons: the proto handler, the init script's reload, the rpcd plugin ----
echo "c. the proto handler, the init script's reload, the rpcd plugin"
nt_build_base
nt_add_uplink 1
nt_add_uplink 2
nt_add_router router2 lan2 10.3.0
nt_add_uplink 3 router2
for n in 1 2 3; do nt_uplink_start "$n" rate 20mbit delay 10ms limit 40ms seed "$n"; done
SCONF=$NT_TMP/vps-run.conf
OCONF=$NT_TMP/office-run.conf
nt_wb_server_conf "$SCONF" home:10.255.0.1/30:10.1.0.0/24 office:10.255.0.5/30:10.3.0.0/24
nt_wb_client_conf "$OCONF" office 10.255.0.6/30 10.2.0.0/24 sat:wan3
# Each client its own control directory (they share no machine on a real network).
sed -i "s|ctl-client|ctl-office|" "$OCONF"
CDIR=$NT_TMP/ctl-client
SDIR=$NT_TMP/ctl-server
# ujail_start NS CONF: wanbondd -c CONF as procd's ujail starts it with the
# package's capabilities file and no namespaces: root with the file's
# bounding, inheritable and ambient sets (so the exec gives it those alone),
# the securebits ujail locks, no_new_privs. Sets NT_LAST_PID. Without the
# file, a plain start.
ujail_caps() { jq -r --arg s "$1" '[.[$s][] | ascii_downcase | sub("^cap_"; "+")] | join(",")' "$CAPS_JSON"; }
ujail_start() {
	[ -f "$CAPS_JSON" ] || { nt_wb_start "$1" "$2"; return; }
	nt_bg "$1" "$2.log" setpriv --bounding-set "-all,$(ujail_caps bounding)" --inh-caps "-all,$(ujail_caps inheritable)" \
		--ambient-caps "-all,$(ujail_caps ambient)" --securebits +keep_caps_locked,+no_setuid_fixup_locked,+noroot_locked \
		--nnp "$NT_WANBONDD" -c "$2"
}
ujail_start vps "$SCONF"
SPID=$NT_LAST_PID
ujail_start router2 "$OCONF"
OPID=$NT_LAST_PID

# The proto handler (/lib/netifd/proto/wanbond.sh) sourced as netifd's
# handlers allow it (INCLUDE_ONLY: OpenWrt's files not read), under ash,
# with TEST DOUBLES of netifd-proto.sh's functions: json_get_vars gives the
# interface's option bond ($WB_T_JSON_bond); proto_run_command starts its
# command in the background in the router's namespace (its output in
# $WB_T_RUN_LOG, its pid in $WB_T_PID) and proto_kill_command ends that
# pid; the others, and logger, each call a line in $WB_T_PROTO_LOG.
NETIFD_DOUBLES=$NT_TMP/netifd-doubles.sh
cat >"$NETIFD_DOUBLES" <<'SH'
# TEST DOUBLES of netifd-proto.sh's functions and of logger (see the test).
wb_t_log() { printf '%s\n' "$*" >>"$WB_T_PROTO_LOG"; }
json_get_vars() {
	local v
	for v; do eval "$v=\${WB_T_JSON_$v-}"; done
}
proto_init_update() { wb_t_log init_update "$@"; }
proto_add_ipv4_address() { wb_t_log add_ipv4_address "$@"; }
proto_add_ipv6_address() { wb_t_log add_ipv6_address "$@"; }
proto_add_ipv4_route() { wb_t_log add_ipv4_route "$@"; }
proto_add_ipv6_route() { wb_t_log add_ipv6_route "$@"; }
proto_send_update() { wb_t_log send_update "$@"; }
proto_notify_error() { wb_t_log notify_error "$@"; }
proto_block_restart() { wb_t_log block_restart "$@"; }
proto_run_command() {
	local config=$1
	shift
	wb_t_log run_command "$config" "$@"
	ip netns exec "$WB_T_NETNS" "$@" >>"$WB_T_RUN_LOG" 2>&1 &
	echo "$!" >"$WB_T_PID"
}
proto_kill_command() {
	wb_t_log kill_command "$@"
	kill -TERM "$(cat "$WB_T_PID")"
}
logger() { wb_t_log logger "$@"; }
SH
# A TEST STAND-IN for procd's ujail: its arguments a line in ujail.args;
# the command after "--" run as ujail would run it, through setpriv: the
# capabilities of -C FILE alone, no_new_privs for -c (as ujail_start).
UJAIL=$NT_TMP/ujail
cat >"$UJAIL" <<'SH'
#!/bin/sh
# TEST STAND-IN for procd's ujail (see the test).
printf '%s\n' "$*" >>"$0.args"
caps="" nnp=""
while [ $# -gt 0 ]; do
	case "$1" in
	-C) caps=$2; shift 2 ;;
	-c) nnp=--nnp; shift ;;
	--) shift; break ;;
	*) shift ;;
	esac
done
[ -f "$caps" ] || { echo "ujail stand-in: no -C file" >&2; exit 1; }
set_of() { jq -r --arg s "$1" '[.[$s][] | ascii_downcase | sub("^cap_"; "+")] | join(",")' "$caps"; }
exec setpriv --bounding-set "-all,$(set_of bounding)" --inh-caps "-all,$(set_of inheritable)" \
	--ambient-caps "-all,$(set_of ambient)" --securebits +keep_caps_locked,+no_setuid_fixup_locked,+noroot_locked \
	$nnp "$@"
SH
chmod 0755 "$UJAIL"
PROTO_LOG=$NT_TMP/proto.log
PROTO_RUN_LOG=$NT_TMP/proto-run.log
PROTO_PID=$NT_TMP/proto.pid
PROTO_DEVICES="wan=wan1 wwan=wan2"
PROTO_UJAIL=$UJAIL
# proto FUNCTION CONFIG BOND: the handler's function for interface CONFIG,
# its option bond BOND; its calls in $PROTO_LOG, its status in
# $PROTO_LOG.rc. The shell then waits for the command it started, as
# netifd, its parent, does: the command ended, it is reaped.
proto() {
	: >"$PROTO_LOG"
	rm -f "$PROTO_LOG.rc"
	INCLUDE_ONLY=1 WB_T_JSON_bond=$3 WB_T_PROTO_LOG=$PROTO_LOG WB_T_RUN_LOG=$PROTO_RUN_LOG WB_T_PID=$PROTO_PID \
		WB_T_NETNS=$(nt_ns router) WB_DEVICES=$PROTO_DEVICES WANBOND_CONTROL_DIR=$CDIR WANBOND_CONF_DIR=$WB_CONF \
		WANBOND_CLI=$CLI WANBOND_UJAIL=$PROTO_UJAIL WANBOND_CAPABILITIES=$CAPS_JSON WANBOND_START_WAIT=10 \
		WANBOND_UCI_SH=$FILES/wanbond-uci.sh WANBONDD=$WBD $ASH -c \
		". '$DOUBLES'; . '$NETIFD_DOUBLES'; . '$FILES/wanbond.proto'; $1 '$2' ''; echo \$? >'$PROTO_LOG.rc'; wait"
}
# proto_up CONFIG BOND: setup in the background, as netifd keeps it; sets
# HPID (the daemon's pid, empty if none) and PROTO_SHELL. The status of
# the call before goes first, here: the background shell's own rm may come
# after the wait below has already found it.
proto_up() {
	rm -f "$PROTO_PID" "$PROTO_LOG.rc"
	proto proto_wanbond_setup "$1" "$2" &
	PROTO_SHELL=$!
	nt_wait_for 30 test -s "$PROTO_LOG.rc" || true
	HPID=$(cat "$PROTO_PID" 2>/dev/null || true)
	# The daemon first: its end lets the shell end.
	[ -z "$HPID" ] || NT_PIDS+=("$HPID")
	NT_PIDS+=("$PROTO_SHELL")
	sed 's/^/      proto: /' "$PROTO_LOG"
}
# proto_down CONFIG: teardown; once the daemon has ended (within 5 s), the
# setup's shell reaped.
proto_down() {
	proto proto_wanbond_teardown "$1" ""
	if nt_wait_for 5 sh -c "! kill -0 '$HPID' 2>/dev/null"; then
		wait "$PROTO_SHELL" 2>/dev/null || true
	fi
}
# refused CODE: setup said CODE and no retry, and ran nothing.
refused() {
	grep -qx "notify_error wb_home $1" "$PROTO_LOG" && grep -qx 'block_restart wb_home' "$PROTO_LOG" &&
		! grep -q '^run_command' "$PROTO_LOG" && [ "$(cat "$PROTO_LOG.rc")" != 0 ]
}
# The bond home for the router: dsl on wan (wan1), lte on wwan (wan2).
home_uci() {
	cat <<UCI
config bond 'home'
	option role 'client'
	option enabled '1'
	option private_key_file '$NT_TMP/home.key'
	option server_address '$NT_SERVER_ADDR'
	option server_port '51820'
	option server_public_key '$(cat "$NT_TMP/server.pub")'
	list tun_address '10.255.0.2/30'
	list tun_address 'fd00:255::2/64'
	list route '10.2.0.0/24'
	list route 'fd00:2::/64'

config uplink 'dsl'
	option bond 'home'
	option interface 'wan'
	option weight '1'

config uplink 'lte'
	option bond 'home'
	option interface 'wwan'
UCI
}
cat >"$UCI_DIR/network" <<'UCI'
config interface 'lan'
	option proto 'static'

config interface 'wb_home'
	option proto 'wanbond'
	option bond 'home'
UCI
rm -rf "$WB_CONF"

# Refused: each said (notify_error CODE), not retried (block_restart), no daemon.
home_uci >"$UCI_DIR/wanbond"
proto proto_wanbond_setup wb_home ""
nt_expect_true "proto: no option bond: NO_BOND, block_restart, nothing run" refused NO_BOND
proto proto_wanbond_setup wb_home nosuch
nt_expect_true "proto: a bond UCI does not have: NO_SUCH_BOND, block_restart, nothing run" refused NO_SUCH_BOND
home_uci | sed "s|option enabled '1'|option enabled '0'|" >"$UCI_DIR/wanbond"
proto proto_wanbond_setup wb_home home
nt_expect_true "proto: enabled 0: BOND_DISABLED, block_restart, nothing run" refused BOND_DISABLED
home_uci | sed "s|option weight '1'|option weight '0'|" >"$UCI_DIR/wanbond"
proto proto_wanbond_setup wb_home home
sed 's/^/      proto: /' "$PROTO_LOG"
nt_expect_true "proto: a broken UCI value (weight 0), no file of before: CHECK_FAILED, block_restart, nothing run" \
	refused CHECK_FAILED
nt_expect_true "proto: ... the check's error logged, no file for the daemon" sh -c "
	grep -q '^logger -t wanbond -p daemon.err interface wb_home: bond home: .*weight: 0 is out of range' '$PROTO_LOG' &&
	[ ! -e '$WB_CONF/home.conf' ]"
home_uci >"$UCI_DIR/wanbond"
PROTO_DEVICES=""
proto proto_wanbond_setup wb_home home
PROTO_DEVICES="wan=wan1 wwan=wan2"
nt_expect_true "proto: no uplink's interface up, no file of before: NO_UPLINK_UP, block_restart, nothing run" \
	refused NO_UPLINK_UP

# Up, through the ujail stand-in.
proto_up wb_home home
nt_wait_log "$PROTO_RUN_LOG" 'session established' 10 || true
sed 's/^/      daemon: /' "$PROTO_RUN_LOG"
sed 's/^/      ujail got: /' "$UJAIL.args" 2>/dev/null || true
nt_expect_true "proto: setup: 0, the daemon started (pid $HPID) and its session with the server established" sh -c "
	[ \"\$(cat '$PROTO_LOG.rc')\" = 0 ] && [ -n '$HPID' ] && kill -0 '$HPID' 2>/dev/null &&
	grep -q 'session established' '$PROTO_RUN_LOG'"
nt_expect_true "proto: the daemon run through ujail: -n wanbond-home -C the capabilities file -c -- wanbondd -c its file" sh -c "
	grep -qx 'run_command wb_home $UJAIL -n wanbond-home -C $CAPS_JSON -c -- $WBD -c $WB_CONF/home.conf' '$PROTO_LOG' &&
	[ \"\$(cat '$UJAIL.args')\" = '-n wanbond-home -C $CAPS_JSON -c -- $WBD -c $WB_CONF/home.conf' ]"
nt_expect_true "proto: the daemon's command line as the init script looks for it: $WBD -c $WB_CONF/home.conf" \
	test "$(tr '\000' ' ' <"/proc/$HPID/cmdline" 2>/dev/null)" = "$WBD -c $WB_CONF/home.conf "
nt_expect_true "proto: the update: TUN wb-home, its two addresses, its two routes, sent for wb_home" sh -c "
	grep -qx 'init_update wb-home 1' '$PROTO_LOG' &&
	grep -qx 'add_ipv4_address 10.255.0.2 30' '$PROTO_LOG' && grep -qx 'add_ipv6_address fd00:255::2 64' '$PROTO_LOG' &&
	grep -qx 'add_ipv4_route 10.2.0.0 24' '$PROTO_LOG' && grep -qx 'add_ipv6_route fd00:2:: 64' '$PROTO_LOG' &&
	[ \"\$(tail -n 1 '$PROTO_LOG')\" = 'send_update wb_home' ] && ! grep -q '^notify_error' '$PROTO_LOG'"
nt_expect_true "proto: the TUN device wb-home is there, with 10.255.0.2/30" sh -c "
	ip netns exec '$(nt_ns router)' ip -o addr show dev wb-home | grep -qF 'inet 10.255.0.2/30'"
nt_expect_true "proto: the bond's file 0600, its directory 0700" sh -c "
	[ \"\$(stat -c %a '$WB_CONF')\" = 700 ] && [ \"\$(stat -c %a '$WB_CONF/home.conf')\" = 600 ]"
nt_expect_true "the daemons run as ujail starts them: CAP_CHOWN, CAP_NET_ADMIN, CAP_NET_RAW alone, no_new_privs" sh -c "
	for p in $SPID ${HPID:-0} $OPID; do
		grep -qx 'CapEff:[[:space:]]*0000000000003001' /proc/\$p/status && grep -qx 'NoNewPrivs:[[:space:]]*1' /proc/\$p/status || exit 1
	done"

# The init script's reload_service with the daemon the proto handler runs.
# reloaded: the daemon's "reloaded" lines so far.
reloaded() { grep -c 'reloaded' "$PROTO_RUN_LOG" || true; }
json_uplink() { "$CLI" -d "$CDIR" -j show home | jq -r ".[0].uplinks[] | select(.name == \"$1\") | .$2"; }
: >"$UBUS_LOG"
home_uci | sed "s|option weight '1'|option weight '3'|" >"$UCI_DIR/wanbond"
n=$(reloaded)
init start_service "$PROTO_DEVICES"
nt_wait_for 5 sh -c "[ \$(grep -c reloaded '$PROTO_RUN_LOG') -gt $n ]" || true
sed 's/^/      init: /' "$PROCD_LOG"
nt_expect_true "init reload, dsl's weight 1 -> 3 in UCI: the new file, a SIGHUP ('reloaded' in the daemon's log)" sh -c "
	grep -qF '{ name = \"dsl\"; interface = \"wan1\"; weight = 3; }' '$WB_CONF/home.conf' &&
	[ \$(grep -c reloaded '$PROTO_RUN_LOG') -gt $n ]"
nt_expect_true "init reload: the same daemon (pid $HPID), its dsl of weight 3 (wanbond -j show)" sh -c "
	kill -0 '$HPID' && [ \"\$(tr '\\000' ' ' </proc/$HPID/cmdline)\" = '$WBD -c $WB_CONF/home.conf ' ] &&
	[ \"\$('$CLI' -d '$CDIR' -j show home | jq '.[0].uplinks[] | select(.name == \"dsl\") | .weight')\" = 3 ]"
n=$(reloaded)
cp -p "$WB_CONF/home.conf" "$NT_TMP/home-run.before"
touch -d '2001-01-01' "$WB_CONF/home.conf"
init start_service "$PROTO_DEVICES"
sleep 1
nt_expect_true "init reload, nothing changed: no SIGHUP, the file untouched, no ubus call" sh -c "
	[ \$(grep -c reloaded '$PROTO_RUN_LOG') -eq $n ] && [ \"\$(stat -c %Y '$WB_CONF/home.conf')\" -lt 1000000000 ] &&
	[ ! -s '$UBUS_LOG' ]"
home_uci | sed "s|option weight '1'|option weight '0'|" >"$UCI_DIR/wanbond"
init start_service "$PROTO_DEVICES"
sleep 1
sed 's/^/      init: /' "$PROCD_LOG"
nt_expect_true "init reload, a broken value (weight 0): logged, the file kept, no SIGHUP" sh -c "
	grep -q '^logger -t wanbond -p daemon.err bond home: .*weight: 0 is out of range' '$PROCD_LOG' &&
	cmp -s '$WB_CONF/home.conf' '$NT_TMP/home-run.before' && [ \$(grep -c reloaded '$PROTO_RUN_LOG') -eq $n ] &&
	kill -0 '$HPID'"
home_uci | sed "s|option weight '1'|option weight '3'|" >"$UCI_DIR/wanbond"
# A change a SIGHUP does not apply (a timer): the interface restarted, no SIGHUP.
home_uci | sed "s|option weight '1'|option weight '3'|; s|^config bond 'home'\$|&\n\toption probe_interval_ms '300'|" \
	>"$UCI_DIR/wanbond"
n=$(reloaded)
: >"$UBUS_LOG"
init start_service "$PROTO_DEVICES"
sleep 1
sed 's/^/      ubus got: /' "$UBUS_LOG"
nt_expect_true "init reload, a timer changed: the file has it, wb_home down and up (a restart), no SIGHUP" sh -c "
	grep -q 'probe_interval_ms = 300;' '$WB_CONF/home.conf' &&
	[ \"\$(tr '\\n' ';' <'$UBUS_LOG')\" = 'call network.interface.wb_home down;call network.interface.wb_home up;' ] &&
	[ \$(grep -c reloaded '$PROTO_RUN_LOG') -eq $n ] &&
	grep -q 'settings beyond its uplinks and scheduler changed: interface wb_home restarts it' '$PROCD_LOG'"
# The bond switched off (enabled 0) while its daemon runs: its interface restarted (the setup refuses it).
home_uci | sed "s|option weight '1'|option weight '3'|; s|^config bond 'home'\$|&\n\toption probe_interval_ms '300'|;
	0,/option enabled '1'/s//option enabled '0'/" \
	>"$UCI_DIR/wanbond"
: >"$UBUS_LOG"
init start_service "$PROTO_DEVICES"
nt_expect_true "init reload, enabled 0 with the daemon running: wb_home down and up (its setup refuses it)" \
	test "$(tr '\n' ';' <"$UBUS_LOG")" = "call network.interface.wb_home down;call network.interface.wb_home up;"
home_uci | sed "s|option weight '1'|option weight '3'|; s|^config bond 'home'\$|&\n\toption probe_interval_ms '300'|" \
	>"$UCI_DIR/wanbond"

# Down: the daemon ended; then a reload brings the interface up through ubus.
proto_down wb_home
sed 's/^/      proto: /' "$PROTO_LOG"
nt_expect_true "proto: teardown: kill_command wb_home, the daemon (pid $HPID) gone" sh -c "
	grep -qx 'kill_command wb_home' '$PROTO_LOG' && ! kill -0 '$HPID' 2>/dev/null"
# Down by the operator (ifdown: no error of the handler's): a reload leaves it down.
printf '{\n\t"up": false,\n\t"pending": false,\n\t"autostart": false,\n\t"errors": [ ]\n}\n' >"$UBUS_LOG.status"
: >"$UBUS_LOG"
init start_service "$PROTO_DEVICES"
sed 's/^/      ubus got: /' "$UBUS_LOG"
nt_expect_true "init reload, no daemon, the operator's ifdown: the status asked, no up" \
	test "$(cat "$UBUS_LOG")" = "call network.interface.wb_home status"
# Refused by the handler (no uplink was up): a reload whose file checks brings it up.
printf '{\n\t"up": false,\n\t"errors": [\n\t\t{\n\t\t\t"subsystem": "wanbond",\n\t\t\t"code": "NO_UPLINK_UP"\n\t\t}\n\t]\n}\n' \
	>"$UBUS_LOG.status"
: >"$UBUS_LOG"
init start_service "$PROTO_DEVICES"
sed 's/^/      ubus got: /' "$UBUS_LOG"
nt_expect_true "init reload, no daemon, the handler refused it (NO_UPLINK_UP): ubus call network.interface.wb_home up" \
	test "$(tr '\n' ';' <"$UBUS_LOG")" = "call network.interface.wb_home status;call network.interface.wb_home up;"
rm -f "$UBUS_LOG.status"

# Up again, without ujail: the daemon run directly.
PROTO_UJAIL=$NT_TMP/no-ujail
n=$(grep -c 'session established' "$PROTO_RUN_LOG" || true)
proto_up wb_home home
nt_wait_for 10 sh -c "[ \$(grep -c 'session established' '$PROTO_RUN_LOG') -gt $n ]" || true
nt_expect_true "proto: no ujail: wanbondd -c its file run directly, its session established" sh -c "
	grep -qx 'run_command wb_home $WBD -c $WB_CONF/home.conf' '$PROTO_LOG' && [ -n '$HPID' ] && kill -0 '$HPID' &&
	[ \$(grep -c 'session established' '$PROTO_RUN_LOG') -gt $n ]"
nt_run lan ping -q -n -c 3 -i 0.1 -W 2 10.2.0.2 >/dev/null 2>&1 || true

# A server bond: one control socket and one TUN device per peer. The handler
# waits on the first peer's socket and gives netifd no device.
HOME_HPID=$HPID HOME_SHELL=$PROTO_SHELL
cp "$UCI_DIR/wanbond" "$NT_TMP/uci-wanbond.saved"
cp "$PROTO_PID" "$PROTO_PID.saved"
cat >"$UCI_DIR/wanbond" <<UCI
config bond 'relay'
	option role 'server'
	option private_key_file '$NT_TMP/server.key'
	option listen_port '51830'

config peer 'far'
	option bond 'relay'
	option public_key '$(cat "$NT_TMP/office.pub")'
	option tun_name 'wb-far'
	list tun_address '10.255.9.1/30'
UCI
proto_up wb_relay relay
nt_expect_true "proto, a server bond: setup 0 once its peer's socket answers (far.sock), the interface given no device" sh -c "
	[ \"\$(cat '$PROTO_LOG.rc')\" = 0 ] && [ -S '$CDIR/far.sock' ] && grep -qx 'init_update \\* 1' '$PROTO_LOG' &&
	! grep -q '^add_ipv' '$PROTO_LOG' && [ \"\$(tail -n 1 '$PROTO_LOG')\" = 'send_update wb_relay' ]"
nt_expect_true "proto, a server bond: the peer's own TUN device wb-far, with its address" sh -c "
	ip netns exec '$(nt_ns router)' ip -o addr show dev wb-far | grep -qF 'inet 10.255.9.1/30'"
proto_down wb_relay
nt_expect_true "proto, a server bond: teardown ends its daemon" sh -c "! kill -0 '${HPID:-0}' 2>/dev/null"
cp "$NT_TMP/uci-wanbond.saved" "$UCI_DIR/wanbond"
cp "$PROTO_PID.saved" "$PROTO_PID"
HPID=$HOME_HPID PROTO_SHELL=$HOME_SHELL

# rpc DIR ARGS...: the plugin as rpcd runs it, the arguments' JSON on stdin
# ($RPC_IN); for the methods that read UCI, the doubles stand for
# /lib/functions.sh (and network.sh), for ubus the double.
RPC_CONF=$NT_TMP/rpc-conf
rpc() {
	local dir=$1; shift
	printf '%s' "${RPC_IN-}" | WANBOND_CONTROL_DIR=$dir WANBOND_CLI=$CLI WANBOND_FUNCTIONS=$DOUBLES \
		WANBOND_UCI_SH=$FILES/wanbond-uci.sh WANBOND_CONF_DIR=$RPC_CONF WANBONDD=$WBD WANBOND_UBUS=$UBUS_DOUBLE \
		WB_DEVICES=$PROTO_DEVICES WANBOND_KEY_DIR=${RPC_KEY_DIR:-$NT_TMP} $ASH "$FILES/wanbond.rpcd" "$@"
}

rpc "$CDIR" list >"$NT_TMP/list.json"
echo "      list: $(cat "$NT_TMP/list.json")"
nt_expect_true "list: status, check, public_key, uplink_set, stats_reset, restart, generate_key, with their arguments" \
	jqt '. == {"status":{"bond":"str"},"check":{"bond":"str"},"public_key":{"bond":"str"},
		"uplink_set":{"bond":"str","uplink":"str","enabled":true},"stats_reset":{"bond":"str"},
		"restart":{"bond":"str"},"generate_key":{"bond":"str"}}' "$NT_TMP/list.json"

RPC_IN='{}' rpc "$CDIR" call status >"$NT_TMP/status.json"
echo "      call status (client), as rpcd gets it: $(cat "$NT_TMP/status.json")"
echo "      call status (client): $(jq -c '.bonds.home | {name, role, session, uplinks: (.uplinks | map_values({state, enabled, reason, srtt_ns, loss_ppm, pacing_rate, share_ppm, tx_bytes: .counters.tx_bytes}))}' "$NT_TMP/status.json")"
nt_expect_true "call status: home, keyed by name, with dsl and lte" \
	jqt '.bonds.home.role == "client" and (.bonds.home.uplinks | keys) == ["dsl", "lte"]' "$NT_TMP/status.json"
nt_expect_true "call status: each uplink's state, reason, rtt, loss, rates, share, counters" \
	jqt '[.bonds.home.uplinks[] | has("state") and has("reason") and has("srtt_ns") and has("loss_ppm")
		and has("pacing_rate") and has("share_ppm") and (.counters | has("tx_bytes"))] | all' "$NT_TMP/status.json"
nt_expect_range "call status: the shares add up to a million (ppm)" \
	"$(jq '[.bonds.home.uplinks[].share_ppm] | add' "$NT_TMP/status.json")" 999998 1000002

# uplink_set: the operator's switch, through the CLI.
RPC_IN='{"bond": "home", "uplink": "lte", "enabled": false}' rpc "$CDIR" call uplink_set >"$NT_TMP/set-off.json"
echo "      uplink_set lte off: $(cat "$NT_TMP/set-off.json"); show: $(json_uplink lte enabled) '$(json_uplink lte state_reason)'"
nt_expect_true "uplink_set lte false: ok, and wanbond -j show says enabled false, 'disabled by the operator'" sh -c "
	jq -e '.ok == true' '$NT_TMP/set-off.json' >/dev/null &&
	[ \"\$('$CLI' -d '$CDIR' -j show home | jq -c '.[0].uplinks[] | select(.name == \"lte\") | [.enabled, .state_reason]')\" = '[false,\"disabled by the operator\"]' ]"
RPC_IN='{"bond": "home"}' rpc "$CDIR" call status >"$NT_TMP/status-down.json"
echo "      lte switched off: $(jq -c '.bonds.home.uplinks.lte | {state, enabled, reason}' "$NT_TMP/status-down.json")"
nt_expect_true "lte switched off: the call still answers, dsl as before" \
	jqt '.bonds.home.uplinks.dsl.state == "up" and .bonds.home.uplinks.lte.enabled == false' "$NT_TMP/status-down.json"
nt_expect_true "lte switched off: its reason says so" \
	jqt '.bonds.home.uplinks.lte.reason == "disabled by the operator"' "$NT_TMP/status-down.json"
RPC_IN='{"bond":"home","uplink":"lte","enabled":true}' rpc "$CDIR" call uplink_set >"$NT_TMP/set-on.json"
echo "      uplink_set lte on: $(cat "$NT_TMP/set-on.json"); show: $(json_uplink lte enabled) '$(json_uplink lte state_reason)'"
nt_expect_true "uplink_set lte true: ok, enabled true again, no longer 'disabled by the operator'" sh -c "
	jq -e '.ok == true' '$NT_TMP/set-on.json' >/dev/null &&
	[ \"\$('$CLI' -d '$CDIR' -j show home | jq -c '.[0].uplinks[] | select(.name == \"lte\") | .enabled')\" = true ] &&
	[ \"\$('$CLI' -d '$CDIR' -j show home | jq -r '.[0].uplinks[] | select(.name == \"lte\") | .state_reason')\" != 'disabled by the operator' ]"
RPC_IN='{"bond":"home","uplink":"no/such","enabled":false}' rpc "$CDIR" call uplink_set >"$NT_TMP/set-bad.json"
echo "      uplink_set, a bad uplink name: $(cat "$NT_TMP/set-bad.json")"
nt_expect_true "uplink_set, a bad uplink name: an error object {error, code, detail}, lte untouched" sh -c "
	jq -e '(.error | test(\"uplink\")) and .code == 1 and has(\"detail\")' '$NT_TMP/set-bad.json' >/dev/null &&
	[ \"\$('$CLI' -d '$CDIR' -j show home | jq -c '.[0].uplinks[] | select(.name == \"lte\") | .enabled')\" = true ]"
RPC_IN='{"bond":"home","uplink":"lte"}' rpc "$CDIR" call uplink_set >"$NT_TMP/set-noenabled.json"
echo "      uplink_set, no enabled: $(cat "$NT_TMP/set-noenabled.json")"
nt_expect_true "uplink_set, enabled missing: an error object naming enabled, lte untouched" sh -c "
	jq -e '(.error | test(\"enabled\")) and .code == 1 and has(\"detail\")' '$NT_TMP/set-noenabled.json' >/dev/null &&
	[ \"\$('$CLI' -d '$CDIR' -j show home | jq -c '.[0].uplinks[] | select(.name == \"lte\") | .enabled')\" = true ]"
RPC_IN='{"bond":"home","uplink":"nosuch","enabled":false}' rpc "$CDIR" call uplink_set >"$NT_TMP/set-none.json"
echo "      uplink_set, an uplink the bond does not have: $(cat "$NT_TMP/set-none.json")"
nt_expect_true "uplink_set, an uplink the bond does not have: the CLI's error as an error object" \
	jqt '(.error | length > 0) and .code != 0 and has("detail")' "$NT_TMP/set-none.json"

# The plugin parses its arguments from whoever the ACL lets call it: 300
# seeded random argument texts (quotes, backslashes, newlines, control and
# non-ASCII bytes, keys repeated or missing, names of no uplink of the bond)
# to each method that parses a name or a switch. Each answer must be one
# JSON object, an error or "ok", and no uplink switched.
ARGS_DIR=$NT_TMP/rpc-args
python3 - "$ARGS_DIR" <<'PY'
import os, random, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rnd = random.Random(27)
atoms = ['"', '\\', '\\"', '\n', '\t', ':', ',', '{', '}', '[', ']', ' ', 'bond', 'uplink', 'enabled',
         'home', 'true', 'false', '1', '0', 'no/such', 'x' * 40, '\u00e9', '\x01', '$(id)', '`id`', ';', "'", 'null']
for i in range(300):
    parts = ['{']
    for _ in range(rnd.randint(0, 4)):
        key = rnd.choice(['bond', 'uplink', 'enabled', 'other', ''.join(rnd.choice(atoms) for _ in range(2))])
        val = rnd.choice(['"home"', '"nosuch"', 'true', 'false', '"' + ''.join(rnd.choice(atoms) for _ in range(rnd.randint(0, 5))) + '"',
                          ''.join(rnd.choice(atoms) for _ in range(rnd.randint(0, 3)))])
        parts.append('"%s": %s,' % (key, val))
    text = ''.join(parts).rstrip(',') + rnd.choice(['}', '', '}}', '\n}'])
    if rnd.random() < 0.2:
        text = ''.join(rnd.choice(atoms) for _ in range(rnd.randint(0, 12)))
    with open(os.path.join(out, '%03d' % i), 'wb') as f:
        f.write(text.encode('utf-8', 'surrogateescape'))
PY
switches_before=$("$CLI" -d "$CDIR" -j show home | jq -c '[.[0].uplinks[] | [.name, .enabled]]')
bad_answers=0
for f in "$ARGS_DIR"/*; do
	for m in uplink_set stats_reset status public_key check; do
		# uplink_set with an uplink of the bond would be a real switch: those are left out.
		[ "$m" = uplink_set ] && grep -qE '"uplink"[[:space:]]*:[[:space:]]*"(dsl|lte)"' "$f" && continue
		out=$(RPC_IN=$(cat "$f") rpc "$CDIR" call "$m" 2>/dev/null)
		jq -e 'type == "object" and (has("error") or has("ok") or has("bonds") or has("public_key"))' <<<"$out" \
			>/dev/null 2>&1 || { bad_answers=$((bad_answers + 1)); echo "      $m $(head -c 80 "$f" | tr '\n' ' '): $out" | head -c 300; }
	done
done
nt_expect_range "300 random argument texts to 5 methods: answers that are no JSON object of the kind" "$bad_answers" 0 0
nt_expect_true "300 random argument texts: no uplink switched" \
	test "$("$CLI" -d "$CDIR" -j show home | jq -c '[.[0].uplinks[] | [.name, .enabled]]')" = "$switches_before"

# stats_reset: the counters from zero.
nt_run lan ping -q -n -c 50 -i 0.02 -W 2 10.2.0.2 >/dev/null 2>&1 || true
tx_before=$(json_uplink dsl counters.tx_packets)
RPC_IN='{"bond":"home"}' rpc "$CDIR" call stats_reset >"$NT_TMP/reset.json"
tx_after=$(json_uplink dsl counters.tx_packets)
echo "      stats_reset: $(cat "$NT_TMP/reset.json"); dsl's tx_packets $tx_before -> $tx_after"
nt_expect_true "stats_reset: ok, dsl's tx_packets from $tx_before (>= 25) to near zero ($tx_after <= 10)" sh -c "
	jq -e '.ok == true' '$NT_TMP/reset.json' >/dev/null && [ '${tx_before:-0}' -ge 25 ] && [ '${tx_after:-999}' -le 10 ]"

# check: each bond's file from UCI, checked, beside the ones in use.
RPC_IN='{"bond":"home"}' rpc "$CDIR" call check >"$NT_TMP/check.json"
echo "      check: $(cat "$NT_TMP/check.json")"
nt_expect_true "check, UCI as it runs: home ok, not waiting" \
	jqt '.bonds.home.ok == true and .bonds.home.waiting == false and .bonds.home.error == ""' "$NT_TMP/check.json"
home_uci | sed "s|option weight '1'|option weight '0'|" >"$UCI_DIR/wanbond"
RPC_IN='{}' rpc "$CDIR" call check >"$NT_TMP/check-bad.json"
echo "      check, weight 0: $(cat "$NT_TMP/check-bad.json")"
nt_expect_true "check, weight 0: ok false, the error naming home.conf.check:LINE: and the weight" \
	jqt '.bonds.home.ok == false and (.bonds.home.error | test("home\\.conf\\.check:[0-9]+:.*weight"))' "$NT_TMP/check-bad.json"
home_uci | sed "s|option weight '1'|option weight '3'|" >"$UCI_DIR/wanbond"

# public_key and generate_key: the bond's key file.
RPC_IN='{"bond":"home"}' rpc "$CDIR" call public_key >"$NT_TMP/pubkey.json"
echo "      public_key: $(cat "$NT_TMP/pubkey.json")"
nt_expect_true "public_key: wanbondd --pubkey of the bond's key file, the file named" \
	jqt --arg k "$("$WBD" --pubkey <"$NT_TMP/home.key")" --arg f "$NT_TMP/home.key" \
	'.public_key == $k and ($k | length > 0) and .file == $f' "$NT_TMP/pubkey.json"
GEN=$NT_TMP/gen
mkdir -p "$GEN"
(umask 077 && "$WBD" --genkey >"$GEN/spare.key")
cp -p "$GEN/spare.key" "$NT_TMP/spare.key.before"
printf "\nconfig bond 'spare'\n\toption enabled '0'\n\toption private_key_file '%s'\n" "$GEN/spare.key" >>"$UCI_DIR/wanbond"
# A key file outside the keys' directory: neither read nor replaced (the
# methods run as root for whoever may write UCI).
RPC_IN='{"bond":"spare"}' rpc "$CDIR" call generate_key >"$NT_TMP/genkey-outside.json"
RPC_IN='{"bond":"spare"}' rpc "$CDIR" call public_key >"$NT_TMP/pubkey-outside.json"
echo "      generate_key, a key file outside the keys' directory: $(cat "$NT_TMP/genkey-outside.json")"
nt_expect_true "generate_key and public_key, a key file outside the keys' directory: error objects, the file untouched" sh -c "
	jq -e '.error | test(\"not a file of\")' '$NT_TMP/genkey-outside.json' >/dev/null &&
	jq -e '.error | test(\"not a file of\")' '$NT_TMP/pubkey-outside.json' >/dev/null &&
	cmp -s '$GEN/spare.key' '$NT_TMP/spare.key.before' && [ ! -e '$GEN/spare.key.old' ]"
RPC_IN='{"bond":"spare"}' RPC_KEY_DIR=$GEN rpc "$CDIR" call generate_key >"$NT_TMP/genkey.json"
echo "      generate_key: $(cat "$NT_TMP/genkey.json")"
nt_expect_true "generate_key: a new key in the file (0600), its public key answered and in spare.pub, not the old one" sh -c "
	new=\$('$WBD' --pubkey <'$GEN/spare.key') && [ -n \"\$new\" ] &&
	[ \"\$new\" != \"\$('$WBD' --pubkey <'$NT_TMP/spare.key.before')\" ] &&
	jq -e --arg k \"\$new\" '.public_key == \$k and .file == \"$GEN/spare.key\"' '$NT_TMP/genkey.json' >/dev/null &&
	[ \"\$(cat '$GEN/spare.pub')\" = \"\$new\" ] && [ \"\$(stat -c %a '$GEN/spare.key')\" = 600 ]"
nt_expect_true "generate_key: the old key kept as spare.key.old, 0600" sh -c "
	cmp -s '$GEN/spare.key.old' '$NT_TMP/spare.key.before' && [ \"\$(stat -c %a '$GEN/spare.key.old')\" = 600 ]"
RPC_IN='{"bond":"nosuch"}' rpc "$CDIR" call public_key >"$NT_TMP/pubkey-none.json"
nt_expect_true "public_key of a bond UCI does not have: an error object" \
	jqt '(.error | test("nosuch")) and .code == 2' "$NT_TMP/pubkey-none.json"

# restart: the bond's netifd interface down, then up (the ubus double).
: >"$UBUS_LOG"
RPC_IN='{"bond":"home"}' rpc "$CDIR" call restart >"$NT_TMP/restart.json"
echo "      restart: $(cat "$NT_TMP/restart.json"); ubus got: $(tr '\n' ';' <"$UBUS_LOG")"
nt_expect_true "restart: ubus call network.interface.wb_home down, then up; ok, wb_home named" sh -c "
	[ \"\$(cat '$UBUS_LOG')\" = 'call network.interface.wb_home down
call network.interface.wb_home up' ] &&
	jq -e '.ok == true and .interface == \"wb_home\"' '$NT_TMP/restart.json' >/dev/null"
: >"$UBUS_LOG"
RPC_IN='{"bond":"spare"}' rpc "$CDIR" call restart >"$NT_TMP/restart-none.json"
echo "      restart, no interface runs the bond: $(cat "$NT_TMP/restart-none.json")"
nt_expect_true "restart, no interface runs the bond: an error object, no ubus call" sh -c "
	jq -e '(.error | test(\"no network interface\")) and .code == 2 and has(\"detail\")' '$NT_TMP/restart-none.json' >/dev/null &&
	[ ! -s '$UBUS_LOG' ]"

RPC_IN='{}' rpc "$SDIR" call status >"$NT_TMP/status-server.json"
echo "      call status (server): $(jq -c '.bonds | map_values({role, session, uplinks: (.uplinks | keys)})' "$NT_TMP/status-server.json")"
nt_expect_true "server: two bonds, home and office" \
	jqt '(.bonds | keys) == ["home", "office"] and ([.bonds[].role] | unique) == ["server"]' "$NT_TMP/status-server.json"
RPC_IN='{ "bond" : "office" }' rpc "$SDIR" call status >"$NT_TMP/status-office.json"
nt_expect_true "server, {\"bond\":\"office\"}: office alone" jqt '(.bonds | keys) == ["office"]' "$NT_TMP/status-office.json"
RPC_IN='{"bond":"no/such"}' rpc "$SDIR" call status >"$NT_TMP/status-bad.json"
echo "      a bad bond name: $(cat "$NT_TMP/status-bad.json")"
nt_expect_true "a bad bond name: an error object" jqt '.error | test("not a bond name")' "$NT_TMP/status-bad.json"
RPC_IN='{"bond":"nosuch"}' rpc "$SDIR" call status >"$NT_TMP/status-none.json"
nt_expect_true "a bond that does not run: an error object" jqt '.error == "wanbondd is not running"' "$NT_TMP/status-none.json"

# The server's bond office gone (its socket taken away): home still answers, the error beside it.
mv "$SDIR/office.sock" "$NT_TMP/office.sock.away"
ln -s /nonexistent "$SDIR/office.sock"
RPC_IN='{}' rpc "$SDIR" call status >"$NT_TMP/status-half.json"
echo "      one bond of two not answering: $(jq -c '{bonds: (.bonds | keys), error, code}' "$NT_TMP/status-half.json")"
nt_expect_true "one bond of two not answering: the other shown, the error beside it" \
	jqt '(.bonds | keys) == ["home"] and (.error | test("office"))' "$NT_TMP/status-half.json"
rm -f "$SDIR/office.sock"
mv "$NT_TMP/office.sock.away" "$SDIR/office.sock"

# ---- d. the hotplug script ----------------------------------------------------------------
echo "d. the hotplug script"
cat >"$UCI_DIR/wanbond" <<UCI
config uplink 'dsl'
	option bond 'home'
	option interface 'wan'

config uplink 'lte'
	option bond 'home'
	option interface 'wwan'
UCI
# The doubles stand for /lib/functions.sh.
hotplug() {
	ACTION=$1 INTERFACE=$2 DEVICE=${3-} WANBOND_FUNCTIONS=$DOUBLES WANBOND_CONTROL_DIR=$CDIR \
		WANBOND_CLI=$CLI $ASH "$FILES/wanbond.hotplug"
}
# "ENABLED IFACE_UP": the operator's switch and the interface's state, apart.
switches() { "$CLI" -d "$CDIR" -j show home | jq -r ".[0].uplinks[] | select(.name == \"$1\") | \"\\(.enabled) \\(.interface_up)\""; }
hotplug ifdown wwan
nt_expect_true "ifdown wwan: lte's interface down, the operator's switch on" test "$(switches lte)" = "true false"
nt_expect_true "ifdown wwan: dsl as it was" test "$(switches dsl)" = "true true"
hotplug ifup wwan wan2
nt_expect_true "ifup wwan: lte's interface up again" test "$(switches lte)" = "true true"
"$CLI" -d "$CDIR" uplink set dsl down
hotplug ifdown wan
nt_expect_true "the operator's down, then ifdown: dsl off both ways" test "$(switches dsl)" = "false false"
"$CLI" -d "$CDIR" uplink set dsl down
hotplug ifup wan wan1
nt_expect_true "the operator's down: dsl stays off through ifdown and ifup" test "$(switches dsl)" = "false true"
"$CLI" -d "$CDIR" uplink set dsl up
hotplug ifup lan br-lan
nt_expect_true "an interface no uplink names: nothing changes" test "$(switches dsl) $(switches lte)" = "true true true true"

# ---- the daemons stopped -------------------------------------------------------------------
proto_down wb_home
nt_expect_true "proto: teardown: the daemon (pid $HPID) gone" sh -c "! kill -0 '$HPID' 2>/dev/null"
nt_stop "$OPID"
nt_stop "$SPID"
RPC_IN='{}' rpc "$CDIR" call status >"$NT_TMP/status-stopped.json"
echo "      daemon stopped: $(cat "$NT_TMP/status-stopped.json")"
nt_expect_true "daemon stopped: {\"error\":\"wanbondd is not running\", ...}" \
	jqt '.error == "wanbondd is not running" and .code == 3' "$NT_TMP/status-stopped.json"

nt_finish
