#!/usr/bin/env bash
# luci-app-wanbond without LuCI (what runs everywhere, CI too):
#   a. ESLint (installed into build/npm by make deps) over every view and
#      the protocol's form (htdocs/), with
#      LuCI's globals and, per file, the names its 'require' lines bind
#   b. the menu and the ACL are JSON; each view the menu names exists
#   c. each ubus method a view declares is one the rpcd plugin lists, and
#      the app's ACL grants it (reads as read, actions as write)
#   d. the translation template is the views' strings (i18n_scan.py)
# The views in a browser against real LuCI: tests/netns/test_luci.sh.
set -eu
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
source tests/assert.sh

APP=openwrt/luci-app-wanbond
VIEWS=$APP/htdocs/luci-static/resources/view
ESLINT=$BUILD/npm/node_modules/.bin/eslint
[ -x "$ESLINT" ] || { echo "test_luci_lint: missing $ESLINT (run make deps)" >&2; exit 1; }
command -v jq >/dev/null || { echo "test_luci_lint: missing jq (run make deps)" >&2; exit 1; }

# The names a view's 'require' lines bind: "require tools.widgets as widgets"
# binds widgets, "require form" binds form.
require_names() {
	sed -n "s/^'require \([A-Za-z0-9_.]*\)\( as \([A-Za-z0-9_]*\)\)\{0,1\}';\$/\1 \3/p" "$1" |
		awk '{ n = $2 != "" ? $2 : $1; sub(/.*\./, "", n); printf "%s%s", sep, n; sep = "," }'
}

echo "a. ESLint"
for f in $(find "$APP/htdocs" -name '*.js' | sort); do
	nt_expect_true "eslint $(basename "$f") (requires: $(require_names "$f"))" \
		"$ESLINT" --no-warn-ignored --max-warnings 0 --config tests/openwrt/eslint.config.mjs \
		--global "$(require_names "$f")" "$f"
done

echo "b. the menu and the ACL"
MENU=$APP/root/usr/share/luci/menu.d/luci-app-wanbond.json
ACL=$APP/root/usr/share/rpcd/acl.d/luci-app-wanbond.json
nt_expect_true "the menu is JSON" jqt . "$MENU"
nt_expect_true "the ACL is JSON" jqt . "$ACL"
for v in $(jq -r '.[] | select(.action.type == "view") | .action.path' "$MENU"); do
	nt_expect_true "the menu's view $v exists" test -f "$VIEWS/$v.js"
done
nt_expect_true "the menu's entries ask for the app's ACL" \
	jqt '."admin/services/wanbond".depends.acl == ["luci-app-wanbond"]' "$MENU"

echo "c. the views' ubus methods: listed by the plugin, granted by the ACL"
LIST=$(sh openwrt/wanbond/files/wanbond.rpcd list)
nt_expect_true "the plugin's list is JSON" jqt . <<<"$LIST"
READS=" status check public_key "
for m in $(sed -n "s/.*object: 'wanbond', method: '\([a-z_]*\)'.*/\1/p" "$VIEWS"/wanbond/*.js | sort -u); do
	nt_expect_true "$m: listed by the rpcd plugin" jqt --arg m "$m" 'has($m)' <<<"$LIST"
	case "$READS" in
	*" $m "*) grant=read ;;
	*) grant=write ;;
	esac
	nt_expect_true "$m: granted as $grant by the app's ACL" \
		jqt --arg m "$m" --arg g "$grant" '."luci-app-wanbond"[$g].ubus.wanbond | index($m) != null' "$ACL"
done

echo "d. the translation template"
nt_expect_true "po/templates/wanbond.pot has the views' strings" python3 tests/openwrt/i18n_scan.py --check "$APP"

nt_finish
