#!/usr/bin/env bash
# The rtnetlink module (daemon/rtnl.c) against the kernel: tests/tools/rtnl_probe
# calls it, `ip -j` and jq judge what it did.
#
#   rt      d0, a TUN device (persistent, no reader: up but NO-CARRIER)
#
# A TUN device rather than a dummy: it is what the daemon configures, its
# minimum MTU (68) lets the kernel refuse an absurd one (a dummy's minimum
# is 0), and some kernels are built without dummy.
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
source tests/netns/lib.sh

PROBE=$NT_BUILD/tests/tools/rtnl_probe
DEV=d0

nt_init
[ -x "$PROBE" ] || nt_die "missing $PROBE (run make tool-bins)"
nt_add_ns rt
nt_run rt ip tuntap add dev "$DEV" mode tun || nt_die "cannot create a TUN device"

# probe ARGS...: run rtnl_probe in the namespace; sets OUT (stdout and stderr) and RC.
probe() {
	RC=0
	OUT=$(nt_run rt "$PROBE" "$@" 2>&1) || RC=$?
}

# link_field JQ_EXPR: one field of d0 as `ip -j link` shows it.
link_field() { nt_run rt ip -j link show dev "$DEV" | jq -r ".[0] | $1"; }

is_up() { [ "$(link_field '.flags | any(. == "UP")')" = true ]; }
is_down() { [ "$(link_field '.flags | any(. == "UP")')" = false ]; }
same() { [ "$1" = "$2" ]; }

# addr_count FAMILY ADDR LEN [JQ_COND]: how many addresses of d0 are ADDR/LEN.
addr_count() {
	nt_run rt ip -j -"$1" addr show dev "$DEV" |
		jq --arg a "$2" --argjson l "$3" \
			"[.[0].addr_info[] | select(.local == \$a and .prefixlen == \$l ${4:+and $4})] | length"
}

# route_count FAMILY TABLE DST METRIC PROTO: routes of d0 in TABLE to DST with that metric.
route_count() {
	nt_run rt ip -j -"$1" route show table "$2" |
		jq --arg d "$3" --argjson m "$4" --arg p "$5" \
			"[.[] | select(.dst == \$d and .dev == \"$DEV\" and (.metric // 0) == \$m and .protocol == \$p)] | length"
}

echo "case link-get"
probe link-get "$DEV"
nt_expect_true "link-get: index and MTU as ip shows them ($OUT)" \
	same "$OUT" "ifindex=$(link_field .ifindex) mtu=$(link_field .mtu)"
probe link-get nosuch0
nt_expect_range "link-get of a missing interface: exit status" "$RC" 1 1
nt_expect_true "link-get of a missing interface: ENODEV ($OUT)" same "$OUT" "error: No such device"

echo "case link-set"
probe link-set "$DEV" 1400 up
nt_expect_range "link-set 1400 up: exit status" "$RC" 0 0
nt_expect_range "link-set 1400 up: MTU" "$(link_field .mtu)" 1400 1400
nt_expect_true "link-set 1400 up: link is up" is_up
probe link-get "$DEV"
nt_expect_true "link-get sees the new MTU ($OUT)" same "${OUT#* }" "mtu=1400"
probe link-set "$DEV" 0 down
nt_expect_true "link-set 0 down: link is down" is_down
nt_expect_range "link-set 0 down: MTU left alone" "$(link_field .mtu)" 1400 1400
probe link-set "$DEV" 0 up
nt_expect_true "link-set 0 up: link is up again" is_up

# The kernel's own words for the refusal, as iproute2 shows them ("Error: MSG.").
KERNEL_MSG=$(nt_run rt ip link set dev "$DEV" mtu 10 2>&1 | sed -n 's/^Error: \(.*\)\.$/\1/p') || true
probe link-set "$DEV" 10 up
nt_expect_range "link-set MTU 10: exit status" "$RC" 1 1
nt_expect_true "link-set MTU 10: the kernel's message ($OUT)" \
	same "$OUT" "error: Invalid argument: ${KERNEL_MSG:-no message from the kernel}"
nt_expect_range "link-set MTU 10: MTU unchanged" "$(link_field .mtu)" 1400 1400

echo "case addr-add"
for i in 1 2; do
	probe addr-add "$DEV" 10.255.0.1/30
	nt_expect_range "addr-add 10.255.0.1/30 (#$i): exit status" "$RC" 0 0
	nt_expect_range "addr-add 10.255.0.1/30 (#$i): on the link once" "$(addr_count 4 10.255.0.1 30)" 1 1
	probe addr-add "$DEV" fd00:255::1/64
	nt_expect_range "addr-add fd00:255::1/64 (#$i): exit status" "$RC" 0 0
	nt_expect_range "addr-add fd00:255::1/64 (#$i): once, nodad" "$(addr_count 6 fd00:255::1 64 .nodad)" 1 1
done

echo "case route-add"
# Host bits in the argument: the module must send the network address.
ROUTES=(
	"4 0 10.9.0.77/24 10.9.0.0/24 main 7"
	"4 100 10.9.1.0/24 10.9.1.0/24 100 20"
	"4 1000 10.9.2.0/24 10.9.2.0/24 1000 5"
	"6 0 fd00:9::1/64 fd00:9::/64 main 40"
	"6 100 fd00:10::/64 fd00:10::/64 100 30"
)
for r in "${ROUTES[@]}"; do
	read -r fam table arg dst show metric <<<"$r"
	for i in 1 2; do
		probe route-add "$DEV" "$arg" "$table" "$metric"
		nt_expect_range "route-add $arg table $table metric $metric (#$i): exit status" "$RC" 0 0
		nt_expect_range "route-add $arg (#$i): $dst in table $show, once" \
			"$(route_count "$fam" "$show" "$dst" "$metric" static)" 1 1
	done
done
nt_expect_range "table 100 holds no route of the main table" "$(route_count 4 100 10.9.0.0/24 7 static)" 0 0
nt_expect_range "the main table holds no route of table 100" "$(route_count 4 main 10.9.1.0/24 20 static)" 0 0

echo "case route-del"
probe route-del "$DEV" 10.9.0.0/24 0 8
nt_expect_range "route-del with another metric: exit status" "$RC" 0 0
nt_expect_range "route-del with another metric: route kept" "$(route_count 4 main 10.9.0.0/24 7 static)" 1 1
for r in "${ROUTES[@]}"; do
	read -r fam table arg dst show metric <<<"$r"
	for i in 1 2; do
		probe route-del "$DEV" "$arg" "$table" "$metric"
		nt_expect_range "route-del $arg table $table metric $metric (#$i): exit status" "$RC" 0 0
		nt_expect_range "route-del $arg (#$i): $dst gone from table $show" \
			"$(route_count "$fam" "$show" "$dst" "$metric" static)" 0 0
	done
done
# route-del removes only what it names: the kernel's prefix routes of the addresses stay.
nt_expect_range "the kernel's IPv4 prefix route stays" "$(route_count 4 main 10.255.0.0/30 0 kernel)" 1 1
nt_expect_range "the kernel's IPv6 prefix route stays" "$(route_count 6 main fd00:255::/64 256 kernel)" 1 1

nt_finish
