#!/usr/bin/python3
"""Drive headless Chromium over the Chrome DevTools Protocol (CDP).

This is the small browser driver used by the project's browser test: it
starts a throw-away headless Chromium, loads pages, clicks and fills in
forms, waits for text to appear and takes screenshots.

Why talk CDP directly instead of using Puppeteer/Playwright/Selenium?
Those pull in npm packages or downloaded browser builds.  CDP is just JSON
over a websocket, so everything needed comes from Debian packages:

    apt-get install chromium python3-websocket

Use the system interpreter (/usr/bin/python3): that is where Debian's
python3-websocket (websocket-client, ``import websocket``) is installed; a
pyenv or venv python earlier in PATH will not see it.

Example:

    from cdp import Browser
    with Browser() as b:
        b.goto('http://127.0.0.1:8080/')
        b.set_value('#user', 'root')
        b.click('#login')
        b.wait_text('Status')
        b.screenshot('/tmp/status.png')

On failure, ``b.console`` holds the page's console output and uncaught JS
exceptions, which is usually the quickest way to see what went wrong.

Self-test: /usr/bin/python3 cdp.py --selftest
"""

import base64
import collections
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import websocket


class CDPError(RuntimeError):
    """Chromium answered a command with an error."""


class JSError(RuntimeError):
    """JavaScript evaluated in the page threw an exception."""


def _js_str(value):
    """Quote a Python string as a JS string literal (JSON is valid JS)."""
    return json.dumps(value)


def _short(text, limit=200):
    text = str(text)
    return text if len(text) <= limit else text[:limit] + '...'


