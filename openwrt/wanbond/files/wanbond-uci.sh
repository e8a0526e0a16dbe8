# wanbond: the UCI configuration (/etc/config/wanbond) written as one
# libconfig file per bond, as wanbondd reads it (docs/configuration.md and
# its "UCI" section list every option and its setting); and what the
# package's uci-defaults script does on first install.
#
# Sourced by the netifd protocol handler (/lib/netifd/proto/wanbond.sh),
# /etc/init.d/wanbond and the rpcd plugin after /lib/functions.sh and
# /lib/functions/network.sh (it uses their config_get, config_foreach and
# network_get_device; its caller runs config_load), and by the uci-defaults
# script. Kept apart from them so that it can be run, and tested, outside
# OpenWrt.
#
# The same UCI and the same interfaces give the same bytes: the service's
# reload compares them, and only a change reaches the daemon (a SIGHUP).

# Where the control sockets are: every bond's in one directory, so the CLI,
# the hotplug script and the rpcd plugin find them all.
WANBOND_CONTROL_DIR=${WANBOND_CONTROL_DIR:-/var/run/wanbond}
WANBONDD=${WANBONDD:-/usr/sbin/wanbondd}

# Options of a bond section, "option:type" by the libconfig group they go into.
WANBOND_TOP="name:str private_key:str private_key_file:str cipher:str"
WANBOND_TIMERS="probe_interval_ms:int uplink_timeout_ms:int handshake_retry_ms:int rekey_after_seconds:int
rekey_after_messages:int"
WANBOND_TRANSPORT="congestion_control:str send_buffer_kb:int receive_window_kb:int send_queue_kb:int
reorder_hold_ms:int aqm:bool aqm_target_ms:int aqm_interval_ms:int pool_limit_mb:int outer_dscp:bool"
WANBOND_SCHEDULER="policy:str arrival:bool avoid_blocking:bool penalise:bool penalise_guard:bool reinject:bool
reinject_on_rwnd:bool reinject_on_sndbuf:bool reinject_on_app_limited:bool measure:bool"
# Prefixed in UCI ("classes_enabled" is classes.enabled, "interactive_dscp"
# classes.interactive.dscp, "server_address" server.address).
WANBOND_CLASSES="enabled:bool"
WANBOND_INTERACTIVE="dscp:list ports:list policy:str ordered:bool fec:str"
WANBOND_SERVER="address:str port:int public_key:str preshared_key:str preshared_key_file:str"
WANBOND_LISTEN="address:str port:int"
WANBOND_TUN="name:str address:list mtu:int"
# An uplink's settings; its interface is netifd's, written as its device.
WANBOND_UPLINK="source:str fwmark:int table:int rule_priority:int weight:int backup:bool"
WANBOND_PEER="public_key:str preshared_key:str preshared_key_file:str"

# A libconfig string: backslashes and quotes escaped, control characters
# dropped (no UCI value needs one; none may break the file's syntax).
wanbond_quote() {
	printf '"%s"' "$(printf '%s' "$1" | tr -d '\000-\037' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')"
}

# A libconfig integer: decimal or 0x hex, with the L that a 64-bit one needs.
# Anything else is written as a string: wanbondd --check then names the
# setting and its wrong type, and nothing foreign enters the file's syntax.
wanbond_int() {
	local v="$1" digits
	case "$v" in
	0x* | 0X*)
		digits=${v#0[xX]}
		case "$digits" in "" | *[!0-9a-fA-F]*) wanbond_quote "$v"; return ;; esac
		digits=$(printf '%s' "$digits" | sed 's/^0*//')
		[ ${#digits} -gt 8 ] && v="${v}L"
		;;
	*)
		case "$v" in "" | *[!0-9]*) wanbond_quote "$v"; return ;; esac
		digits=$(printf '%s' "$v" | sed 's/^0*//')
		if [ ${#digits} -gt 10 ] || { [ ${#digits} -eq 10 ] && [ "$digits" \> 2147483647 ]; }; then
			v="${v}L"
		fi
		;;
	esac
	printf '%s' "$v"
}

# UCI's booleans (1 0 yes no on off true false enabled disabled) as libconfig's.
wanbond_bool() {
	case "$1" in
	1 | yes | on | true | enabled) printf 'true' ;;
	0 | no | off | false | disabled) printf 'false' ;;
	*) wanbond_quote "$1" ;;
	esac
}

