#!/usr/bin/env bash
# The examples' keys are refused (daemon/example_keys.c): every base64 key
# printed in a file the project ships (conf/, docs/, the OpenWrt package,
# README.md) must be in the daemon's table, so that one added to an example
# without it fails here. Each is tried as the router's private key, and
# the examples' server key and preshared key in their own places; a copy
# of conf/router.conf with keys of its own checks.
set -u
DAEMON=${1:-build/bin/wanbondd}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "example keys: $*"; fails=$((fails + 1)); }

# check_fails FILE WHAT: wanbondd --check refuses FILE, calling the key an example.
check_fails() {
	local out
	if out=$("$DAEMON" --check -c "$1" 2>&1); then
		fail "$2: --check passed"
	elif ! grep -q "an example key printed in wanbond's documentation" <<<"$out"; then
		fail "$2: refused, but not as an example key: $out"
	fi
}

fresh_key() { (umask 077; "$DAEMON" --genkey); }
KEYS=$(grep -rhoE '(^|[^A-Za-z0-9+/])[A-Za-z0-9+/]{43}=' conf docs openwrt README.md init |
	grep -oE '[A-Za-z0-9+/]{43}=' | sort -u)
[ "$(grep -c . <<<"$KEYS")" -ge 5 ] || fail "found only $(grep -c . <<<"$KEYS") keys in the shipped files"
for key in $KEYS; do
	sed "s|^private_key = .*|private_key = \"$key\";|" conf/router.conf >"$TMP/private.conf"
	check_fails "$TMP/private.conf" "$key as the private key"
done

# The router's example with a private key of its own: the server's public key and the preshared key are examples.
OWN=$(fresh_key)
sed "s|^private_key = .*|private_key = \"$OWN\";|" conf/router.conf >"$TMP/own.conf"
check_fails "$TMP/own.conf" "the server's public key"
SERVER=$(fresh_key | "$DAEMON" --pubkey)
sed -i "s|^  public_key = .*|  public_key = \"$SERVER\";|" "$TMP/own.conf"
check_fails "$TMP/own.conf" "the preshared key"
sed -i "s|^  preshared_key = .*|  preshared_key = \"$(fresh_key)\";|" "$TMP/own.conf"
out=$("$DAEMON" --check -c "$TMP/own.conf" 2>&1) || fail "keys of its own: --check refused: $out"
# In a key file too.
echo "$KEYS" | head -n 1 >"$TMP/example.key"
chmod 600 "$TMP/example.key"
sed "s|^private_key = .*|private_key_file = \"$TMP/example.key\";|" "$TMP/own.conf" >"$TMP/file.conf"
check_fails "$TMP/file.conf" "an example key in a key file"

[ "$fails" -eq 0 ] && echo "example keys: $(grep -c . <<<"$KEYS") refused, keys of one's own accepted"
exit $((fails > 0))