class Browser:
    """One headless Chromium process with one page, controlled over CDP."""

    def __init__(self, chromium='/usr/bin/chromium', width=1280, height=900,
                 timeout=15):
        self.timeout = timeout
        self.console = []          # console output + JS exceptions, as text
        self._events = collections.deque()   # events seen while waiting
        self._next_id = 0
        self._proc = None
        self.pid = None            # chromium's pid, kept after close()
        self._ws = None
        self._tmp = tempfile.mkdtemp(prefix='cdp-chromium-')
        try:
            self._start(chromium, width, height)
            port = self._read_devtools_port()
            self._ws = self._connect_page(port)
            self.send('Page.enable')      # for Page.loadEventFired
            self.send('Runtime.enable')   # for console / exception events
            self.send('Log.enable')       # for "failed to load resource" etc.
        except BaseException:
            self.close()   # never leave a browser behind a failed start
            raise

    # --- process lifecycle -------------------------------------------------

    def _start(self, chromium, width, height):
        profile = os.path.join(self._tmp, 'profile')
        self._log_path = os.path.join(self._tmp, 'chromium.log')
        args = [
            chromium,
            '--headless=new',
            '--no-sandbox',               # tests often run as root / in CI
            '--disable-gpu',
            '--no-first-run',
            '--remote-debugging-port=0',  # let Chromium pick a free port
            '--user-data-dir=' + profile,
            '--window-size=%d,%d' % (width, height),
            'about:blank',
        ]
        # Chromium is chatty on stderr (dbus errors etc.); keep it in a file
        # so it only shows up when startup fails.
        # Chromium always starts a crashpad handler whose database lives in
        # $XDG_CONFIG_HOME/chromium (no flag turns it off); point that into
        # our temp dir so nothing is left in the user's home.
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(self._tmp, 'cfg'))
        with open(self._log_path, 'wb') as log:
            self._proc = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, env=env)
        # /usr/bin/chromium is a shell wrapper that ends in `exec`, so this
        # pid is the browser itself.
        self.pid = self._proc.pid
        self._profile = profile

    def _startup_log(self):
        try:
            with open(self._log_path, errors='replace') as f:
                return f.read()[-2000:]
        except OSError:
            return ''

    def _read_devtools_port(self):
        """Wait for Chromium to write DevToolsActivePort; return the port.

        With --remote-debugging-port=0 this file is the only reliable way to
        learn the port (first line) and browser ws path (second line).
        """
        path = os.path.join(self._profile, 'DevToolsActivePort')
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError('chromium exited with %s during startup:\n%s'
                                   % (self._proc.returncode,
                                      self._startup_log()))
            try:
                with open(path) as f:
                    lines = f.read().split('\n')
                # The file may be seen half-written; need both lines.
                if len(lines) >= 2 and lines[0].isdigit() and lines[1]:
                    self._browser_ws_path = lines[1]
                    return int(lines[0])
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        raise TimeoutError('chromium did not write %s within %ss:\n%s'
                           % (path, self.timeout, self._startup_log()))

    def _connect_page(self, port):
        """Return a websocket to a page target, creating one if needed."""
        base = 'http://127.0.0.1:%d' % port
        with urllib.request.urlopen(base + '/json/list',
                                    timeout=self.timeout) as r:
            targets = json.load(r)
        pages = [t for t in targets if t.get('type') == 'page'
                 and t.get('webSocketDebuggerUrl')]
        if pages:
            url = pages[0]['webSocketDebuggerUrl']
        else:
            target_id = self._create_target(port)
            url = 'ws://127.0.0.1:%d/devtools/page/%s' % (port, target_id)
        return self._ws_connect(url)

    def _create_target(self, port):
        """Open about:blank via the browser endpoint (Target.createTarget)."""
        ws = self._ws_connect('ws://127.0.0.1:%d%s'
                              % (port, self._browser_ws_path))
        try:
            ws.send(json.dumps({'id': 1, 'method': 'Target.createTarget',
                                'params': {'url': 'about:blank'}}))
            while True:
                msg = json.loads(ws.recv())
                if msg.get('id') == 1:
                    if 'error' in msg:
                        raise CDPError('Target.createTarget: %s'
                                       % msg['error'])
                    return msg['result']['targetId']
        finally:
            ws.close()

    def _ws_connect(self, url):
        # Since Chromium 111 the DevTools socket checks the Origin header
        # against --remote-allow-origins; sending none sidesteps that check
        # whatever this version's rules for localhost origins are.
        return websocket.create_connection(url, timeout=self.timeout,
                                           suppress_origin=True)

    def close(self):
        """Stop the browser we started and remove its temp dir. Idempotent."""
        if self._ws is not None:
            try:
                self._ws.close()
            except Exception:
                pass     # the browser may already be gone; nothing to save
            self._ws = None
        if self._proc is not None:
            # Only ever signal our own process: its children (zygote,
            # renderers) exit with it.
            if self._proc.poll() is None:
                self._proc.terminate()
                try:
                    self._proc.wait(5)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait()
            self._proc = None
        if self._tmp is not None:
            _rmtree_settled(self._tmp)
            self._tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- protocol ----------------------------------------------------------

    def send(self, method, params=None, timeout=None):
        """Send one CDP command and return its result.

        Messages arriving before the reply are events; they are queued (and
        console/exception events recorded) so wait_event() can find them.
        """
        params = params or {}
        self._next_id += 1
        msg_id = self._next_id
        self._ws.send(json.dumps({'id': msg_id, 'method': method,
                                  'params': params}))
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            msg = self._recv(deadline, method)
            if msg.get('id') == msg_id:
                break
            self._on_event(msg)
        if 'error' in msg:
            err = msg['error']
            raise CDPError('%s %s failed: %s%s' % (
                method, _short(json.dumps(params)), err.get('message'),
                (' (%s)' % err['data']) if err.get('data') else ''))
        return msg.get('result', {})

    def wait_event(self, method, timeout=None):
        """Return the params of the next `method` event (queued or new)."""
        for msg in list(self._events):
            if msg.get('method') == method:
                self._events.remove(msg)
                return msg.get('params', {})
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            msg = self._recv(deadline, method)
            if msg.get('method') == method:
                self._on_event(msg, queue=False)
                return msg.get('params', {})
            self._on_event(msg)

    def _recv(self, deadline, waiting_for):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError('no reply to %s from chromium' % waiting_for)
        self._ws.settimeout(remaining)
        try:
            return json.loads(self._ws.recv())
        except websocket.WebSocketTimeoutException:
            raise TimeoutError('no reply to %s from chromium within %.1fs'
                               % (waiting_for, remaining)) from None

    def _on_event(self, msg, queue=True):
        method = msg.get('method')
        params = msg.get('params', {})
        if method == 'Runtime.consoleAPICalled':
            args = ' '.join(_remote_object_text(a)
                            for a in params.get('args', []))
            self.console.append('console.%s: %s' % (params.get('type'), args))
        elif method == 'Runtime.exceptionThrown':
            self.console.append('exception: %s'
                                % _exception_text(params['exceptionDetails']))
        elif method == 'Log.entryAdded':
            e = params.get('entry', {})
            self.console.append('log.%s: %s %s' % (
                e.get('level'), e.get('text'), e.get('url', '')))
        if queue and method:
            self._events.append(msg)
            # Nobody waits for most events; don't let the queue grow forever.
            while len(self._events) > 1000:
                self._events.popleft()

    # --- pages and JavaScript ----------------------------------------------

    def goto(self, url, wait_load=True):
        """Navigate to url; by default wait for the load event."""
        # Drop stale load events so an earlier page can't satisfy the wait.
        self._events = collections.deque(
            m for m in self._events if m.get('method') != 'Page.loadEventFired')
        result = self.send('Page.navigate', {'url': url})
        if result.get('errorText'):
            raise RuntimeError('navigating to %s failed: %s'
                               % (url, result['errorText']))
        # No loaderId means a same-document (#fragment) navigation, which
        # fires no load event; the document is already loaded.
        if wait_load and result.get('loaderId'):
            self.wait_event('Page.loadEventFired')

    def eval(self, js):
        """Evaluate a JS expression in the page and return its value.

        Promises are awaited; the value comes back as JSON (so DOM nodes are
        not useful return values -- return their text or a flag instead).
        """
        result = self.send('Runtime.evaluate', {
            'expression': js, 'returnByValue': True, 'awaitPromise': True,
            'userGesture': True})
        if 'exceptionDetails' in result:
            raise JSError('%s\n  in: %s' % (
                _exception_text(result['exceptionDetails']), _short(js)))
        return result['result'].get('value')   # undefined -> None

    def wait_for(self, js_expr, timeout=None, interval=0.1, what=None):
        """Poll js_expr until it is truthy and return its value.

        JS errors while polling count as "not yet": an element that does not
        exist yet, or a page mid-navigation, is exactly what we wait out.
        """
        deadline = time.monotonic() + (timeout or self.timeout)
        last = None
        while True:
            try:
                last = self.eval(js_expr)
                if last:
                    return last
            except (JSError, CDPError) as e:
                last = 'error: %s' % e
            if time.monotonic() >= deadline:
                raise TimeoutError('timed out after %ss waiting for %s; '
                                   'last value: %s' % (
                                       timeout or self.timeout,
                                       what or _short(js_expr),
                                       _short(repr(last))))
            time.sleep(interval)

    def wait_text(self, text, timeout=None, selector='body'):
        """Wait until selector's innerText contains text."""
        expr = ('(() => { const el = document.querySelector(%s);'
                ' return !!el && el.innerText.includes(%s); })()'
                % (_js_str(selector), _js_str(text)))
        try:
            return self.wait_for(expr, timeout,
                                 what='%r in %s' % (text, selector))
        except TimeoutError as e:
            # "last value: False" says little; show what the page did say.
            shown = self._inner_text(selector)
            raise TimeoutError('%s\n  %s text was: %s'
                               % (e, selector, _short(shown, 500))) from None

    def _inner_text(self, selector):
        try:
            return self.eval('(document.querySelector(%s) || {}).innerText'
                             % _js_str(selector))
        except (JSError, CDPError) as e:
            return 'error: %s' % e

    # --- element helpers ---------------------------------------------------

    def _on_element(self, selector, body):
        """Run JS `body` with `el` bound to document.querySelector(selector).

        Throws (-> JSError) naming the selector if nothing matches, so a
        typo in a test fails loudly instead of silently doing nothing.
        """
        return self.eval(
            '(() => { const el = document.querySelector(%s);'
            ' if (!el) throw new Error("no element matches " + %s);'
            ' %s })()' % (_js_str(selector), _js_str(selector), body))

    def exists(self, selector):
        return self.eval('document.querySelector(%s) !== null'
                         % _js_str(selector))

    def click(self, selector):
        """Click the element via DOM click() (after scrolling it into view).

        A DOM click is not blocked by overlapping elements or animations,
        which keeps tests deterministic; it still runs all click handlers.
        """
        self._on_element(selector,
                         'el.scrollIntoView({block: "center"}); el.click();')

    def set_value(self, selector, value):
        """Set an input's value and fire input+change like a user edit would.

        Frameworks listen for these events; assigning .value alone is
        invisible to them.
        """
        self._on_element(selector, (
            'el.value = %s;'
            ' el.dispatchEvent(new Event("input", {bubbles: true}));'
            ' el.dispatchEvent(new Event("change", {bubbles: true}));'
        ) % _js_str(str(value)))

    def type(self, selector, text):
        """Focus the element and insert text as if typed (Input.insertText)."""
        self._on_element(selector, 'el.focus();')
        self.send('Input.insertText', {'text': text})

    def select(self, selector, value):
        """Choose the <option> whose value (or else visible text) is value."""
        self._on_element(selector, (
            'const v = %s;'
            ' const opt = [...el.options].find(o => o.value === v)'
            '   || [...el.options].find(o => o.text.trim() === v);'
            ' if (!opt) throw new Error("no option " + JSON.stringify(v)'
            '   + "; have: " + [...el.options].map(o => o.value).join(", "));'
            ' el.value = opt.value;'
            ' el.dispatchEvent(new Event("input", {bubbles: true}));'
            ' el.dispatchEvent(new Event("change", {bubbles: true}));'
        ) % _js_str(str(value)))

    # --- misc ----------------------------------------------------------------

    def screenshot(self, path, full_page=False):
        """Save a PNG of the viewport (or the whole page) to path."""
        params = {'format': 'png'}
        if full_page:
            size = self.send('Page.getLayoutMetrics')['cssContentSize']
            params['captureBeyondViewport'] = True
            params['clip'] = {'x': 0, 'y': 0, 'width': size['width'],
                              'height': size['height'], 'scale': 1}
        data = self.send('Page.captureScreenshot', params)['data']
        with open(path, 'wb') as f:
            f.write(base64.b64decode(data))
        return path

    def set_cookie(self, name, value, url):
        """Set a cookie for url (e.g. a session cookie to skip a login)."""
        result = self.send('Network.setCookie',
                           {'name': name, 'value': value, 'url': url})
        # Older Chromium reports failure as success=false, not an error.
        if result.get('success') is False:
            raise CDPError('Network.setCookie %s for %s was refused'
                           % (name, url))


