"""Screenshots of the browser game for the README: the lobby, a table mid-game on a desktop
(1280x800), on a phone upright (390x844) and held sideways (844x390), the same table in
Vietnamese at each of those sizes, and the score pad for games with real cards (phone, three
games entered), taken with Playwright and Debian's Chromium against a throw-away server.
Run with ``make screenshots``; the PNGs go to docs/screenshots/."""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "tests"))

from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

from serverkit import Client, LiveServer, server_settings  # noqa: E402

OUT = HERE / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIDEWAYS = {"width": 844, "height": 390}


def guest(page: Page, base: str, path: str, name: str) -> None:
    page.goto(base + path)
    page.wait_for_selector("#page > *")
    if page.locator("form.guest").count():
        page.fill("form.guest input[name=name]", name)
        page.click("form.guest button")
    elif page.locator("#guest-name").count():
        page.fill("#guest-name", name)


def my_turn(page: Page) -> None:
    page.wait_for_function(
        "() => document.querySelector('#turn')?.dataset.mine === '1'"
        " && !document.querySelector('#hint')?.disabled"
    )


def score_pad(page: Page, base: str) -> None:
    """A pad for four players under the standard rules with cóng, three games entered."""
    page.goto(base + "/pads")
    page.wait_for_selector("#pad-new")
    for i, name in enumerate(("An", "Binh", "Chi", "Dung")):
        page.fill(f"#pad-name-{i}", name)
    page.fill("#pad-code", "standard.cong")
    page.click("#pad-create")
    page.wait_for_url(re.compile(r"/pads/."))
    for number, (order, cong) in enumerate(
        [((1, 3, 0, 2), (2,)), ((0, 1, 2, 3), ()), ((2, 0, 3, 1), (1, 3))], 1
    ):
        for place, seat in enumerate(order, 1):
            page.select_option(f"#place-{place}", str(seat))
        for seat in cong:
            page.check(f"#cong-{seat}")
        page.click("#pad-add")
        page.wait_for_selector(f'.pad[data-games="{number}"]')
    page.screenshot(path=OUT / "score-pad.png", full_page=True)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    tmp = Path(tempfile.mkdtemp())
    live = LiveServer(server_settings(f"sqlite+aiosqlite:///{tmp / 'shots.db'}", tmp))
    try:
        for preset in ("vietcong", "pagat"):
            Client(live.base, "Binh").create(preset=preset, games=4)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            desk = browser.new_context(viewport=DESKTOP)
            page = desk.new_page()
            guest(page, live.base, "/", "An")
            page.wait_for_selector(".lobby-table")
            page.screenshot(path=OUT / "lobby.png")
            page.fill("#games", "3")
            page.fill("#timer", "60")
            page.get_by_role("button", name="Create").click()
            page.wait_for_url(re.compile(r"/t/"))
            page.wait_for_selector(".seat.mine")
            page.click("#start")
            for _ in range(3):  # a few plays in, with a selection showing its legal plays
                my_turn(page)
                expect(page.locator("#note")).to_have_text("")  # cleared by the last move
                page.click("#hint")
                page.wait_for_function("() => document.querySelector('#note')?.textContent")
                # The hint's note can show before its selection enables Play: wait for both.
                page.wait_for_function(
                    "() => !document.querySelector('.hand .selected')"
                    " || !document.querySelector('#play').disabled"
                )
                page.click("#play" if page.locator("#play").is_enabled() else "#pass")
            my_turn(page)
            page.locator(".hand button.card").nth(1).click()
            page.screenshot(path=OUT / "table-desktop.png")
            state = desk.storage_state()
            for name, viewport, lang in (
                ("table-phone.png", PHONE, "en"),
                ("table-phone-landscape.png", SIDEWAYS, "en"),
                ("table-phone-vi.png", PHONE, "vi"),
                ("table-phone-landscape-vi.png", SIDEWAYS, "vi"),
                ("table-desktop-vi.png", DESKTOP, "vi"),
            ):
                touch = viewport is not DESKTOP
                other = browser.new_context(
                    viewport=viewport, has_touch=touch, is_mobile=touch, storage_state=state
                )
                other.add_init_script(f"localStorage.setItem('tienlen.lang', '{lang}')")
                shown = other.new_page()
                shown.goto(page.url)
                my_turn(shown)
                card = shown.locator(".hand button.card").nth(1)
                if touch:
                    card.tap()
                else:
                    card.click()
                shown.screenshot(path=OUT / name)
                if lang == "en" and viewport is PHONE:
                    score_pad(shown, live.base)
                other.close()
            browser.close()
    finally:
        live.close()
    print(f"screenshots in {OUT}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__).parse_args()
    main()
