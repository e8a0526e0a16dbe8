# shellcheck shell=bash
# Network-namespace test bench of wanbond: sourced by the namespace tests,
# `make demo` and `make bench`. It builds this topology and always tears it
# down (trap on exit), killing only the processes it started:
#
#                         +-- em1 (linkem) --+
#   lan ---- router ------+-- em2 (linkem) --+------ vps ---- srv
#                         +-- emN (linkem) --+
#
#   lan     eth0 10.1.0.2/24, default via 10.1.0.1
#   router  lan0 10.1.0.1/24; wanK 10.100.K.1/24 and fd00:100:K::1/64, one per uplink;
#           the server address 10.200.0.1 is routed over every uplink (metric K)
#   emK     a (towards the router), b (towards the vps); linkem forwards between them
#   vps     upK 10.100.K.2/24 and fd00:100:K::2/64; lo 10.200.0.1/32 (the "public"
#           address a client reaches over any uplink); srv0 10.2.0.1/24
#   srv     eth0 10.2.0.2/24, default via 10.2.0.1
#
# Every namespace is named "$NT_PREFIX<name>", with NT_PREFIX="wbt-<pid>-", so two
# runs cannot collide and the namespaces of a crashed run can be recognised and
# removed (nt_clean_stale). The addresses exist only inside these namespaces.

NT_PREFIX=${NT_PREFIX:-wbt-$$-}
NT_BUILD=${NT_BUILD:-build}
NT_LINKEM=${NT_LINKEM:-$NT_BUILD/bin/linkem}
NT_TMP=""
NT_PIDS=()
NT_NAMESPACES=()
NT_UPLINKS=0
NT_SERVER_ADDR=10.200.0.1

nt_log() { printf '%s\n' "$*" >&2; }
nt_die() { nt_log "netns: $*"; exit 1; }

nt_ns() { printf '%s%s' "$NT_PREFIX" "$1"; }

# nt_run NAME CMD...: run CMD inside namespace NAME.
nt_run() {
	local ns; ns=$(nt_ns "$1"); shift
	ip netns exec "$ns" "$@"
}

# nt_bg NAME LOG CMD...: start CMD in the background in NAME, output to LOG; sets NT_LAST_PID.
nt_bg() {
	local ns log=$2; ns=$(nt_ns "$1"); shift 2
	ip netns exec "$ns" "$@" >"$log" 2>&1 &
	NT_LAST_PID=$!
	NT_PIDS+=("$NT_LAST_PID")
}

# nt_stop PID: end a process this bench started and reap it.
nt_stop() {
	local pid=$1
	kill -TERM "$pid" 2>/dev/null || return 0
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

nt_cleanup() {
	local rc=$?
	set +e
	for pid in "${NT_PIDS[@]}"; do
		nt_stop "$pid"
	done
	for ns in "${NT_NAMESPACES[@]}"; do
		# Anything still running in our namespaces was started by this run
		# (in a subshell, say): end it before the namespace goes.
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "$NT_TMP" ] && rm -rf "$NT_TMP"
	return $rc
}

# Remove the namespaces of earlier runs whose process is gone (a crash, a kill -9).
nt_clean_stale() {
	local ns pid
	for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }' | grep '^wbt-[0-9]*-'); do
		pid=${ns#wbt-}; pid=${pid%%-*}
		kill -0 "$pid" 2>/dev/null && continue
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$p" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null && nt_log "netns: removed stale namespace $ns"
	done
	return 0
}

# nt_init: check we can run, and arrange the teardown.
nt_init() {
	[ "$(id -u)" -eq 0 ] || nt_die "namespace tests need root"
	for tool in ip ethtool iperf3 ping jq awk; do
		command -v "$tool" >/dev/null || nt_die "missing $tool (run make deps)"
	done
	[ -x "$NT_LINKEM" ] || nt_die "missing $NT_LINKEM (run make)"
	NT_TMP=$(mktemp -d /tmp/wanbond-netns.XXXXXX)
	trap nt_cleanup EXIT
	trap 'exit 130' INT TERM
	nt_clean_stale
}