# A text for a comment: control characters dropped, so that a newline in a
# UCI value cannot end the comment and start settings of its own.
wanbond_text() {
	printf '%s' "$1" | tr -d '\000-\037'
}

# wanbond_value TYPE VALUE: a value as libconfig writes it; a list is UCI's
# words, each a string. The words are split with pathname expansion off
# (set -f, the caller's setting put back): an item "*" is the string "*",
# not the names of the files in the working directory.
wanbond_value() {
	local type="$1" v="$2" item sep="" flags="$-"
	case "$type" in
	str) wanbond_quote "$v" ;;
	int) wanbond_int "$v" ;;
	bool) wanbond_bool "$v" ;;
	list)
		set -f
		# shellcheck disable=SC2086 # split into UCI's words, no globbing
		set -- $v
		case "$flags" in *f*) ;; *) set +f ;; esac
		printf '[ '
		for item in "$@"; do
			printf '%s%s' "$sep" "$(wanbond_quote "$item")"
			sep=", "
		done
		printf ' ]'
		;;
	esac
}

# wanbond_settings SECTION PREFIX INDENT SPECS: "key = value;" a line for each
# option PREFIX+key the section has, in the order of SPECS.
wanbond_settings() {
	local section="$1" prefix="$2" indent="$3" spec key type v flags="$-"
	set -f
	# shellcheck disable=SC2086 # the specs' words, no globbing
	set -- $4
	case "$flags" in *f*) ;; *) set +f ;; esac
	for spec; do
		key=${spec%%:*}
		type=${spec#*:}
		config_get v "$section" "$prefix$key"
		[ -n "$v" ] || continue
		printf '%s%s = %s;\n' "$indent" "$key" "$(wanbond_value "$type" "$v")"
	done
}

# wanbond_group SECTION PREFIX INDENT NAME SPECS [INNER]: "NAME = { ... };"
# if the section has any of its options or INNER is not empty, nothing
# otherwise. INNER: the lines of a group nested in this one, after its
# settings (a wanbond_group's output, written at INDENT plus two spaces).
wanbond_group() {
	local body
	body=$(wanbond_settings "$1" "$2" "$3  " "$5")
	if [ -n "${6-}" ]; then
		body="$body${body:+
}$6"
	fi
	[ -n "$body" ] || return 0
	printf '%s%s = {\n%s\n%s};\n' "$3" "$4" "$body" "$3"
}

# wanbond_classes SECTION: the group "classes", with "interactive" inside
# it, from the options classes_* and interactive_*; nothing if the section
# has none of them, so that the daemon's defaults hold.
wanbond_classes() {
	wanbond_group "$1" classes_ "" classes "$WANBOND_CLASSES" \
		"$(wanbond_group "$1" interactive_ "  " interactive "$WANBOND_INTERACTIVE")"
}

# wanbond_routes SECTION INDENT: the section's "list route" as routes.
wanbond_routes() {
	local routes
	config_get routes "$1" route
	[ -n "$routes" ] || return 0
	printf '%sroutes = %s;\n' "$2" "$(wanbond_value list "$routes")"
}

# The name the daemon knows a section by: its "option name", else the
# section's own name (UCI's names allow no "-" or ".": the option does).
wanbond_name() {
	local n
	config_get n "$1" name "$1"
	printf '%s' "$n"
}

# ---- a client's uplinks ------------------------------------------------------------------------