def _rmtree_settled(path, timeout=5):
    """Remove path, retrying while something still writes into it.

    Chromium's helper processes (storage, network service) outlive the
    browser process by a moment and may recreate files in the profile
    after a first rmtree.
    """
    deadline = time.monotonic() + timeout
    while True:
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.exists(path) or time.monotonic() > deadline:
            return
        time.sleep(0.1)


def _remote_object_text(obj):
    """Readable text for a CDP RemoteObject (a console.log argument)."""
    if 'value' in obj:
        v = obj['value']
        return v if isinstance(v, str) else json.dumps(v)
    preview = obj.get('preview')
    if preview and preview.get('subtype') in (None, 'array'):
        # Objects arrive by reference; the preview is all we get for free.
        more = ', ...' if preview.get('overflow') else ''
        props = preview.get('properties', [])
        if preview.get('subtype') == 'array':
            return '[%s%s]' % (', '.join(p.get('value', p['type'])
                                         for p in props), more)
        return '{%s%s}' % (', '.join('%s: %s' % (p['name'],
                                                 p.get('value', p['type']))
                                     for p in props), more)
    return obj.get('description') or obj.get('unserializableValue') \
        or obj.get('type', '?')


def _exception_text(details):
    """Best message from CDP exceptionDetails: the stack-ful description."""
    exc = details.get('exception') or {}
    return exc.get('description') or details.get('text') or repr(details)


