#!/usr/bin/env python3
"""The inspector's page, tested in a real browser.

Starts InspectorDemo (a process running requests with its inspector on), starts headless Chromium,
drives it over the DevTools protocol and checks the rendered DOM: live rows appear and disappear, the
history's waterfall has one bar per timing the process reported, the detail view shows the redacted
cURL command, a cancel button cancels the request in the process, a request started after the page opened
shows its URL and attempt while its server has sent nothing, the statistics table fits the 1280 px window.
Saves a screenshot.

    scripts/inspector-browser-test.py [--demo .build/debug/InspectorDemo] [--screenshot out.png]
    scripts/inspector-browser-test.py --first-render 10000   # time to first render, 10,000 live requests

Exits non-zero, naming the failed check, on the first failure. Standard library only.
"""
import argparse
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request


class WebSocket:
    """Just enough of RFC 6455 for the DevTools protocol: text frames, client-side masking."""

    def __init__(self, url):
        parts = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                           f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            head += self.sock.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"websocket handshake refused: {head[:200]!r}")
        self.next_id = 0

    def _exact(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise RuntimeError("the browser closed the DevTools connection")
            data += chunk
        return data

    def send(self, message):
        data = json.dumps(message).encode()
        header = bytearray([0x81])
        if len(data) < 126:
            header.append(0x80 | len(data))
        elif len(data) < 65536:
            header.append(0x80 | 126)
            header += struct.pack(">H", len(data))
        else:
            header.append(0x80 | 127)
            header += struct.pack(">Q", len(data))
        mask = os.urandom(4)
        self.sock.sendall(bytes(header) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def receive(self):
        message = b""
        while True:
            first, second = self._exact(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._exact(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(length)
            opcode = first & 0x0F
            if opcode == 8:
                raise RuntimeError("the browser closed the DevTools connection")
            if opcode in (0, 1, 2):
                message += payload
                if first & 0x80:
                    return json.loads(message)

    def call(self, method, **params):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]


class Browser:
    def __init__(self):
        executable = shutil.which("chromium") or shutil.which("chromium-browser")
        if not executable:
            fail("chromium is not installed (apt-get install chromium; .ci/run does)")
        self.profile = tempfile.mkdtemp(prefix="inspector-chromium-")
        self.process = subprocess.Popen(
            [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
             "--window-size=1280,1280", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        endpoint = None
        while time.time() < deadline and endpoint is None:
            line = self.process.stderr.readline()
            if not line and self.process.poll() is not None:
                fail("chromium exited before it listened")
            found = re.search(r"DevTools listening on (ws://\S+)", line)
            if found:
                endpoint = found.group(1)
        if endpoint is None:
            fail("chromium did not print its DevTools address within 30 s")
        port = urllib.parse.urlparse(endpoint).port
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
        page = next(t for t in targets if t["type"] == "page")
        self.page = WebSocket(page["webSocketDebuggerUrl"])
        self.page.call("Page.enable")
        self.page.call("Runtime.enable")

    def open(self, url):
        self.page.call("Page.navigate", url=url)

    def js(self, expression):
        result = self.page.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, what, expression, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.05)
        state = self.js("""JSON.stringify({status: document.getElementById('status')?.textContent,
            live: [...document.querySelectorAll('#live-body tr')].map(r => r.dataset.class),
            detail: document.getElementById('detail')?.className})""")
        fail(f"timed out after {timeout} s waiting for: {what}; the page: {state}")

    def click(self, selector):
        box = self.js(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            if (!e) return null; e.scrollIntoView({{block: "center"}}); const r = e.getBoundingClientRect();
            return [r.x + r.width / 2, r.y + r.height / 2]; }})()""")
        if not box:
            fail(f"nothing to click at {selector}")
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.page.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def screenshot(self, path):
        data = self.page.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def close(self):
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    raise SystemExit(1)


def check(condition, message):
    if not condition:
        fail(message)
    print(f"ok: {message}")


def start_demo(path, arguments):
    if not os.path.exists(path):
        fail(f"{path} is missing: run swift build first")
    demo = subprocess.Popen([path] + arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    url = demo.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        demo.kill()
        fail(f"the demo printed no inspector URL: {url!r}")
    return demo, url


def api(url, path):
    parts = urllib.parse.urlparse(url)
    token = urllib.parse.parse_qs(parts.query)["token"][0]
    request = urllib.request.Request(f"http://127.0.0.1:{parts.port}{path}", headers={"X-Inspector-Token": token})
    return json.load(urllib.request.urlopen(request, timeout=10))


def run_checks(browser, demo, url, screenshot):
    browser.open(url)
    browser.wait_for("the page's first render", "document.body && document.body.dataset.firstRender")

    # Live rows appear, then disappear when their request ends.
    seen = browser.wait_for("live rows", """[...document.querySelectorAll('#live-body tr')]
        .filter(r => r.dataset.class !== 'HangingPoll').map(r => r.dataset.id)""")
    check(len(seen) > 0, f"live rows appear ({len(seen)} besides the hanging one)")
    check(browser.js("document.querySelectorAll('#live-body tr .progress').length > 0"), "live rows have a progress bar")
    check(browser.js("[...document.querySelectorAll('#live-body .age')].every(e => /s$/.test(e.textContent))"),
          "live rows show their age")
    gone = browser.wait_for("a live row to disappear", f"""(() => {{ const ids = new Set([...document
        .querySelectorAll('#live-body tr')].map(r => r.dataset.id));
        return {json.dumps(seen)}.filter(id => !ids.has(id)); }})()""")
    check(len(gone) > 0, "live rows disappear when their request ends")

    # A request started now, after the page opened, whose server never answers: its row shows the URL and
    # attempt from its `sending` event, with nothing received.
    demo.stdin.write("held\n")
    demo.stdin.flush()
    held = browser.wait_for("the held request's row with its URL and attempt", """(() => {
        const tr = document.querySelector('#live-body tr[data-class="HeldFetch"]');
        if (!tr) return null;
        const cells = {url: tr.querySelector('.url').textContent, attempt: tr.querySelector('.attempt').textContent,
            received: tr.querySelector('.bytes').textContent, method: tr.children[1].textContent};
        return cells.url.includes('/held?started=after-the-page') && cells.attempt === '1' ? cells : null;
    })()""")
    check(held["received"] == "0 B" and held["method"] == "GET",
          f"a request started after the page opened shows its URL and attempt before any answer ({held})")
    browser.wait_for("the ended request in the history",
                     f"document.querySelector('#history-body tr[data-id=\"{gone[0]}\"]') !== null")
    check(True, "the ended request appears in the history")

    # The waterfall has one bar per timing the process reported, in order and by name.
    mismatches = browser.js("""(async () => {
        const token = new URLSearchParams(location.search).get('token');
        const history = await (await fetch('/api/history?limit=1000', {headers: {'X-Inspector-Token': token}})).json();
        const byId = new Map(history.map(h => [h.record.identifier, h.phases.map(p => p.name)]));
        const rows = [...document.querySelectorAll('#history-body tr')];
        const bad = rows.filter(r => { const want = byId.get(r.dataset.id); if (!want) return false;
            const bars = [...r.querySelectorAll('.waterfall .bar')].map(b => b.className.replace('bar bar-', ''));
            return bars.join() !== want.join() || bars.length === 0; }).map(r => r.dataset.id);
        return {rows: rows.length, bad: bad, threeOrMore: rows.filter(r => r.querySelectorAll('.bar').length >= 3).length};
    })()""")
    check(mismatches["rows"] > 0 and not mismatches["bad"],
          f"every history row's waterfall has a bar per timing ({mismatches['rows']} rows)")
    check(mismatches["threeOrMore"] > 0, "runs that got a response show queue, wait and download bars")

    # Filters: text and status.
    browser.js("const f = document.getElementById('filter-text'); f.value = '/missing'; "
               "f.dispatchEvent(new Event('input', {bubbles: true}))")
    urls = browser.js("[...document.querySelectorAll('#history-body td.url')].map(e => e.textContent)")
    check(urls and all("/missing" in u for u in urls), f"the text filter keeps only matching rows ({len(urls)})")
    browser.js("const s = document.getElementById('filter-status'); s.value = '4xx'; "
               "s.dispatchEvent(new Event('input', {bubbles: true}))")
    statuses = browser.js("[...document.querySelectorAll('#history-body td.status')].map(e => e.textContent)")
    check(statuses and all(s.startswith("4") for s in statuses), "the status filter keeps 4xx rows")

    # The detail view: redacted headers and the cURL command.
    browser.click("#history-body tr")
    curl = browser.wait_for("the detail view", "document.getElementById('detail-curl')?.textContent")
    check(curl.startswith("curl ") and "Authorization: <redacted>" in curl, "the detail view shows the redacted cURL")
    check("demo-secret-token" not in browser.js("document.documentElement.outerHTML"), "no secret in the page")
    browser.js("for (const id of ['filter-text', 'filter-status']) { const e = document.getElementById(id); "
               "e.value = ''; e.dispatchEvent(new Event('input', {bubbles: true})); }")

    # The statistics table.
    check(browser.wait_for("statistics rows", "document.querySelectorAll('#stats-body tr').length"),
          "per-class statistics are shown")
    fits = browser.wait_for("a statistics row with failures", """(() => {
        // The 14th cell holds the failures by kind.
        const row = [...document.querySelectorAll('#stats-body tr')].find(r => r.children[13].textContent);
        if (!row) return null;
        const box = document.getElementById('stats-body').closest('.scroll');
        const button = row.querySelector('button.cancel-class').getBoundingClientRect();
        return {scrollWidth: box.scrollWidth, clientWidth: box.clientWidth, buttonRight: button.right,
            window: window.innerWidth};
    })()""")
    check(fits["scrollWidth"] <= fits["clientWidth"] and fits["buttonRight"] <= fits["window"],
          f"the statistics table fits a {fits['window']} px window, its cancel button in view ({fits})")

    # A cancel button cancels the request in the process.
    hanging = browser.wait_for("the hanging request's row",
                               "document.querySelector('#live-body tr[data-class=\"HangingPoll\"]')?.dataset.id")
    if screenshot:
        browser.js("document.getElementById('detail').classList.contains('open') || "
                   "document.querySelector('#history-body tr')?.click()")
        time.sleep(0.3)
        browser.screenshot(screenshot)
        print(f"ok: screenshot saved to {screenshot}")
    browser.click(f'#live-body tr[data-id="{hanging}"] button.cancel')
    deadline = time.time() + 10
    outcome = None
    while time.time() < deadline and outcome is None:
        records = [h["record"] for h in api(url, "/api/history?class=HangingPoll")]
        outcome = next((r["outcome"] for r in records if r["identifier"] == hanging), None)
        time.sleep(0.1)
    check(outcome == "cancelled", "the cancel button cancelled the request in the process")
    browser.wait_for("the cancelled row to leave the live table",
                     f"document.querySelector('#live-body tr[data-id=\"{hanging}\"]') === null")
    check(True, "the cancelled request left the live table")


def first_render(browser, url, count):
    # Waits until the process has them all live, then measures navigation start to the first render.
    deadline = time.time() + 120
    while time.time() < deadline and len(api(url, "/api/live")) < count:
        time.sleep(0.2)
    began = time.time()
    browser.open(url)
    rendered = browser.wait_for("the first render", "document.body && document.body.dataset.firstRender", timeout=120)
    wall = time.time() - began
    rows = browser.js("document.getElementById('live-count').textContent")
    print(f"first render with {rows} live requests: {int(rendered)} ms after navigation start "
          f"(page's clock), {wall * 1000:.0f} ms wall")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", default=".build/debug/InspectorDemo")
    parser.add_argument("--screenshot")
    parser.add_argument("--first-render", type=int)
    options = parser.parse_args()
    arguments = ["--live", str(options.first_render)] if options.first_render else []
    demo, url = start_demo(options.demo, arguments)
    browser = None
    try:
        browser = Browser()
        if options.first_render:
            first_render(browser, url, options.first_render)
        else:
            run_checks(browser, demo, url, options.screenshot)
            print("PASS: the inspector page in headless Chromium")
    finally:
        if browser:
            browser.close()
        demo.kill()
        demo.wait()


if __name__ == "__main__":
    main()
