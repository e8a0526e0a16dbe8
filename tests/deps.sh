#!/bin/sh
# Installs the Debian packages that building and testing wanbond need, when
# they are missing. `make check`, `make demo` and `make bench` run it first, so
# a fresh Debian machine needs nothing else.
set -eu
cd "$(dirname "$0")/.."

# One line per package, with what needs it.
PACKAGES="
gcc             build
make            build
pkg-config      build
libssl-dev      build: OpenSSL 3 (crypto)
libconfig-dev   build: the configuration file
libmnl-dev      build: netlink
libsystemd-dev  build: sd_notify (optional: SYSTEMD=0 builds without)
libcmocka-dev   unit tests
clang           fuzz harnesses (libFuzzer)
libclang-rt-14-dev  fuzz harnesses (libFuzzer runtime)
iproute2        namespace tests: ip netns, veth
ethtool         namespace tests: offloads off around the emulator
iperf3          namespace tests and benchmark: traffic
iputils-ping    namespace tests: RTT
jq              namespace tests: reading iperf3 JSON
busybox         namespace tests: the OpenWrt scripts under ash
valgrind        benchmark: instructions per packet (callgrind)
perl-base       namespace tests: a TCP sink for files
procps          namespace tests: sysctl, pkill-free process checks
systemd         namespace tests: systemd-analyze verify and security of the units
mptcpize        benchmark: runs iperf3 over kernel MPTCP, the contender
gnuplot-nox     benchmark: the compare chart and the latency CDFs (PNG)
wireguard-go    benchmark: the CPU bench's anchor, userspace WireGuard (BENCH=cpu)
wireguard-tools benchmark: wg, keys and configuration of wireguard-go (BENCH=cpu)
lua5.1          namespace tests: the OpenWrt Prometheus collector (openwrt/wanbond/files/wanbond.lua) under Lua 5.1
lua-cjson       namespace tests: the collector's JSON decoder (cjson, as OpenWrt's lua-cjson)
nodejs          LuCI app test: ESLint over the views (node and npm; ESLint itself from the npm registry, below)
python3         LuCI app test: the translation template (tests/openwrt/i18n_scan.py)
dpkg-dev        Debian package: dpkg-buildpackage (make deb)
debhelper       Debian package: dh, compat 13 (make deb)
lintian         Debian package test: the package's checks
man-db          unit tests: the man pages rendered and checked; systemd-analyze verify opens the units' Documentation= pages
"

missing=""
for pkg in $(printf '%s\n' "$PACKAGES" | awk 'NF { print $1 }'); do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $pkg" ;;
	esac
done

# ESLint for the LuCI app's views, at the versions of tests/openwrt's
# package-lock.json, in build/npm (Debian's eslint package does not run on
# the Node.js of this machine). Again only when the lock file changed.
npm_deps() {
	local dir=${WANBOND_NPM_DIR:-build/npm}
	if [ -x "$dir/node_modules/.bin/eslint" ] && cmp -s tests/openwrt/package-lock.json "$dir/package-lock.json"; then
		return 0
	fi
	echo "deps: npm ci (ESLint) into $dir"
	mkdir -p "$dir"
	cp tests/openwrt/package.json tests/openwrt/package-lock.json "$dir/"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || {
		echo "deps: npm ci failed in $dir (is the npm registry reachable?)" >&2
		return 1
	}
}

if [ -z "$missing" ]; then
	echo "deps: all present"
	npm_deps
	exit
fi
echo "deps: installing$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: not root; run: sudo apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# iperf3's package asks whether to start a daemon; the answer is no.
echo "iperf3 iperf3/start_daemon boolean false" | debconf-set-selections 2>/dev/null || true
apt-get update -q || echo "deps: apt-get update failed; trying with the current package lists" >&2
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
npm_deps