nt_add_ns() {
	local ns; ns=$(nt_ns "$1")
	ip netns add "$ns" || nt_die "cannot create namespace $ns"
	NT_NAMESPACES+=("$ns")
	nt_run "$1" ip link set dev lo up
	# Several uplinks make asymmetric paths: no reverse-path filter.
	nt_run "$1" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
	# No duplicate address detection: every address here is unique by construction,
	# and a tentative link-local address would hold neighbour discovery for a second.
	nt_run "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
}

# nt_veth NS1 IF1 NS2 IF2: a veth pair between two namespaces.
nt_veth() {
	ip link add name "$2" netns "$(nt_ns "$1")" type veth peer name "$4" netns "$(nt_ns "$3")" ||
		nt_die "cannot create veth $1/$2 - $3/$4"
}

# A userspace emulator must see real frames: no TSO/GSO/GRO super-packets and
# no partial checksums on either side of it.
nt_offloads_off() {
	nt_run "$1" ethtool -K "$2" tso off gso off gro off tx off rx off sg off >/dev/null 2>&1 ||
		nt_die "cannot turn offloads off on $1/$2"
}

nt_build_base() {
	local n
	for n in lan router vps srv; do nt_add_ns "$n"; done
	nt_run router sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	nt_run vps sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1

	nt_veth lan eth0 router lan0
	nt_run lan ip addr add 10.1.0.2/24 dev eth0
	nt_run lan ip link set dev eth0 up
	nt_run lan ip route add default via 10.1.0.1
	nt_run router ip addr add 10.1.0.1/24 dev lan0
	nt_run router ip link set dev lan0 up

	nt_veth srv eth0 vps srv0
	nt_run srv ip addr add 10.2.0.2/24 dev eth0
	nt_run srv ip link set dev eth0 up
	nt_run srv ip route add default via 10.2.0.1
	nt_run vps ip addr add 10.2.0.1/24 dev srv0
	nt_run vps ip link set dev srv0 up
	nt_run vps ip addr add "$NT_SERVER_ADDR/32" dev lo
}

# nt_add_uplink K [ROUTER]: ROUTER's wanK <-> emK (a, b) <-> vps upK. No emulator yet.
nt_add_uplink() {
	local k=$1 router=${2:-router} em="em$1"
	nt_add_ns "$em"
	# The emulator's own stack must stay silent: no IPv6 autoconfiguration there.
	nt_run "$em" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	nt_veth "$router" "wan$k" "$em" a
	nt_veth "$em" b vps "up$k"
	nt_offloads_off "$router" "wan$k"
	nt_offloads_off "$em" a
	nt_offloads_off "$em" b
	nt_offloads_off vps "up$k"
	nt_run "$em" ip link set dev a up
	nt_run "$em" ip link set dev b up
	nt_run "$router" ip addr add "10.100.$k.1/24" dev "wan$k"
	nt_run "$router" ip addr add "fd00:100:$k::1/64" dev "wan$k" nodad
	nt_run "$router" ip link set dev "wan$k" up
	nt_run vps ip addr add "10.100.$k.2/24" dev "up$k"
	nt_run vps ip addr add "fd00:100:$k::2/64" dev "up$k" nodad
	nt_run vps ip link set dev "up$k" up
	nt_run "$router" ip route add "$NT_SERVER_ADDR/32" via "10.100.$k.2" dev "wan$k" metric "$k"
	NT_UPLINKS=$((NT_UPLINKS > k ? NT_UPLINKS : k))
}

# nt_add_direct_uplink K: like nt_add_uplink, but wanK and upK are one veth
# pair, with no emulator between them and the offloads left on: an uplink at
# the speed of the host, to measure the daemons' own cost.
nt_add_direct_uplink() {
	local k=$1
	nt_veth router "wan$k" vps "up$k"
	nt_run router ip addr add "10.100.$k.1/24" dev "wan$k"
	nt_run router ip link set dev "wan$k" up
	nt_run vps ip addr add "10.100.$k.2/24" dev "up$k"
	nt_run vps ip link set dev "up$k" up
	nt_run router ip route add "$NT_SERVER_ADDR/32" via "10.100.$k.2" dev "wan$k" metric "$k"
	NT_UPLINKS=$((NT_UPLINKS > k ? NT_UPLINKS : k))
}

