#!/bin/sh
# Installs what `make check-cross` needs (tests/cross.sh), when it is
# missing: a cross compiler per architecture, qemu-user-static, and the
# libraries the build links (OpenSSL, libconfig, libmnl, cmocka) as Debian
# multiarch packages of each architecture, with the pkg-config wrapper of
# that architecture (pkgconf:ARCH gives /usr/bin/TRIPLET-pkg-config).
# Modelled on tests/deps.sh: does nothing when everything is present.
#
#   tests/deps_cross.sh            the architectures of CROSS_ARCHES
#                                  (default: arm64 armhf mipsel s390x)
#
# Debian 12's sources (/etc/apt/sources.list.d/debian.sources) carry no
# "Architectures:" line, so every architecture of the mirror is fetched once
# dpkg knows it (dpkg --add-architecture). A sources file that restricts the
# architectures shows here as a package without a candidate: the script says
# so and fails.
set -eu

ARCHES=${CROSS_ARCHES:-arm64 armhf mipsel s390x}

# One line per architecture: the Debian architecture, its GNU triplet, the
# cross compiler's package (gcc-TRIPLET).
triplet() {
	case $1 in
	arm64) echo aarch64-linux-gnu ;;
	armhf) echo arm-linux-gnueabihf ;;
	mipsel) echo mipsel-linux-gnu ;;
	s390x) echo s390x-linux-gnu ;;
	*) echo "deps-cross: unknown architecture '$1' (known: arm64 armhf mipsel s390x)" >&2; return 1 ;;
	esac
}

# The libraries the build links, for each architecture (ARCH appended).
ARCH_PACKAGES="libssl-dev libconfig-dev libmnl-dev libcmocka-dev pkgconf"

installed() {
	case $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true) in
	*" installed") return 0 ;;
	*) return 1 ;;
	esac
}

missing=""
new_arches=""
installed qemu-user-static || missing="$missing qemu-user-static"
installed make || missing="$missing make"
for arch in $ARCHES; do
	t=$(triplet "$arch")
	installed "gcc-$t" || missing="$missing gcc-$t"
	# The C library's headers and link files, under /usr/TRIPLET (the cross
	# compiler's recommendation; libc6-dev:ARCH would tie linux-libc-dev and
	# Kerberos to the native versions).
	installed "libc6-dev-$arch-cross" || missing="$missing libc6-dev-$arch-cross"
	dpkg --print-foreign-architectures | grep -qx "$arch" || new_arches="$new_arches $arch"
	for p in $ARCH_PACKAGES; do
		installed "$p:$arch" || missing="$missing $p:$arch"
	done
done

if [ -z "$missing" ] && [ -z "$new_arches" ]; then
	echo "deps-cross: all present ($ARCHES)"
	exit 0
fi
echo "deps-cross: installing$missing${new_arches:+ (new architectures:$new_arches)}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps-cross: not root; run as root: dpkg --add-architecture for$new_arches, apt-get update, apt-get install$missing" >&2
	exit 1
fi
for arch in $new_arches; do
	dpkg --add-architecture "$arch"
done
export DEBIAN_FRONTEND=noninteractive
# A mirror in the middle of a sync can fail one index: tried three times,
# then the package lists as they are.
tries=0
until apt-get update -q; do
	tries=$((tries + 1))
	if [ "$tries" -ge 3 ]; then
		echo "deps-cross: apt-get update failed; trying with the current package lists" >&2
		break
	fi
	sleep 5
done
# A foreign architecture that the sources do not carry has no candidate.
for arch in $ARCHES; do
	if ! apt-cache policy "libc6:$arch" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
		echo "deps-cross: no package of architecture $arch in the package lists: do the sources" \
			"(/etc/apt/sources.list.d/*.sources, 'Architectures:') allow it?" >&2
		exit 1
	fi
done

