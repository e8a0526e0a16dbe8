#!/usr/bin/env bash
# The OpenWrt package's scripts against real OpenWrt components: an
# OpenWrt root file system (an x86_64 rootfs unpacked, or a build's
# build_dir/target-*/root-*) named by $OPENWRT_ROOT. Without one, skipped:
# test_openwrt_scripts.sh covers the scripts with test doubles.
#
# With one, in a copy of it under chroot (its own busybox, uci and
# /lib/functions.sh, never this machine's):
#   a. every script parses under the root's ash -n
#   b. the package's example /etc/config/wanbond, read by the root's
#      config_load (uci), written by the generator, with every uplink given
#      a mark (no netifd runs in the chroot, so no interface has a device),
#      then checked by this build's wanbondd --check
set -eu
cd "$(dirname "$0")/../.."
NT_BUILD=${1:-build}
FILES=openwrt/wanbond/files
WANBONDD=$NT_BUILD/bin/wanbondd
ROOT=${OPENWRT_ROOT:-}

if [ -z "$ROOT" ] || [ ! -f "$ROOT/lib/functions.sh" ] || [ ! -x "$ROOT/sbin/uci" ] || [ ! -x "$ROOT/bin/busybox" ]; then
	echo "skipped: OpenWrt components not found (OPENWRT_ROOT)"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "test_openwrt: chroot needs root" >&2; exit 1; }
[ -x "$WANBONDD" ] || { echo "test_openwrt: missing $WANBONDD (run make)" >&2; exit 1; }
if ! chroot "$ROOT" /bin/busybox true 2>/dev/null; then
	echo "skipped: OpenWrt components not found (OPENWRT_ROOT: its busybox does not run on this machine)"
	exit 0
fi

TMP=$(mktemp -d /tmp/wanbond-openwrt.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
source tests/checks.sh

cp -a "$ROOT" "$TMP/root"
R=$TMP/root
mkdir -p "$R/usr/share/wanbond" "$R/etc/config" "$R/etc/wanbond" "$R/tmp/wanbond-test" "$R/var/etc"
cp "$FILES/wanbond-uci.sh" "$R/usr/share/wanbond/uci.sh"
for f in wanbond.init wanbond.hotplug wanbond.defaults wanbond.rpcd; do
	cp "$FILES/$f" "$R/tmp/wanbond-test/$f"
done
(umask 077 && "$WANBONDD" --genkey >"$R/etc/wanbond/wanbond.key")
# Every uplink marked (a mark per uplink, outside mwan3's mask), the bond enabled.
sed -e "s|option enabled '0'|option enabled '1'|" -e '/option fwmark/d' "$FILES/wanbond.config" |
	awk '{ print } /^config uplink/ { n++; printf "\toption fwmark '\''0x%x'\''\n", 65536 * n }' >"$R/etc/config/wanbond"

echo "a. the root's ash -n"
for f in uci.sh; do
	nt_expect_true "ash -n $f" chroot "$R" /bin/ash -n "/usr/share/wanbond/$f"
done
for f in wanbond.init wanbond.hotplug wanbond.defaults wanbond.rpcd; do
	nt_expect_true "ash -n $f" chroot "$R" /bin/ash -n "/tmp/wanbond-test/$f"
done

echo "b. the generator with OpenWrt's config_load"
chroot "$R" /bin/ash -c '. /lib/functions.sh; . /lib/functions/network.sh; . /usr/share/wanbond/uci.sh;
	config_load wanbond; wanbond_generate home /var/etc/wanbond/home.conf' && rc=0 || rc=$?
nt_expect_true "the example, every uplink marked: written (exit $rc)" test "$rc" = 0
if [ -f "$R/var/etc/wanbond/home.conf" ]; then
	sed 's/^/      /' "$R/var/etc/wanbond/home.conf"
	sed -i "s|\"/etc/wanbond/wanbond.key\"|\"$R/etc/wanbond/wanbond.key\"|" "$R/var/etc/wanbond/home.conf"
	nt_expect_true "wanbondd --check passes" "$WANBONDD" --check -c "$R/var/etc/wanbond/home.conf"
else
	nt_expect_true "the file is there" false
fi

nt_finish