# nt_add_router NAME LAN SUBNET: a second router with its own LAN host, e.g.
# "router2 lan2 10.3.0": LAN 10.3.0.2/24 behind NAME's lan0 10.3.0.1/24.
nt_add_router() {
	local router=$1 lan=$2 net=$3
	nt_add_ns "$router"
	nt_add_ns "$lan"
	nt_run "$router" sysctl -qw net.ipv4.ip_forward=1
	nt_veth "$lan" eth0 "$router" lan0
	nt_run "$lan" ip addr add "$net.2/24" dev eth0
	nt_run "$lan" ip link set dev eth0 up
	nt_run "$lan" ip route add default via "$net.1"
	nt_run "$router" ip addr add "$net.1/24" dev lan0
	nt_run "$router" ip link set dev lan0 up
}

# nt_topology N: the whole drawing above with N uplinks, emulators not started.
nt_topology() {
	nt_build_base
	for k in $(seq "$1"); do nt_add_uplink "$k"; done
}

# nt_uplink_start K PARAM...: run linkem on uplink K (a = router side, so a2b
# is the upload direction) and wait until it forwards.
nt_uplink_start() {
	local k=$1 log="$NT_TMP/linkem$1.log"; shift
	nt_bg "em$k" "$log" "$NT_LINKEM" a b "$@"
	eval "NT_LINKEM_PID_$k=$NT_LAST_PID"
	for _ in $(seq 100); do
		grep -q '^linkem: ready' "$log" 2>/dev/null && return 0
		kill -0 "$NT_LAST_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$log" >&2
	nt_die "linkem on uplink $k did not start"
}

# nt_uplink_stop K: end uplink K's emulator (its final counters stay in its log).
nt_uplink_stop() {
	local pid_var="NT_LINKEM_PID_$1"
	[ -n "${!pid_var:-}" ] && nt_stop "${!pid_var}"
	eval "NT_LINKEM_PID_$1="
}

# nt_uplink_counter K DIR NAME: one counter of uplink K's emulator, read now (SIGUSR1).
nt_uplink_counter() {
	local k=$1 dir=$2 name=$3 log="$NT_TMP/linkem$1.log" pid_var="NT_LINKEM_PID_$1" before
	before=$(grep -c "^$dir " "$log" || true)
	if [ -n "${!pid_var:-}" ]; then
		kill -USR1 "${!pid_var}"
		for _ in $(seq 50); do
			[ "$(grep -c "^$dir " "$log")" -gt "$before" ] && break
			sleep 0.02
		done
	fi
	grep "^$dir " "$log" | tail -n 1 | tr ' ' '\n' | awk -F= -v k="$name" '$1 == k { print $2 }'
}

# nt_wait_listen NAME PORT: wait until a TCP port listens in namespace NAME.
nt_wait_listen() {
	for _ in $(seq 100); do
		nt_run "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.05
	done
	nt_die "nothing listens on port $2 in $1"
}

# nt_iperf_server NAME ADDR PORT: a one-shot iperf3 server.
nt_iperf_server() {
	nt_bg "$1" "$NT_TMP/iperf3-server-$3.log" iperf3 -s -1 -B "$2" -p "$3"
	nt_wait_listen "$1" "$3"
}

# ---- checks -----------------------------------------------------------------
# The checks and the summary line (nt_expect_range, nt_expect_true, nt_finish).
source "$(dirname "${BASH_SOURCE[0]}")/../assert.sh"

# ---- measurements -----------------------------------------------------------