# One uplink of bond $WANBOND_BOND, as a group of the "uplinks" list (in
# $WANBOND_UPLINKS, the lines so far). Its netifd interface is written as the
# device netifd has for it now. An interface that is down has none: the
# uplink is then written without it if it is bound another way too (a
# source or a mark), left out otherwise (said in a comment, kept whole in
# $WANBOND_UPLINKS_DOWN: no list of words to split, so nothing in a name is
# split or globbed); its interface coming up reloads the service, and the
# file then has it.
wanbond_uplink() {
	local section="$1" bond enabled iface dev src mark line
	config_get bond "$section" bond
	[ "$bond" = "$WANBOND_BOND" ] || return 0
	config_get_bool enabled "$section" enabled 1
	[ "$enabled" = 1 ] || return 0
	config_get iface "$section" interface
	config_get src "$section" source
	config_get mark "$section" fwmark
	dev=""
	[ -n "$iface" ] && network_get_device dev "$iface"
	if [ -n "$iface" ] && [ -z "$dev" ] && [ -z "$src" ] && [ -z "$mark" ]; then
		WANBOND_UPLINKS_DOWN="$WANBOND_UPLINKS_DOWN$(printf \
			'# uplink %s: interface %s is down (no device): left out until it comes up' \
			"$(wanbond_text "$(wanbond_name "$section")")" "$(wanbond_text "$iface")")
"
		return 0
	fi
	line="    { name = $(wanbond_quote "$(wanbond_name "$section")");"
	[ -n "$dev" ] && line="$line interface = $(wanbond_quote "$dev");"
	line="$line$(wanbond_settings "$section" "" " " "$WANBOND_UPLINK" | tr -d '\n')"
	WANBOND_UPLINKS="$WANBOND_UPLINKS${WANBOND_UPLINKS:+,
}$line }"
}

# ---- a server's peers --------------------------------------------------------------------------

wanbond_peer() {
	local section="$1" bond enabled tun
	config_get bond "$section" bond
	[ "$bond" = "$WANBOND_BOND" ] || return 0
	config_get_bool enabled "$section" enabled 1
	[ "$enabled" = 1 ] || return 0
	[ -n "$WANBOND_PEERS_SEEN" ] && printf ',\n'
	WANBOND_PEERS_SEEN=1
	printf '  {\n    name = %s;\n' "$(wanbond_quote "$(wanbond_name "$section")")"
	wanbond_settings "$section" "" "    " "$WANBOND_PEER"
	wanbond_group "$section" tun_ "    " tun "$WANBOND_TUN"
	wanbond_routes "$section" "    "
	printf '  }'
}

# ---- the file ----------------------------------------------------------------------------------

# The settings of both roles, at the top and in their groups.
wanbond_common() {
	local section="$1" group admin
	printf 'role = %s;\n' "$(wanbond_quote "$2")"
	printf 'name = %s;\n' "$(wanbond_quote "$(wanbond_name "$section")")"
	wanbond_settings "$section" "" "" "${WANBOND_TOP#name:str }"
	wanbond_group "$section" "" "" timers "$WANBOND_TIMERS"
	wanbond_group "$section" "" "" transport "$WANBOND_TRANSPORT"
	wanbond_group "$section" "" "" scheduler "$WANBOND_SCHEDULER"
	wanbond_classes "$section"
	config_get group "$section" control_group
	config_get admin "$section" control_admin_group
	printf 'control = { directory = %s;%s%s };\n' "$(wanbond_quote "$WANBOND_CONTROL_DIR")" \
		"${group:+ group = $(wanbond_quote "$group");}" "${admin:+ admin_group = $(wanbond_quote "$admin");}"
}

wanbond_client() {
	wanbond_common "$1" client
	wanbond_group "$1" server_ "" server "$WANBOND_SERVER"
	wanbond_group "$1" tun_ "" tun "$WANBOND_TUN"
	wanbond_routes "$1" ""
	WANBOND_UPLINKS=""
	WANBOND_UPLINKS_DOWN=""
	config_foreach wanbond_uplink uplink
	printf '%s' "$WANBOND_UPLINKS_DOWN"
	[ -n "$WANBOND_UPLINKS" ] || return 2
	printf 'uplinks = (\n%s\n);\n' "$WANBOND_UPLINKS"
}

wanbond_server() {
	wanbond_common "$1" server
	wanbond_group "$1" listen_ "" listen "$WANBOND_LISTEN"
	WANBOND_PEERS_SEEN=""
	printf 'peers = (\n'
	config_foreach wanbond_peer peer
	printf '\n);\n'
}