# --- self-test ---------------------------------------------------------------

SELFTEST_HTML = """<!doctype html>
<html><head><title>cdp selftest</title></head>
<body style="font: 20px sans-serif">
  <h1 id="msg">waiting</h1>
  <button id="btn" onclick="document.getElementById('msg').textContent =
      'clicked!'">press</button>
  <input id="name">
  <p id="echo"></p>
  <select id="color"><option value="r">Red</option>
    <option value="g">Green</option></select>
  <script>
    document.body.addEventListener('change', e => {
      document.getElementById('echo').textContent =
          e.target.id + '=' + e.target.value;
    });
    console.log('selftest page loaded', 42);
  </script>
</body></html>
"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass   # keep self-test output readable


def _serve(directory):
    """Serve directory on 127.0.0.1:<ephemeral> in a thread; return server."""
    handler = functools.partial(_QuietHandler, directory=directory)
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def selftest():
    tmp = tempfile.mkdtemp(prefix='cdp-selftest-')
    server = None
    browser = None
    try:
        with open(os.path.join(tmp, 'index.html'), 'w') as f:
            f.write(SELFTEST_HTML)
        server = _serve(tmp)
        url = 'http://127.0.0.1:%d/index.html' % server.server_address[1]

        browser = Browser()
        b = browser
        b.goto(url)
        assert b.eval('document.title') == 'cdp selftest', 'title'
        assert b.exists('#btn') and not b.exists('#nope'), 'exists()'

        b.click('#btn')
        b.wait_text('clicked!', selector='#msg', timeout=5)

        b.set_value('#name', 'hello')
        assert b.eval('document.getElementById("name").value') == 'hello'
        b.wait_text('name=hello', selector='#echo', timeout=5)

        b.select('#color', 'Green')
        b.wait_text('color=g', selector='#echo', timeout=5)

        b.set_value('#name', '')
        b.type('#name', 'typed')
        assert b.eval('document.getElementById("name").value') == 'typed'

        b.set_cookie('k', 'v', url)
        assert 'k=v' in b.eval('document.cookie'), 'cookie'

        try:
            b.wait_text('never', timeout=0.3)
            raise AssertionError('wait_text did not time out')
        except TimeoutError:
            pass
        try:
            b.eval('undefinedThing.x')
            raise AssertionError('eval did not raise')
        except JSError as e:
            assert 'ReferenceError' in str(e), str(e)

        png = b.screenshot(os.path.join(tmp, 'shot.png'))
        with open(png, 'rb') as f:
            data = f.read()
        assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
        assert len(data) > 1000, 'PNG only %d bytes' % len(data)
        full = b.screenshot(os.path.join(tmp, 'full.png'), full_page=True)
        assert os.path.getsize(full) > 1000, 'full-page PNG too small'

        assert any('selftest page loaded 42' in m for m in b.console), \
            'console not captured: %r' % b.console

        browser.close()
        assert not _pid_alive(browser.pid), \
            'chromium pid %d still alive' % browser.pid
        print('selftest ok (%d byte screenshot, console: %r)'
              % (len(data), b.console))
        return 0
    except Exception as e:
        print('selftest FAILED: %s: %s' % (type(e).__name__, e),
              file=sys.stderr)
        if browser is not None:
            for line in browser.console:
                print('  console: ' + line, file=sys.stderr)
        return 1
    finally:
        if browser is not None:
            browser.close()
        if server is not None:
            server.shutdown()
            server.server_close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    if sys.argv[1:] == ['--selftest']:
        sys.exit(selftest())
    print('usage: /usr/bin/python3 %s --selftest' % sys.argv[0],
          file=sys.stderr)
    sys.exit(2)
