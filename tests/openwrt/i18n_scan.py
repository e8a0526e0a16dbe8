#!/usr/bin/env python3
"""The translation template of luci-app-wanbond, as LuCI's i18n-scan makes
them: every string the views pass to _() and every menu title, in the
order first met, each once, in gettext's .pot format.

    i18n_scan.py APP_DIR            prints the template
    i18n_scan.py --check APP_DIR    fails if po/templates/wanbond.pot is not it
"""
import json
import pathlib
import re
import sys

# _('...') with LuCI's single quotes and backslash escapes.
CALL = re.compile(r"""\b_\(\s*'((?:[^'\\]|\\.)*)'\s*[,)]""")


def js_unescape(s):
    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)",
                  lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1).startswith('u') and len(m.group(1)) == 5
                  else {'n': '\n', 't': '\t'}.get(m.group(1), m.group(1)), s)


def po_quote(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'


def scan(app):
    found = {}  # msgid -> list of "file:line"
    for f in sorted((app / 'htdocs').rglob('*.js')):
        text = f.read_text(encoding='utf-8')
        for m in CALL.finditer(text):
            line = text.count('\n', 0, m.start()) + 1
            found.setdefault(js_unescape(m.group(1)), []).append('%s:%d' % (f.relative_to(app), line))
    for f in sorted((app / 'root').rglob('menu.d/*.json')):
        for path, entry in json.loads(f.read_text(encoding='utf-8')).items():
            if 'title' in entry:
                found.setdefault(entry['title'], []).append(str(f.relative_to(app)))
    return found


def template(app):
    out = ['msgid ""', 'msgstr "Content-Type: text/plain; charset=UTF-8"', '']
    for msgid, where in scan(app).items():
        out += ['#: ' + w for w in where]
        out += ['msgid ' + po_quote(msgid), 'msgstr ""', '']
    return '\n'.join(out)


def main(argv):
    check = argv[1:2] == ['--check']
    app = pathlib.Path(argv[-1])
    text = template(app)
    if not check:
        sys.stdout.write(text)
        return 0
    pot = app / 'po' / 'templates' / 'wanbond.pot'
    if not pot.exists() or pot.read_text(encoding='utf-8') != text:
        sys.stderr.write('%s is not the views\' strings: run tests/openwrt/i18n_scan.py %s >%s\n' % (pot, app, pot))
        return 1
    print('%s: %d strings, current' % (pot, len(scan(app))))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