# nt_ping_rtt NAME ADDR [COUNT]: mean RTT in ms, after one warm-up ping (neighbour resolution).
nt_ping_rtt() {
	local count=${3:-20}
	nt_run "$1" ping -q -c 1 -W 3 "$2" >/dev/null 2>&1 || true
	nt_run "$1" ping -q -c "$count" -i 0.05 -W 3 "$2" 2>/dev/null |
		awk -F'[/ =]+' '/^rtt|^round-trip/ { print $7 }'
}

# nt_wait_ping NAME ADDR SECONDS: pings ADDR from NAME every 20 ms until one is
# answered; prints the ms from now to that answer (empty: none within SECONDS).
# ping gives up at its first "net unreachable" (a router with no route while
# its daemon is away): it is started again until the deadline.
nt_wait_ping() {
	local ns=$1 addr=$2 secs=$3 t0 deadline answered=""
	t0=$(date +%s%N)
	deadline=$((t0 + secs * 1000000000))
	while [ -z "$answered" ] && [ "$(date +%s%N)" -lt "$deadline" ]; do
		answered=$(nt_run "$ns" ping -n -D -i 0.02 -W 1 -w "$secs" "$addr" 2>/dev/null |
			awk -F'[][]' '/bytes from/ { print $2; exit }' || true)
		[ -n "$answered" ] || sleep 0.02
	done
	[ -n "$answered" ] && awk -v a="$answered" -v t0="$t0" 'BEGIN { printf "%d\n", a * 1000 - t0 / 1000000 }'
	return 0
}

# nt_binomial_interval N P CONF: the central CONF interval "LO HI" of the number
# of successes of Binomial(N, P), exact (summing the distribution in log space).
nt_binomial_interval() {
	awk -v n="$1" -v p="$2" -v conf="$3" 'BEGIN {
		tail = (1 - conf) / 2
		if (p <= 0) { print 0, 0; exit }
		if (p >= 1) { print n, n; exit }
		lp = n * log(1 - p); cdf = 0; lo = -1; hi = n
		for (k = 0; k <= n; k++) {
			cdf += exp(lp)
			if (lo < 0 && cdf > tail) lo = k
			if (cdf >= 1 - tail) { hi = k; break }
			lp += log((n - k) / (k + 1)) + log(p / (1 - p))
		}
		print lo, hi
	}'
}

