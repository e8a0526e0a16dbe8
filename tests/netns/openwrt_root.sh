# shellcheck shell=bash
# What the tests against real OpenWrt components share (test_openwrt.sh,
# test_luci.sh): OpenWrt's file system in a private mount namespace, the
# wanbond package laid where its Makefile installs it, and the router's
# netifd configuration. Sourced; the caller has $ROOT ($OPENWRT_ROOT).

# ow_private_root DIR: in the current (private) mount namespace, a tmpfs at
# DIR for the upper layers of overlays over /usr and /etc that only this
# namespace sees; /var a tmpfs as on OpenWrt; and a /dev of the test's own,
# so that what is logged to syslog (netifd, the daemon it runs, the
# package's scripts) reaches the test's syslogd, never the host's.
ow_private_root() {
	local dir=$1 d n
	mount -t tmpfs -o mode=0755 wanbond-openwrt "$dir"
	for d in usr etc; do
		mkdir -p "$dir/$d.upper" "$dir/$d.work"
		mount -t overlay -o "lowerdir=/$d,upperdir=$dir/$d.upper,workdir=$dir/$d.work" overlay "/$d"
	done
	mount -t tmpfs -o mode=0755 var /var
	mkdir -p "$dir/hostdev"
	mount --bind /dev "$dir/hostdev"
	mount -t tmpfs -o mode=0755 dev /dev
	for n in null zero full random urandom tty; do
		touch "/dev/$n"
		mount --bind "$dir/hostdev/$n" "/dev/$n"
	done
	mkdir -p /dev/net /dev/pts /dev/shm
	touch /dev/net/tun
	mount --bind "$dir/hostdev/net/tun" /dev/net/tun
	mount --bind "$dir/hostdev/pts" /dev/pts
	mount -t tmpfs -o mode=1777 shm /dev/shm
	ln -s /proc/self/fd /dev/fd
	ln -s /proc/self/fd/0 /dev/stdin
	ln -s /proc/self/fd/1 /dev/stdout
	ln -s /proc/self/fd/2 /dev/stderr
	mkdir -p /var/run/ubus /var/log /var/lock /var/state /var/etc /tmp/.uci
	export PATH=/usr/sbin:/usr/bin:/sbin:/bin
}

# ow_install_wanbond BUILD: the package's files where openwrt/wanbond/Makefile
# installs them, with BUILD's daemon and CLI; /bin/sh is busybox ash, as
# OpenWrt's (rc.common and procd.sh need it).
ow_install_wanbond() {
	local files=openwrt/wanbond/files
	ln -sf busybox /usr/bin/sh
	install -m 0755 "$1/bin/wanbondd" /usr/sbin/wanbondd
	install -m 0755 "$1/bin/wanbond" /usr/bin/wanbond
	install -D -m 0755 "$files/wanbond.init" /etc/init.d/wanbond
	install -D -m 0644 "$files/wanbond.capabilities.json" /etc/capabilities/wanbond.json
	install -D -m 0644 "$files/wanbond-uci.sh" /usr/share/wanbond/uci.sh
	install -D -m 0644 "$files/wanbond.hotplug" /etc/hotplug.d/iface/30-wanbond
	install -D -m 0755 "$files/wanbond.proto" /usr/lib/netifd/proto/wanbond.sh
	install -D -m 0755 "$files/wanbond.defaults" /etc/uci-defaults/90-wanbond
	install -D -m 0755 "$files/wanbond.rpcd" /usr/libexec/rpcd/wanbond
	install -D -m 0644 "$files/wanbond.acl.json" /usr/share/rpcd/acl.d/wanbond.json
	mkdir -p /etc/config /etc/wanbond
}

# ow_router_network: the router's /etc/config/network over lib.sh's
# topology: lan on lan0, wan on wan1, wwan on wan2, all static. netifd owns
# the devices' addresses and routes (it flushes those lib.sh gave them when
# it claims a device), so the server's address is routed by each uplink
# here (routes srv_wan and srv_wwan). The caller appends its bonds'
# interfaces.
ow_router_network() {
	cat >/etc/config/network <<UCI
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
	option ipaddr '10.100.1.1'
	option netmask '255.255.255.0'

config interface 'wwan'
	option device 'wan2'
	option proto 'static'
	option ipaddr '10.100.2.1'
	option netmask '255.255.255.0'

config route 'srv_wan'
	option interface 'wan'
	option target '$NT_SERVER_ADDR/32'
	option gateway '10.100.1.2'
	option metric '1'

config route 'srv_wwan'
	option interface 'wwan'
	option target '$NT_SERVER_ADDR/32'
	option gateway '10.100.2.2'
	option metric '2'
UCI
}