# wanbond_generate BOND FILE: the bond section BOND of the loaded UCI
# configuration written to FILE. 0: written (and only if its bytes changed);
# 2: a client none of whose uplinks has a device yet (FILE untouched: there
# is nothing to start until one comes up); 1: an unknown role, or FILE's
# directory cannot be made.
#
# The file may hold a key itself (option private_key, preshared_key): it is
# made 0600 from its first byte (umask 077 while it is written, a FILE.new
# of before removed rather than truncated with its mode), and a directory
# that is not there is made 0700. The caller's umask (the init script's
# 022) would leave the key readable by all while the file is written, on
# every reload.
wanbond_generate() {
	local bond="$1" file="$2" role rc mask dir
	WANBOND_BOND="$bond"
	config_get role "$bond" role client
	case "$role" in
	client | server) ;;
	*)
		rm -f "$file.new"
		echo "bond $bond: role '$role' is neither client nor server" >&2
		return 1
		;;
	esac
	dir=$(dirname "$file")
	# shellcheck disable=SC2174 # 0700 for the deepest only: parents keep their usual mode
	[ -d "$dir" ] || mkdir -p -m 0700 "$dir" || return 1
	mask=$(umask)
	umask 077
	rm -f "$file.new"
	{
		printf '# Written from /etc/config/wanbond by the netifd protocol wanbond: edit that.\n'
		"wanbond_$role" "$bond"
	} >"$file.new"
	rc=$?
	umask "$mask"
	if [ "$rc" -ne 0 ]; then
		rm -f "$file.new"
		return "$rc"
	fi
	chmod 0600 "$file.new"
	wanbond_replace_if_changed "$file.new" "$file"
}

# wanbond_replace_if_changed NEW FILE: NEW becomes FILE if their bytes
# differ, else it goes: procd sees a new checksum only for a real change.
wanbond_replace_if_changed() {
	if cmp -s "$1" "$2"; then
		rm -f "$1"
	else
		mv -f "$1" "$2"
	fi
}

# wanbond_prepare BOND FILE: FILE made ready for the bond's daemon. The
# bond's file is written beside it (FILE.next) and checked with wanbondd
# --check; only a file that checks replaces FILE, and only if its bytes
# differ. Returns
#   0  FILE is the bond's configuration, checked
#   1  it does not check, and there is no FILE of before: $WANBOND_ERROR says why
#   2  nothing to start: none of a client's uplinks has a device
#   3  it does not check, FILE of before kept (a running daemon goes on
#      with it): $WANBOND_ERROR says why
wanbond_prepare() {
	local bond="$1" file="$2" next="$2.next" rc
	WANBOND_ERROR=""
	wanbond_generate "$bond" "$next"
	rc=$?
	[ "$rc" -eq 0 ] || { WANBOND_ERROR="cannot write the configuration of bond $bond"; return "$rc"; }
	if ! WANBOND_ERROR=$("$WANBONDD" --check -c "$next" 2>&1); then
		WANBOND_ERROR=${WANBOND_ERROR:-"wanbondd --check failed on $next"}
		[ -f "$file" ] && return 3
		return 1
	fi
	WANBOND_ERROR=""
	wanbond_replace_if_changed "$next" "$file"
}

# ---- first install (the uci-defaults script) ------------------------------------------------

# wanbond_keypair DIR: DIR/wanbond.key (0600) and DIR/wanbond.pub, made by
# wanbondd --genkey and --pubkey, each only if it is not there.
wanbond_keypair() {
	local key="$1/wanbond.key" pub="$1/wanbond.pub"
	if [ ! -s "$key" ]; then
		mkdir -p "$1"
		chmod 0700 "$1"
		(umask 077 && "$WANBONDD" --genkey >"$key.new" && mv "$key.new" "$key") || rm -f "$key.new"
	fi
	[ -s "$key" ] || return 1
	chmod 0600 "$key"
	if [ ! -s "$pub" ]; then
		"$WANBONDD" --pubkey <"$key" >"$pub.new" && mv "$pub.new" "$pub" && chmod 0644 "$pub"
	fi
}

# The TUN device of a bond: tun_name, else "wb-" and the bond's name cut to
# 15 characters (the daemon's default, docs/configuration.md).
wanbond_tun_of() {
	local name tun
	config_get name "$1" name "$1"
	config_get tun "$1" tun_name
	[ -n "$tun" ] || tun=$(printf 'wb-%s' "$name" | cut -c1-15)
	printf '%s' "$tun"
}

