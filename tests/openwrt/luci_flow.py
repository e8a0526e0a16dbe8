#!/usr/bin/python3
"""luci-app-wanbond in a real browser against real LuCI: the steps of
tests/netns/test_luci.sh, which brings up LuCI, the daemons and the
emulated uplinks and hands this script a URL and a control script.

    luci_flow.py URL PASSWORD SHOTS_DIR CONTROL

CONTROL is a shell script run as "CONTROL ACTION": link_down and link_up
(the emulated link of uplink lte taken away and given back), show (the
daemon's "wanbond -j show home"), pid (the client daemon's pid), reloads
(how many times it logged a reload), server_key (the server's public key),
mode ("netifd" when netifd runs the bond: then the bond is also restarted
from the status page, and Network -> Interfaces shows its interface).
Each check prints "  ok    LABEL" or "  FAIL  LABEL" as the namespace tests
do; the exit status is the number of failures (0: all passed). Each step
leaves a screenshot in SHOTS_DIR.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

# The documentation's example key: the browser's validator takes it (it is
# a key's shape), wanbondd --check refuses it (docs/configuration.md).
EXAMPLE_KEY = 'dBf/y+muaMJIvHWXGB89Z4XL05hSi9L+QEVTcahWAik='


class Flow:
    def __init__(self, url, password, shots, control):
        self.url = url.rstrip('/')
        self.password = password
        self.shots = shots
        self.control = control
        self.failures = 0
        self.shot_no = 0
        self.browser = None

    # ---- reporting ---------------------------------------------------------------------------

    def check(self, label, ok, detail=''):
        print('  %s  %s%s' % ('ok   ' if ok else 'FAIL ', label, (': ' + detail) if detail else ''), flush=True)
        if not ok:
            self.failures += 1
        return ok

    def expect(self, label, js, timeout=10):
        """Wait until js is truthy in the page; a check either way, with the time it took."""
        start = time.monotonic()
        try:
            self.browser.wait_for(js, timeout=timeout, what=label)
            return self.check(label, True, '%.1f s' % (time.monotonic() - start))
        except Exception as e:  # a timeout or a page error: the check fails, the flow goes on
            return self.check(label, False, str(e).splitlines()[0])

    def shot(self, name, full_page=True):
        self.shot_no += 1
        path = os.path.join(self.shots, '%02d-%s.png' % (self.shot_no, name))
        if full_page:  # from the top: LuCI's fixed header stays where it belongs
            self.browser.eval('window.scrollTo(0, 0)')
        self.browser.screenshot(path, full_page=full_page)
        print('      screenshot %s' % path, flush=True)

    def ctl(self, action):
        return subprocess.run(['bash', self.control, action], check=True, capture_output=True,
                              text=True).stdout.strip()

    def show(self):
        return json.loads(self.ctl('show'))[0]

    def uplink(self, name):
        return next(u for u in self.show()['uplinks'] if u['name'] == name)

    def wait_daemon(self, label, predicate, timeout=10):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = predicate()
                if last:
                    return self.check(label, True)
            except (subprocess.CalledProcessError, ValueError, StopIteration, KeyError) as e:
                last = e
            time.sleep(0.2)
        return self.check(label, False, 'last: %r' % (last,))

    # ---- the page's elements -------------------------------------------------------------------

    @staticmethod
    def row(uplink):
        return "document.querySelector('tr.wanbond-uplink[data-uplink=\"%s\"]')" % uplink

    def row_state(self, uplink, state):
        return "(%s || {}).dataset && %s.dataset.state == '%s'" % (self.row(uplink), self.row(uplink), state)

    def row_text(self, uplink):
        return "(%s ? %s.innerText : '')" % (self.row(uplink), self.row(uplink))

    def save_apply(self, label):
        """Save & Apply, and wait for LuCI to confirm it: rpcd commits with a
        rollback armed, the page confirms, says so and loads itself again.
        Leaving before the confirmation would have rpcd roll the change back
        and refuse the next apply."""
        b = self.browser
        b.eval('window.wanbondMarker = 2')
        b.click('.cbi-page-actions .cbi-button-apply')
        self.expect(label + ': LuCI confirms the apply and loads the page again',
                    "window.wanbondMarker !== 2 && document.readyState == 'complete' && "
                    "document.querySelector('.cbi-page-actions') != null", 60)

    # ---- the steps ------------------------------------------------------------------------------

    def login(self):
        b = self.browser
        b.goto(self.url + '/cgi-bin/luci/')
        self.expect('the login page', "document.querySelector('input[name=luci_password]') != null")
        b.set_value('input[name=luci_password]', self.password)
        self.shot('login')
        b.eval("document.querySelector('input[name=luci_password]').form.submit()")
        self.expect('logged in: LuCI\'s menu with "Log out"', "document.querySelector('input[name=luci_password]') == null "
                    "&& document.body.innerText.indexOf('Log out') >= 0", timeout=15)

    def status_up(self):
        b = self.browser
        b.goto(self.url + '/cgi-bin/luci/admin/services/wanbond/status')
        self.expect('status: bond home shown', "document.querySelector('.wanbond-bond[data-bond=home]') != null")
        self.expect('status: dsl and lte up', self.row_state('dsl', 'up') + ' && ' + self.row_state('lte', 'up'), 15)
        self.expect('status: each uplink with its RTT', "[...document.querySelectorAll('tr.wanbond-uplink')]"
                    ".every(r => / ms \u00b1 /.test(r.cells[2].innerText))")
        self.expect('status: the session is up', "document.querySelector('.wanbond-session').innerText.indexOf('session up') >= 0")
        # A minute of the charts, with the traffic the test runs through the tunnel.
        time.sleep(20)
        self.expect('status: the charts have a line per uplink',
                    "document.querySelectorAll('#wanbond-rate-home polyline').length >= 2 && "
                    "document.querySelectorAll('#wanbond-rtt-home polyline').length >= 2")
        self.shot('status-up')

    def link_away(self):
        b = self.browser
        b.eval('window.wanbondMarker = 1')
        self.ctl('link_down')
        start = time.monotonic()
        self.expect('lte\'s link taken away: its row turns down within 3 s', self.row_state('lte', 'down'), timeout=3)
        print('      lte shown down %.1f s after its link went' % (time.monotonic() - start), flush=True)
        self.expect('with its reason: no answer', self.row_text('lte') + ".indexOf('no answer for') >= 0", 5)
        self.check('without a reload of the page', b.eval('window.wanbondMarker === 1'))
        self.check('dsl stays up', b.eval(self.row_state('dsl', 'up')))
        self.shot('uplink-down')
        self.ctl('link_up')
        self.expect('lte\'s link given back: up again', self.row_state('lte', 'up'), timeout=15)

    def switch_off(self):
        b = self.browser
        b.click('tr.wanbond-uplink[data-uplink="dsl"] button[data-action=off]')
        self.expect('switch off: LuCI\'s confirm dialog', "document.querySelector('.wanbond-confirm') != null")
        time.sleep(0.6)  # LuCI fades the dialog in
        self.shot('confirm-switch-off', full_page=False)
        b.click('.wanbond-confirm')
        self.wait_daemon('switch off: the daemon reports dsl disabled by the operator',
                         lambda: not self.uplink('dsl')['enabled'])
        self.expect('switch off: the page shows dsl switched off', self.row_state('dsl', 'off') + ' && ' +
                    self.row_text('dsl') + ".indexOf('disabled by the operator') >= 0", 5)
        self.shot('switched-off')
        b.click('tr.wanbond-uplink[data-uplink="dsl"] button[data-action=on]')
        self.expect('switch on: the confirm dialog', "document.querySelector('.wanbond-confirm') != null")
        b.click('.wanbond-confirm')
        self.wait_daemon('switch on: the daemon has dsl back', lambda: self.uplink('dsl')['enabled'])
        self.expect('switch on: the page shows dsl up', self.row_state('dsl', 'up'), 10)

    def settings_change(self):
        b = self.browser
        pid = self.ctl('pid')
        reloads = int(self.ctl('reloads'))
        b.goto(self.url + '/cgi-bin/luci/admin/services/wanbond/settings')
        policy = '[id="widget.cbid.wanbond.home.policy"]'
        self.expect('settings: the form of bond home', "document.querySelector('%s') != null" % policy.replace("'", "\\'"))
        self.expect('settings: the public key shown', "/^[A-Za-z0-9+/]{43}=$/.test("
                    "(document.getElementById('wanbond-pubkey-home') || {}).innerText || '')")
        b.eval("document.querySelector('.cbi-tabmenu li[data-tab=scheduler] a, [data-tab=scheduler]').click()")
        b.select(policy, 'redundant')
        self.shot('settings-policy')
        self.save_apply('save & apply')
        self.wait_daemon('save & apply: the daemon reloads (a SIGHUP, same pid) with policy redundant',
                         lambda: int(self.ctl('reloads')) > reloads and self.show()['scheduler']['policy'] == 'redundant',
                         timeout=30)
        self.check('save & apply: the daemon kept its pid', self.ctl('pid') == pid)
        self.expect('save & apply: LuCI says it is applied, no check error',
                    "document.querySelector('.wanbond-check-error') == null && "
                    "document.querySelector('[id=\"widget.cbid.wanbond.home.policy\"]') != null", 30)
        self.shot('settings-applied')

    def settings_broken(self):
        b = self.browser
        pid = self.ctl('pid')
        reloads = int(self.ctl('reloads'))
        key = '[id="widget.cbid.wanbond.home.server_public_key"]'
        b.goto(self.url + '/cgi-bin/luci/admin/services/wanbond/settings')
        self.expect('broken: the form again', "document.querySelector('%s') != null" % key.replace("'", "\\'"))
        b.set_value(key, EXAMPLE_KEY)
        self.save_apply('broken')
        self.expect('broken: the page shows wanbondd --check\'s FILE:LINE error',
                    "(document.querySelector('.wanbond-check-error') || {innerText: ''}).innerText"
                    ".indexOf('home.conf.check:') >= 0", 40)
        self.shot('settings-check-error')
        time.sleep(2)
        self.check('broken: the daemon did not reload, same pid',
                   int(self.ctl('reloads')) == reloads and self.ctl('pid') == pid)
        self.check('broken: the session goes on', self.show()['session'])
        b.goto(self.url + '/cgi-bin/luci/admin/services/wanbond/settings')
        self.expect('fixed: the form again', "document.querySelector('%s') != null" % key.replace("'", "\\'"))
        b.set_value(key, self.ctl('server_key'))
        self.save_apply('fixed')
        self.expect('fixed: the error is gone', "document.querySelector('.wanbond-check-error') == null && "
                    "document.querySelector('%s') != null" % key.replace("'", "\\'"), 40)

    def restart(self):
        b = self.browser
        pid = self.ctl('pid')
        b.goto(self.url + '/cgi-bin/luci/admin/services/wanbond/status')
        self.expect('restart: the status page', "document.querySelector('button[data-action=restart]') != null")
        b.click('button[data-action=restart]')
        self.expect('restart: the confirm dialog', "document.querySelector('.wanbond-confirm') != null")
        b.click('.wanbond-confirm')
        self.wait_daemon('restart: netifd runs a new daemon (pid %s before)' % pid,
                         lambda: self.ctl('pid') not in ('', pid), timeout=20)
        self.wait_daemon('restart: the new daemon reaches the server', lambda: self.show()['session'], timeout=20)
        self.expect('restart: the page shows both uplinks up again',
                    self.row_state('dsl', 'up') + ' && ' + self.row_state('lte', 'up'), 20)

    def interfaces(self):
        b = self.browser
        b.goto(self.url + '/cgi-bin/luci/admin/network/network')
        self.expect('Network \u2192 Interfaces: wb_home, protocol "wanbond bond", on wb-home',
                    "(document.querySelector('[data-section-id=wb_home]') || {innerText: ''}).innerText"
                    ".search(/wanbond bond[\\s\\S]*wb-home|wb-home[\\s\\S]*wanbond bond/) >= 0", 20)
        self.shot('network-interfaces')

    def run(self):
        os.makedirs(self.shots, exist_ok=True)
        with Browser(width=1280, height=1000, timeout=20) as b:
            self.browser = b
            steps = [self.login, self.status_up, self.link_away, self.switch_off, self.settings_change,
                     self.settings_broken]
            if self.ctl('mode') == 'netifd':
                steps += [self.restart, self.interfaces]
            for step in steps:
                try:
                    print('      %s: the daemon pid %s, %s reloads so far' % (step.__name__, self.ctl('pid'),
                                                                           self.ctl('reloads')), flush=True)
                    step()
                except Exception as e:  # a step that cannot go on: said, shot, and the next step
                    self.check('%s: %s' % (step.__name__, type(e).__name__), False, str(e).splitlines()[0])
                    try:
                        self.shot('failed-' + step.__name__)
                    except Exception:
                        pass
            if self.failures:
                print('      the page\'s console:', flush=True)
                for line in b.console[-30:]:
                    print('        ' + line, flush=True)
        return self.failures


if __name__ == '__main__':
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(min(Flow(*sys.argv[1:]).run(), 100))