# nt_wait_for SECONDS CMD...: until CMD succeeds (polled every 50 ms); 0 if it did.
nt_wait_for() {
	local deadline=$(($(date +%s%N) + $1 * 1000000000)); shift
	while [ "$(date +%s%N)" -lt "$deadline" ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	return 1
}

# nt_median NUMBER...: the median of the numbers (the mean of the middle two
# of an even count). A throughput check on this shared machine compares
# medians of runs taken side by side, so one run slowed by a neighbour does
# not decide it.
nt_median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# nt_free_port NAME FROM: the first TCP port from FROM on that nothing in NAME listens on.
nt_free_port() {
	local port=$2
	while nt_run "$1" ss -Hltn "sport = :$port" | grep -q .; do
		port=$((port + 1))
	done
	echo "$port"
}

# nt_iperf CLIENT_NS SERVER_NS ADDR ARGS...: one iperf3 test from CLIENT_NS to
# a fresh one-shot server at ADDR in SERVER_NS, JSON on stdout. A fresh server
# on a free port per test: a server whose last packets were lost in an
# emulator that was restarted would answer "busy" for a long time. Concurrent
# callers set NT_PORT_BASE apart so they cannot pick the same port.
NT_PORT_BASE=5201
nt_iperf() {
	local client=$1 server=$2 addr=$3 port; shift 3
	port=$(nt_free_port "$server" "$NT_PORT_BASE")
	nt_iperf_server "$server" "$addr" "$port"
	# A path that goes dead for good (a trace's long outage) stalls iperf3's control connection: NT_IPERF_TIMEOUT bounds it.
	nt_run "$client" timeout "${NT_IPERF_TIMEOUT:-0}" iperf3 -J -c "$addr" -p "$port" "$@" 2>/dev/null || true
}

# ---- wanbond daemons ----------------------------------------------------------
NT_WANBONDD=${NT_WANBONDD:-$NT_BUILD/bin/wanbondd}

# nt_wb_keys NAME: a key pair in $NT_TMP/NAME.key and NAME.pub.
nt_wb_keys() {
	# As wg genkey's users do: a key file only its owner can read (else the daemon warns).
	(umask 077 && "$NT_WANBONDD" --genkey >"$NT_TMP/$1.key")
	"$NT_WANBONDD" --pubkey <"$NT_TMP/$1.key" >"$NT_TMP/$1.pub"
}

# nt_wb_client_conf FILE NAME TUN_ADDR ROUTE UPLINK... : a client config for
# the bond NAME (keys $NT_TMP/NAME.key, server key $NT_TMP/server.pub), with
# uplinks given as "name:wanK" or "name:wanK:backup"; extra settings can be
# appended to FILE afterwards (libconfig takes them in any order). The control
# sockets of a test's daemons live in $NT_TMP/ctl-client and ctl-server.
nt_wb_client_conf() {
	local file=$1 name=$2 addr=$3 route=$4 up sep="" list=""; shift 4
	for up in "$@"; do
		IFS=: read -r uname ifname flag <<<"$up"
		local extra=""
		[ "$flag" = backup ] && extra=" backup = true;"
		list+="$sep{ name = \"$uname\"; interface = \"$ifname\";$extra }"
		sep=", "
	done
	cat >"$file" <<CONF
role = "client";
name = "$name";
private_key_file = "$NT_TMP/$name.key";
server = { address = "$NT_SERVER_ADDR"; port = 51820; public_key = "$(cat "$NT_TMP/server.pub")"; };
tun = { name = "wb-$name"; address = [ "$addr" ]; };
routes = [ "$route" ];
uplinks = ( $list );
control = { directory = "$NT_TMP/ctl-client"; };
CONF
}

# nt_wb_server_conf FILE PEER... : a server config (key $NT_TMP/server.key),
# peers given as "name:tun_addr:route" (key $NT_TMP/name.pub).
nt_wb_server_conf() {
	local file=$1 p sep="" list=""; shift
	for p in "$@"; do
		IFS=: read -r pname paddr proute <<<"$p"
		list+="$sep{ name = \"$pname\"; public_key = \"$(cat "$NT_TMP/$pname.pub")\"; tun = { name = \"wb-$pname\"; address = [ \"$paddr\" ]; }; routes = [ \"$proute\" ]; }"
		sep=", "
	done
	cat >"$file" <<CONF
role = "server";
name = "vps";
private_key_file = "$NT_TMP/server.key";
listen = { port = 51820; };
peers = ( $list );
control = { directory = "$NT_TMP/ctl-server"; };
CONF
}

# nt_wb_home_pair: keys and configs for the tests' usual pair: a client bond
# "home" (tun 10.255.0.2/30, srv's 10.2.0.0/24 through it) with uplinks
# dsl:wan1 and lte:wan2, and a server with home as its peer (tun
# 10.255.0.1/30, lan's 10.1.0.0/24). Sets SCONF and CCONF, the files.
nt_wb_home_pair() {
	nt_wb_keys server
	nt_wb_keys home
	SCONF=$NT_TMP/vps.conf
	CCONF=$NT_TMP/home.conf
	nt_wb_server_conf "$SCONF" home:10.255.0.1/30:10.1.0.0/24
	nt_wb_client_conf "$CCONF" home 10.255.0.2/30 10.2.0.0/24 dsl:wan1 lte:wan2
}

# nt_wb_start NS CONF [ARGS...]: starts wanbondd (log in CONF.log); sets NT_LAST_PID.
nt_wb_start() {
	local ns=$1 conf=$2; shift 2
	nt_bg "$ns" "$conf.log" "$NT_WANBONDD" -c "$conf" "$@"
}

# nt_wait_log FILE PATTERN [SECONDS]: wait until an extended regex appears in FILE.
nt_wait_log() {
	local deadline=$(( $(date +%s%N) + ${3:-10} * 1000000000 ))
	while [ "$(date +%s%N)" -lt "$deadline" ]; do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# nt_wb_wait_up LOG N [SECONDS]: wait until N uplinks of the bond "home" have
# come up (from any state: a first start logs "down -> up"); 1 if they have
# not within SECONDS (10).
nt_wb_wait_up() {
	local n deadline=$(( $(date +%s%N) + ${3:-10} * 1000000000 ))
	while :; do
		n=$(grep -oE "^<[0-9]>home/[^:]*: [a-z]+ -> up" "$1" 2>/dev/null | cut -d: -f1 | sort -u | wc -l)
		[ "$n" -ge "$2" ] && return 0
		[ "$(date +%s%N)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

# nt_wb_status PID LOG: asks the daemon for its counters (SIGUSR1) and prints
# the new status lines once they are all written.
nt_wb_status() {
	local pid=$1 log=$2 before after
	before=$(wc -l <"$log")
	kill -USR1 "$pid"
	for _ in $(seq 100); do
		sleep 0.05
		after=$(wc -l <"$log")
		[ "$after" -gt "$before" ] && sleep 0.1 && break
	done
	tail -n +"$((before + 1))" "$log" | grep -E 'datagrams [0-9]|socket |, session|no session|endpoint .*, rtt|cwnd [0-9]|counters: '
}

# nt_wb_field TEXT NAME: the number after NAME in a status text ("replays 3" -> 3).
nt_wb_field() {
	grep -oE -- "$2 [0-9]+" <<<"$1" | head -n 1 | awk '{ print $NF }'
}

# nt_wb_counters TEXT WHO: the counter lines of a bond ("home") or an uplink
# ("home/dsl") in a status text, named as in wanbond stats ("replays 3").
nt_wb_counters() {
	grep -E -- "^<[0-9]>$2: counters: " <<<"$1" || true
}

# nt_wb_counter PID LOG NAME: one counter of the bond "home" of that daemon, now.
nt_wb_counter() { nt_wb_field "$(nt_wb_counters "$(nt_wb_status "$1" "$2")" home)" "$3"; }

# nt_ping_answered OUTPUT: the replies ping's summary counts in its output.
nt_ping_answered() {
	awk '/received/ { for (i = 1; i <= NF; i++) if ($i ~ /^received/) print $(i - 1) }' <<<"$1"
}

# ---- files over TCP ------------------------------------------------------------

# nt_tcp_sink NAME ADDR PORT OUT: a one-shot TCP listener in NAME writing what
# it receives (up to the sender's FIN) to OUT and then "received N" to its log
# ($NT_TMP/sink-PORT.log); sets NT_LAST_PID. perl is essential on Debian;
# iperf3 -F truncates the received file (esnet/iperf#798).
nt_tcp_sink() {
	# shellcheck disable=SC2016
	nt_bg "$1" "$NT_TMP/sink-$3.log" perl -MIO::Socket::INET -e '
		my $l = IO::Socket::INET->new(LocalAddr => $ARGV[0], LocalPort => $ARGV[1], Listen => 1, ReuseAddr => 1) or die "listen: $!";
		my $c = $l->accept or die "accept: $!";
		open(my $f, ">", $ARGV[2]) or die "$ARGV[2]: $!"; binmode $f;
		my ($buf, $n, $total) = ("", 0, 0);
		while (($n = sysread($c, $buf, 65536))) { print $f $buf; $total += $n }
		close $f or die "close: $!";
		print "received $total\n";' "$2" "$3" "$4"
	nt_wait_listen "$1" "$3"
}

# nt_tcp_send NAME ADDR PORT FILE: sends FILE over TCP from NAME (background, at most 60 s); sets NT_LAST_PID.
nt_tcp_send() {
	# shellcheck disable=SC2016
	nt_bg "$1" "$NT_TMP/send-$3.log" timeout 60 bash -c 'exec 3>"/dev/tcp/$1/$2" && cat "$3" >&3' sender "$2" "$3" "$4"
}