# A Multi-Arch: same package is installed in one version for every
# architecture, the native one included. When the lists do not give every
# architecture the same candidate (a security update built for amd64 and not
# yet for armhf, a native library older than the mirror's), each of those
# packages (the libraries above and what they depend on) is asked for in the
# newest version that every architecture has, the native installed one
# preferred, the native package moved with it.
ALIGN="libssl-dev libssl3 libconfig-dev libconfig9 libmnl-dev libmnl0 libcmocka-dev libcmocka0 pkgconf libc6 libgcc-s1 gcc-12-base"
NATIVE=$(dpkg --print-architecture)

# One call of apt-cache for every package and architecture (each call reads
# the lists anew: seconds), then awk: for each NAME:ARCH, "C candidate" and
# "V version" for each version the mirror has (not just dpkg's status file).
TABLE=$(mktemp)
trap 'rm -f "$TABLE"' EXIT
queries=""
for name in $ALIGN; do
	for a in $NATIVE $ARCHES; do
		queries="$queries $name:$a"
	done
done
# shellcheck disable=SC2086
apt-cache policy $queries 2>/dev/null | awk -v native="$NATIVE" '
	function flush() { if (ver != "" && avail) print pkg, "V", ver; ver = ""; avail = 0 }
	/^[^ ]/ { flush(); pkg = $1; sub(/:$/, "", pkg); if (pkg !~ /:/) pkg = pkg ":" native; next }
	$1 == "Candidate:" { print pkg, "C", $2; next }
	$1 == "Installed:" || $1 == "Version" { next }
	($1 == "***" && NF == 3) || (NF == 2 && $2 ~ /^[0-9]+$/) { flush(); ver = ($1 == "***") ? $2 : $1; next }
	$1 ~ /^[0-9]+$/ && $2 != "/var/lib/dpkg/status" { avail = 1 }
	END { flush() }' >"$TABLE"
versions() { awk -v p="$1" '$1 == p && $2 == "V" { print $3 }' "$TABLE"; }
candidate() { awk -v p="$1" '$1 == p && $2 == "C" { print $3 }' "$TABLE"; }
installed_version() { installed "$1" && dpkg-query -W -f='${Version}' "$1"; }

pins=""
for name in $ALIGN; do
	arches=$ARCHES
	native_version=$(installed_version "$name:$NATIVE" || true)
	[ -n "$native_version" ] && arches="$NATIVE $arches"
	common=""
	first=1
	for a in $arches; do
		if [ "$first" = 1 ]; then
			common=$(versions "$name:$a")
			first=0
		else
			these=$(versions "$name:$a")
			common=$(printf '%s\n' "$common" | while read -r v; do
				[ -n "$v" ] && printf '%s\n' "$these" | grep -qFx -- "$v" && echo "$v"
			done || true)
		fi
	done
	chosen=""
	for v in $common; do
		if [ "$v" = "$native_version" ]; then
			chosen=$v
			break
		fi
		if [ -z "$chosen" ] || dpkg --compare-versions "$v" gt "$chosen"; then
			chosen=$v
		fi
	done
	if [ -z "$chosen" ]; then
		echo "deps-cross: no version of $name that every architecture ($arches) has" >&2
		exit 1
	fi
	# Pinned when apt would pick another version for one of them, or one
	# installed is of another version.
	for a in $arches; do
		inst=$(installed_version "$name:$a" || true)
		if { [ -z "$inst" ] && [ "$(candidate "$name:$a")" != "$chosen" ]; } ||
			{ [ -n "$inst" ] && [ "$inst" != "$chosen" ]; }; then
			for b in $arches; do
				pins="$pins $name:$b=$chosen"
			done
			break
		fi
	done
done
if [ -n "$pins" ]; then
	echo "deps-cross: one version for every architecture:$pins"
	# The missing packages that a pin names are asked for by the pin alone.
	rest=""
	for p in $missing; do
		case " $pins " in
		*" $p="*) ;;
		*) rest="$rest $p" ;;
		esac
	done
	missing="$rest$pins"
fi
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends --allow-downgrades $missing
