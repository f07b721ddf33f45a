#!/usr/bin/env python3
"""Checks that the DocC site built by scripts/docc.sh renders in a browser, not only that its files exist.

A DocC static site is an empty page that JavaScript fills from JSON, so this serves .build/docc-site on
127.0.0.1 (a port the OS picks), loads pages in headless Chromium, and checks the text of the DOM after the
scripts ran: the site's root, the ConnectionKit landing page, one article (a guide) and one symbol page,
each for its own text, for links that DocC resolved (one of them into ConnectionKitTesting's part of the
site), and for the absence of DocC's "page not found". It saves a screenshot of
each page to .build/docc-<page>.png. Run by .ci/run after scripts/docc.sh.

Usage: python3 scripts/docc_browser_check.py [--site DIR] [--browser PATH]
"""
import argparse
import functools
import html.parser
import http.server
import pathlib
import re
import shutil
import subprocess
import sys
import threading

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Headless Chromium has no user session: no sandbox as root in a container, no GPU, and a budget of
# virtual time in which the page's scripts fetch their JSON and render (time the browser skips ahead).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--virtual-time-budget=20000", "--window-size=1280,1800"]
NOT_FOUND = "The page you're looking for can't be found"


class Page:
    def __init__(self, name, path, texts, links, aside_links=()):
        self.name, self.path, self.texts, self.links, self.aside_links = name, path, texts, links, aside_links


PAGES = [
    Page("root", "/documentation/", texts=["ConnectionKit", "ConnectionKitTesting"],
         links=["/documentation/connectionkit", "/documentation/connectionkittesting"]),
    Page("landing", "/documentation/connectionkit/",
         texts=["Every HTTP endpoint of an API as its own small subclass", "Essentials", "Getting started",
                "AnyConnectionRequest", "The offline queue", "RetryPolicy"],
         links=["/documentation/connectionkit/getting-started",
                "/documentation/connectionkit/connectionrequest"]),
    Page("article", "/documentation/connectionkit/getting-started",
         texts=["Getting started", "JSONConnectionRequest", "One endpoint, one subclass"],
         links=["/documentation/connectionkit/endpoints", "/documentation/connectionkit/connectionerror",
                "/documentation/connectionkittesting/testing-server"]),
    Page("symbol", "/documentation/connectionkit/connectionerror",
         texts=["struct ConnectionError", "The one error type ConnectionKit produces", "Mentioned in"],
         links=["/documentation/connectionkit/connectionerror/kind-swift.property"],
         aside_links=["/documentation/connectionkit/errors"]),
]


class Text(html.parser.HTMLParser):
    """The visible text and link targets of a DOM dump's <main> (the page, not the navigator beside it),
    and the link targets inside its asides (a doc comment's `- SeeAlso:` callout)."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}

    def __init__(self):
        super().__init__()
        self.parts, self.links, self.aside_links = [], set(), set()
        self.stack = []  # (tag, hidden, in content, in aside) of each open element

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        hidden, content, aside = self.stack[-1][1:] if self.stack else (False, False, False)
        hidden = hidden or tag in ("script", "style", "noscript")
        content = content or tag == "main"
        aside = aside or tag == "aside"
        self.stack.append((tag, hidden, content, aside))
        if tag == "a" and content and (href := dict(attrs).get("href")):
            self.links.add(href.split("#")[0].rstrip("/"))
            if aside:
                self.aside_links.add(href.split("#")[0].rstrip("/"))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if self.stack and not self.stack[-1][1] and self.stack[-1][2]:
            self.parts.append(data)

    @property
    def text(self):
        # Adjacent text nodes join without a space: DocC splits long names with <wbr>.
        return re.sub(r"\s+", " ", "".join(self.parts))


def chromium(browser, arguments):
    return subprocess.run([browser, *FLAGS, *arguments], capture_output=True, text=True, timeout=120)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=pathlib.Path, default=ROOT / ".build" / "docc-site")
    parser.add_argument("--browser", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    args = parser.parse_args()
    if not args.browser:
        print("no chromium on PATH (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    if not (args.site / "documentation" / "connectionkit").is_dir():
        print(f"no site at {args.site}: run scripts/docc.sh first", file=sys.stderr)
        return 1

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=args.site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    failures = []
    try:
        for page in PAGES:
            url = origin + page.path
            screenshot = ROOT / ".build" / f"docc-{page.name}.png"
            screenshot.unlink(missing_ok=True)
            dump = chromium(args.browser, ["--dump-dom", f"--screenshot={screenshot}", url])
            dom = Text()
            dom.feed(dump.stdout)
            missing = [text for text in page.texts if text not in dom.text]
            missing += [f"a link to {link}" for link in page.links if link not in dom.links]
            missing += [f"an aside linking {link}" for link in page.aside_links if link not in dom.aside_links]
            if NOT_FOUND in dom.text:
                missing.append(f'no "{NOT_FOUND}"')
            if not screenshot.exists():
                missing.append(f"a screenshot in {screenshot}")
            if missing or dump.returncode != 0:
                failures.append(f"{page.name} ({url}) does not show: " + "; ".join(missing)
                                + f"\n  rendered text: {dom.text[:400]!r}")
            else:
                print(f"ok: {page.name} {page.path} ({len(dom.text)} characters of text), {screenshot.name}")
    finally:
        server.shutdown()
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
