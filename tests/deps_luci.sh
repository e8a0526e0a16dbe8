#!/bin/sh
# Installs what the browser test of luci-app-wanbond needs
# (tests/netns/test_luci.sh), when it is missing: Debian's Chromium, driven
# headless, and python3-websocket, with which tests/openwrt/cdp.py speaks
# the DevTools protocol. Not part of `make deps`: the test runs only where
# OpenWrt's and LuCI's components are (OPENWRT_ROOT), and says it was
# skipped elsewhere. Modelled on tests/deps.sh.
set -eu

PACKAGES="chromium python3-websocket"
missing=""
for pkg in $PACKAGES; do
	case $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true) in
	*" installed") ;;
	*) missing="$missing $pkg" ;;
	esac
done
if [ -z "$missing" ]; then
	echo "deps-luci: all present"
	exit 0
fi
echo "deps-luci: installing$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps-luci: not root; run: sudo apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q || echo "deps-luci: apt-get update failed; trying with the current package lists" >&2
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
