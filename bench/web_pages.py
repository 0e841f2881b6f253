"""The browser game's weight and first paint, measured with Playwright's view of the page's
own performance API on Debian's Chromium against a throw-away local server.

For each page (the first page, a table mid-game, the rules, a score pad) and each screen
(a phone upright, a laptop), in a fresh browser context (nothing cached, no service worker
yet): the bytes the page's requests carried (``transferSize``, headers included, and the
files' own sizes, ``decodedBodySize``), the number of requests, and ``first-paint`` and
``first-contentful-paint`` (median of ``--runs``). The server is on this machine, so the
times are the browser's own work (parsing, the modules, drawing), not a network's.

Run: ``.venv/bin/python bench/web_pages.py`` (docs/web.md holds the figures).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from playwright.sync_api import sync_playwright

from serverkit import Client, LiveServer, server_settings

SCREENS = {
    "phone 390x844": {"width": 390, "height": 844},
    "laptop 1280x800": {"width": 1280, "height": 800},
}
MEASURE = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  const paint = Object.fromEntries(
    performance.getEntriesByType('paint').map(p => [p.name, p.startTime]));
  const all = [nav, ...res];
  const api = res.filter(e => new URL(e.name).pathname.startsWith('/api/'));
  return {
    api: api.reduce((n, e) => n + (e.decodedBodySize || 0), 0),
    transfer: all.reduce((n, e) => n + (e.transferSize || 0), 0),
    decoded: all.reduce((n, e) => n + (e.decodedBodySize || 0), 0),
    requests: all.length,
    fp: paint['first-paint'], fcp: paint['first-contentful-paint'],
  };
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    live = LiveServer(server_settings(f"sqlite+aiosqlite:///{tmp / 'bench.db'}", tmp))
    try:
        host = Client(live.base, "An")
        table = host.create(bots="greedy")["table"]["id"]
        pad = host.http.post("/api/pads", json={"names": ["An", "Binh", "Chi", "Dung"]}).json()
        pages = {
            "first page /": "/",
            "table /t/{id}": f"/t/{table}",
            "rules /rules": "/rules",
            "score pad /pads/{id}": f"/pads/{pad['id']}",
        }
        cookie = {"name": "tienlen_token", "value": host.token, "url": live.base}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            print(
                "| page | screen | bytes (files; of which API data) | requests"
                " | first paint | first contentful paint |"
            )
            print("| --- | --- | --- | --- | --- | --- |")
            for label, path in pages.items():
                for screen, viewport in SCREENS.items():
                    got: list[dict[str, Any]] = []
                    for _ in range(args.runs):
                        ctx = browser.new_context(viewport=viewport, service_workers="block")
                        ctx.add_cookies([cookie])
                        page = ctx.new_page()
                        page.goto(live.base + path)
                        page.wait_for_selector("#page > :not(p)")  # the page drawn
                        page.wait_for_timeout(300)
                        got.append(page.evaluate(MEASURE))
                        ctx.close()
                    med = {k: statistics.median(g[k] for g in got) for k in got[0]}
                    print(
                        f"| {label} | {screen} | {med['transfer'] / 1024:.1f} KiB"
                        f" ({med['decoded'] / 1024:.1f} KiB; {med['api'] / 1024:.1f} KiB)"
                        f" | {med['requests']:.0f}"
                        f" | {med['fp']:.0f} ms | {med['fcp']:.0f} ms |"
                    )
            browser.close()
    finally:
        live.close()


if __name__ == "__main__":
    main()