# wanbond_ifname_ok NAME: whether NAME may be a network device's name here:
# 1 to 15 characters (IFNAMSIZ) of A-Z a-z 0-9 _ . -, not "." or "..".
# Stricter than the kernel (no "/", ":" or white space): it also goes into
# UCI and netifd, and a name that is not checked can carry a quote and a
# newline into whatever takes it.
wanbond_ifname_ok() {
	case "$1" in
	"" | . | .. | *[!A-Za-z0-9_.-]*) return 1 ;;
	esac
	[ "${#1}" -le 15 ]
}

# wanbond_warn TEXT: TEXT in the log and on stderr (uci-defaults scripts run
# with their output thrown away: the log is where it is seen).
wanbond_warn() {
	logger -t wanbond -p daemon.warn "$1" 2>/dev/null
	echo "wanbond: $1" >&2
}

# wanbond_tunnel_network BOND: the netifd interface "wb_BOND" that runs the
# bond (proto wanbond, option bond BOND: /lib/netifd/proto/wanbond.sh) and
# a firewall zone "wanbond" holding it, each only if absent: nothing of the
# operator's is changed. The zone forwards nothing until the operator says
# so. Uncommitted: the caller commits.
#
# An interface that an older package made for the bond (proto none on its
# TUN device, while /etc/init.d/wanbond ran the daemon) becomes the proto
# wanbond one, keeping its name, so that its zone, routes and rules stay.
#
# The TUN name comes from the operator's UCI: it is checked, and a bond
# whose name does not pass is skipped, said in the log. Each value is set
# by its own uci command, never in a "uci batch" text, where a quote and a
# newline in a value would be commands of their own (delete dhcp.lan, ...).
wanbond_tunnel_network() {
	local iface="wb_$1" tun zone
	case "$1" in
	"" | *[!A-Za-z0-9_]*)
		wanbond_warn "bond $(wanbond_text "$1"): not a UCI section name: no network interface or firewall zone made for it"
		return 0
		;;
	esac
	tun=$(wanbond_tun_of "$1")
	if ! wanbond_ifname_ok "$tun"; then
		wanbond_warn "bond $1: TUN name '$(wanbond_text "$tun")' is not 1 to 15 characters of A-Z a-z 0-9 _ . - (nor . or ..): no network interface or firewall zone made for it; set a tun_name that is"
		return 0
	fi
	if [ -z "$(uci -q get "network.$iface")" ]; then
		uci -q set "network.$iface=interface"
		uci -q set "network.$iface.proto=wanbond"
		uci -q set "network.$iface.bond=$1"
	elif [ "$(uci -q get "network.$iface.proto")" = none ] && [ "$(uci -q get "network.$iface.device")" = "$tun" ]; then
		uci -q set "network.$iface.proto=wanbond"
		uci -q set "network.$iface.bond=$1"
		uci -q delete "network.$iface.device"
	fi
	# An interface of that name that is the operator's own joins no zone of ours.
	[ "$(uci -q get "network.$iface.proto")" = wanbond ] && [ "$(uci -q get "network.$iface.bond")" = "$1" ] || return 0
	if ! uci -q show firewall | grep -q "^firewall\.[^.]*\.name='wanbond'\$"; then
		zone=$(uci -q add firewall zone) || return 1
		[ -n "$zone" ] || return 1
		uci -q set "firewall.$zone.name=wanbond"
		uci -q set "firewall.$zone.input=REJECT"
		uci -q set "firewall.$zone.output=ACCEPT"
		uci -q set "firewall.$zone.forward=REJECT"
	fi
	# The zone's list of networks gets the interface once.
	zone=$(uci -q show firewall | sed -n "s/^firewall\.\([^.]*\)\.name='wanbond'\$/\1/p" | head -n 1)
	[ -n "$zone" ] || return 0
	case " $(uci -q get "firewall.$zone.network") " in
	*" $iface "*) ;;
	*) uci -q add_list "firewall.$zone.network=$iface" ;;
	esac
}
