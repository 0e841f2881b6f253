"""The browser game end to end: Playwright drives Debian's Chromium against a real server.

Each test plays through the page as a person would (clicks and keys only); every WebSocket
frame a page receives is kept and checked never to hold another seat's cards."""

from __future__ import annotations

import json
import re
import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ports import free_port
from serverkit import HANG, NO_REFILL, Client, LiveServer, server_settings
from tienlen.apps.server.config import Settings
from tienlen.apps.server.limits import Rate
from tienlen.describe import PHRASES
from tienlen.players.levels import LEVELS
from tienlen.rules import KNOBS

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
# a browser and a server per test: left out of make test-fast
pytestmark = pytest.mark.slow
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(
        "Chromium is not installed (.ci/run installs it with apt-get when it can)",
        allow_module_level=True,
    )

Page = Any
WAIT = HANG * 1000  # Playwright counts milliseconds
CARD = re.compile(r"^(10|[2-9JQKA])[scdh]'?$")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    # The server's own grace: a socket that drops for a moment (a loaded machine, a relay)
    # keeps the seat, where none would hand the seat's turns to its bot mid-test.
    url = f"sqlite+aiosqlite:///{tmp_path / 'web.db'}"
    live = LiveServer(server_settings(url, tmp_path, grace=Settings.grace))
    yield live
    live.close()


class Player:
    """One browser context (one guest) with its page and every frame its sockets received."""

    def __init__(self, browser: Any, server: LiveServer, name: str, **context: Any) -> None:
        self.context = browser.new_context(**context)
        self.context.set_default_timeout(WAIT)
        self.page: Page = self.context.new_page()
        self.frames: list[dict[str, Any]] = []
        self.page.on("websocket", self._watch)
        # Shown by pytest when a test fails: what the page itself complained of.
        self.page.on("console", lambda m: print(f"[{name} console] {m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: print(f"[{name} page error] {e}"))
        self.base = server.base
        self.name = name

    def _watch(self, ws: Any) -> None:
        if "/ws/tables/" in ws.url:
            ws.on("framereceived", lambda payload: self.frames.append(json.loads(payload)))

    def enter(self, path: str = "/") -> None:
        """Open a page, giving the guest name the first time."""
        self.page.goto(self.base + path)
        self.page.wait_for_selector("#page > *")
        if self.page.locator("form.guest").count():
            self.page.fill("form.guest input[name=name]", self.name)
            self.page.click("form.guest button")
        elif self.page.locator("#guest-name").count():  # the lobby asks inline
            self.page.fill("#guest-name", self.name)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def players(browser: Any, server: LiveServer) -> Iterator[list[Player]]:
    made: list[Player] = []

    def make(name: str, **context: Any) -> Player:
        made.append(Player(browser, server, name, **context))
        return made[-1]

    yield make  # type: ignore[misc]
    for p in made:
        p.close()


def create_table(p: Player, *, preset: str = "standard", games: int = 1) -> str:
    """Create a table from the lobby form; the page moves to it and takes a seat."""
    p.enter("/")
    p.page.select_option("#preset", preset)
    p.page.fill("#games", str(games))
    p.page.get_by_role("button", name="Create").click()
    p.page.wait_for_url(re.compile(r"/t/"))
    p.page.wait_for_selector(".seat.mine")
    url: str = p.page.url
    return url.split("/t/")[1].split("?")[0]


def wait_turn_or_end(page: Page) -> str:
    """Wait until this seat is to act or the match is over; which one."""
    page.wait_for_function(
        "() => document.querySelector('.table-page')?.dataset.status === 'finished'"
        " || (document.querySelector('#turn')?.dataset.mine === '1'"
        "     && !document.querySelector('#hint')?.disabled)"
    )
    status = page.locator(".table-page").get_attribute("data-status")
    return "end" if status == "finished" else "turn"


def take_turn(page: Page) -> None:
    """Ask for a hint, then play what it selected (or pass), by clicking."""
    version = int(page.locator(".table-page").get_attribute("data-version") or 0)
    # The page clears a note when this seat moves, so a note now is the hint's answer (text
    # cleared here by hand could be drawn again by a frame before the answer came).
    sync_api.expect(page.locator("#note")).to_have_text("")
    page.click("#hint")
    page.wait_for_function("() => document.querySelector('#note')?.textContent")
    if page.locator(".hand .card.selected").count():
        page.click("#play")
    else:
        page.click("#pass")
    page.wait_for_function(
        "v => Number(document.querySelector('.table-page')?.dataset.version) > v"
        " || document.querySelector('#error')?.textContent",
        arg=version,
    )


def play_to_the_end(page: Page) -> None:
    while wait_turn_or_end(page) == "turn":
        take_turn(page)


def assert_no_other_cards(frames: list[dict[str, Any]], seat: int) -> None:
    """No frame before the hands are revealed names a card that is neither this seat's
    nor already played in public."""
    public: set[str] = set()
    mine: set[str] = set()

    def strings(value: Any) -> Iterator[str]:
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for v in value.values():
                yield from strings(v)
        elif isinstance(value, list):
            for v in value:
                yield from strings(v)

    checked = 0
    for f in frames:
        view = f.get("view") or {}
        event = f.get("event") or {}
        if view.get("hands") or event.get("kind") == "game_over":
            break
        mine |= set(view.get("hand") or [])
        if event.get("kind") == "play":
            public |= set(event.get("cards") or [])
        for p in [*(view.get("pile") or []), *(view.get("history") or [])]:
            public |= set(p["cards"])
        seen = {s for s in strings(f) if CARD.match(s)}
        assert seen <= mine | public, (seat, seen - mine - public, f)
        checked += 1
    assert checked > 3


def test_a_whole_game_against_three_bots_by_clicking(players: Any) -> None:
    an = players("An")
    create_table(an)
    an.page.click("#start")
    play_to_the_end(an.page)
    result = an.page.locator("#result")
    assert result.locator("tbody tr").count() == 4
    assert "An" in result.inner_text()
    assert an.page.locator("#standings").is_visible()
    assert an.page.locator("#rematch").is_visible()  # the host may start again
    assert_no_other_cards(an.frames, 0)
    # Three bots of one level, told apart by name, their level worded by strength.
    bots = an.page.locator(".seat:not(.mine) .seat-name").all_inner_texts()
    assert len(set(bots)) == 3 and all("(easy)" in b for b in bots), bots
    # The move list's numbers past 9 are written in full, inside the list.
    # Read in one go in the page: the table re-renders as frames arrive, and an element read
    # between two renders may be detached (once under a loaded CI run its box was None).
    numbers = an.page.evaluate(
        """() => {
            const log = document.querySelector('#log').getBoundingClientRect();
            return [...document.querySelectorAll('#log .n')].map(e => ({
                text: e.textContent, inside: e.getBoundingClientRect().left >= log.left,
                fits: e.scrollWidth <= e.clientWidth}));
        }"""
    )
    assert len(numbers) >= 10
    first = int(numbers[0]["text"].rstrip("."))
    for i, n in enumerate(numbers):
        assert n == {"text": f"{first + i}.", "inside": True, "fits": True}, (i, n)
    assert first + len(numbers) - 1 >= 10


def test_an_illegal_play_shows_the_engines_reason_in_either_language(players: Any) -> None:
    an = players("An")
    create_table(an)
    an.page.click("#start")
    assert wait_turn_or_end(an.page) == "turn"
    hand = an.page.locator(".hand button.card")
    # The lowest and the highest card together are never a combination.
    hand.first.click()
    hand.last.click()
    an.page.keyboard.press("p")
    error = an.page.locator("#error")
    sync_api.expect(error).not_to_be_empty()
    refusal = next(f for f in an.frames if f["type"] == "error")
    assert refusal["code"] == "illegal"
    assert refusal["reason"]["code"] == "not_combination"
    assert error.inner_text() == refusal["message"]  # the engine's English words
    assert an.page.locator("#turn").get_attribute("data-mine") == "1"  # nothing was played
    an.page.click("#lang")
    sync_api.expect(error).to_contain_text("không phải một bộ hợp lệ theo luật standard")


def test_the_vietnamese_interface_is_remembered(players: Any) -> None:
    an = players("An")
    create_table(an)
    an.page.click("#lang")
    sync_api.expect(an.page.locator("#start")).to_have_text("Bắt đầu")
    an.page.reload()
    sync_api.expect(an.page.locator("#start")).to_have_text("Bắt đầu")
    an.page.click("#start")
    assert wait_turn_or_end(an.page) == "turn"
    sync_api.expect(an.page.locator("#play")).to_have_text("Đánh")
    sync_api.expect(an.page.locator("#pass")).to_have_text("Bỏ lượt")
    label = an.page.locator(".hand button.card").first.get_attribute("aria-label") or ""
    assert re.search(r"(bích|chuồn|rô|cơ)$", label), label


def test_the_lobby_lists_a_new_table_without_reloading(players: Any, server: LiveServer) -> None:
    an = players("An")
    an.enter("/")
    sync_api.expect(an.page.locator(".lobby-table")).to_have_count(0)
    made = Client(server.base, "Binh").create(rules="pagat.direction-anticlockwise")
    row = an.page.locator(f'.lobby-table[data-table="{made["table"]["id"]}"]')
    # the row names the preset in words and the knobs changed on it by code (the whole code
    # in its title)
    sync_api.expect(row.locator(".rules")).to_have_text("Pagat's rules · direction-anticlockwise")
    assert row.locator(".rules").get_attribute("title") == "pagat.direction-anticlockwise"
    # The bot levels, beginner to expert, as the server lists them, in the page's language:
    # each by its name, the chosen one's way of playing under the list.
    levels = an.page.locator("#quick-level option")
    assert [levels.nth(i).get_attribute("value") for i in range(levels.count())] == list(LEVELS)
    sync_api.expect(levels.first).to_have_text("Beginner")
    about = an.page.locator("#quick-level-about")
    sync_api.expect(about).to_have_text("Plays its lowest cards, keeps 2s and bombs back")
    an.page.select_option("#quick-level", "beginner")
    sync_api.expect(about).to_have_text("Plays any legal move at random")
    an.page.click("#lang")  # the lobby is drawn again in Vietnamese, still live
    sync_api.expect(row.get_by_role("link", name="Vào bàn")).to_be_visible()
    sync_api.expect(levels.last).to_have_text("Cao thủ")
    sync_api.expect(about).to_have_text("Đánh lá nhỏ nhất, giữ heo và bom lại")
    Client(server.base, "Chi").create(preset="lu")
    sync_api.expect(an.page.locator(".lobby-table")).to_have_count(2)


def test_the_lobby_shows_more_tables_a_page_at_a_time(browser: Any, tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'web.db'}"
    live = LiveServer(server_settings(url, tmp_path, creations=Rate(200, NO_REFILL)))
    an, chi = Player(browser, live, "An"), Player(browser, live, "Chi")
    try:
        binh = Client(live.base, "Binh")
        made = [binh.create(bots="random")["table"]["id"] for _ in range(101)]  # a page and one
        r = an.context.request.post(live.base + "/api/guest", data={"name": "An"})
        assert r.ok, r.text()  # a guest: the lobby is live over its socket
        an.page.goto(live.base + "/")
        rows = an.page.locator(".lobby-table")
        sync_api.expect(rows).to_have_count(100)
        sync_api.expect(rows.first).to_have_attribute("data-table", made[-1])  # newest first
        more = an.page.locator("#more-tables")
        sync_api.expect(more).to_have_text("More tables")
        more.click()
        sync_api.expect(rows).to_have_count(101)
        sync_api.expect(rows.last).to_have_attribute("data-table", made[0])
        sync_api.expect(more).to_be_hidden()  # the last page was short
        newest = binh.create(bots="random")["table"]["id"]  # new: first, nothing pushed out
        sync_api.expect(rows.first).to_have_attribute("data-table", newest)
        sync_api.expect(rows).to_have_count(102)
        an.page.click("#lang")  # drawn again: the first page, with its button in Vietnamese
        sync_api.expect(rows).to_have_count(100)
        sync_api.expect(more).to_have_text("Thêm bàn")
        more.click()
        sync_api.expect(rows).to_have_count(102)
        chi.page.goto(live.base + "/")  # no name given yet: the pages are read over HTTP
        sync_api.expect(chi.page.locator(".lobby-table")).to_have_count(100)
        chi.page.click("#more-tables")
        sync_api.expect(chi.page.locator(".lobby-table").last).to_have_attribute(
            "data-table", made[0]
        )
        sync_api.expect(chi.page.locator(".lobby-table")).to_have_count(102)
    finally:
        an.close()
        chi.close()
        live.close()


#: The widest option text of a select and the room its box leaves for text (its inner width
#: less its padding and the drop-down arrow's 24 px).
FIT = """select => {
    const style = getComputedStyle(select);
    const pen = document.createElement("canvas").getContext("2d");
    pen.font = style.font;
    const widest = Math.max(...[...select.options].map((o) => pen.measureText(o.text).width));
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    return [widest, select.clientWidth - padding - 24];
}"""


def test_the_level_lists_fit_a_phone_with_each_level_described_under_them(players: Any) -> None:
    binh = players("Binh", viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    binh.enter("/")
    page = binh.page
    for language in ("en", "vi"):
        for select in ("#quick-level", "#bots"):
            widest, room = page.locator(select).evaluate(FIT)
            assert 0 < widest <= room, (language, select, widest, room)
            about = page.locator(f"{select}-about")
            assert about.evaluate("e => e.clientWidth > 0 && e.scrollWidth <= e.clientWidth")
            assert about.evaluate("e => e.getBoundingClientRect().right") <= 390
        if language == "en":
            page.click("#lang")
            sync_api.expect(page.locator("#bots-about")).to_have_text(
                "Đánh lá nhỏ nhất, giữ heo và bom lại"
            )


def test_a_dropped_socket_shows_the_banner_and_catches_up(players: Any) -> None:
    an = players("An")
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        ws.connect_to_server()
        sockets.append(ws)

    an.page.route_web_socket(re.compile(r"/ws/tables/"), route)
    create_table(an)
    an.page.click("#start")
    assert wait_turn_or_end(an.page) == "turn"
    take_turn(an.page)
    sockets[-1].close()
    banner = an.page.locator("#banner")
    sync_api.expect(banner).to_have_class("lost")
    sync_api.expect(banner).to_have_class("ok")
    assert len(sockets) >= 2
    assert re.search(r"since=\d+", sockets[-1].url)
    play_to_the_end(an.page)
    assert an.page.locator("#result tbody tr").count() == 4


def test_a_moved_socket_goes_to_the_owner_and_falls_back_to_being_relayed(
    players: Any, server: LiveServer
) -> None:
    """A cluster node's ``moved`` frame (docs/web-protocol.md, "Moved"), sent here by a
    route standing in for a node that does not own the table: the page opens the socket at
    the URL it names (``moves=1``) and plays there; when that socket drops, the page opens
    it at its own node again, and sent on to an address it cannot reach, comes back to its
    own node asking to be relayed (``relay=1``)."""
    an = players("An")
    here = server.base.replace("http://", "ws://")
    gone = f"ws://127.0.0.1:{free_port()}"  # a port nobody listens on: the unreachable owner
    urls: list[str] = []
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        urls.append(ws.url)
        if "moves=1" in ws.url or "relay=1" in ws.url:
            ws.connect_to_server()
            sockets.append(ws)
            return
        table = ws.url.split("/ws/tables/")[1].split("?")[0]
        owner = here if len(urls) == 1 else gone
        ws.send(json.dumps({"type": "moved", "url": f"{owner}/ws/tables/{table}"}))
        ws.close(code=4307)

    an.page.route_web_socket(re.compile(re.escape(here) + "/ws/tables/"), route)
    create_table(an)
    assert len(urls) == 2 and "moves=1" in urls[1], urls
    an.page.click("#start")
    assert wait_turn_or_end(an.page) == "turn"
    take_turn(an.page)
    sockets[-1].close()  # the owner's socket drops: back to its own node, then relayed
    sync_api.expect(an.page.locator("#banner")).to_have_class("ok")
    assert len(urls) == 4, urls
    assert "moves=" not in urls[2] and "relay=" not in urls[2] and "since=" in urls[2]
    assert "relay=1" in urls[3] and urls[3].startswith(here)
    play_to_the_end(an.page)
    assert an.page.locator("#result tbody tr").count() == 4


def test_a_silent_socket_is_given_up_and_an_owner_that_hangs_is_relayed(
    players: Any, server: LiveServer
) -> None:
    """Keeping alive (docs/web-protocol.md): routes stand in for hung cluster nodes. Sent to
    an owner that takes the connection but never answers the opening (a paused process),
    the page gives it up and opens the socket relayed at its own node. A socket there that
    goes silent (its frames dropped both ways) is pinged, given up and opened again where it
    first was; sent then to an owner whose socket goes silent, the page comes back to its own
    node relayed. Each time it carries on playing."""
    an = players("An")
    here = server.base.replace("http://", "ws://")
    hung = socket.create_server(("127.0.0.1", 0))  # connections wait unanswered in its queue
    paused = f"ws://127.0.0.1:{hung.getsockname()[1]}"
    urls: list[str] = []
    quiet: list[bool] = []  # per socket let through: whether it has gone silent
    pinged: list[str] = []

    def route(ws: Any) -> None:
        urls.append(ws.url)
        if "moves=1" in ws.url or "relay=1" in ws.url:
            server_side = ws.connect_to_server()
            n = len(quiet)
            quiet.append(False)

            def up(message: str | bytes) -> None:
                if quiet[n]:
                    pinged.append(str(message))
                else:
                    server_side.send(message)

            ws.on_message(up)
            server_side.on_message(lambda message: None if quiet[n] else ws.send(message))
            return
        table = ws.url.split("/ws/tables/")[1].split("?")[0]
        owner = paused if len(urls) == 1 else here
        ws.send(json.dumps({"type": "moved", "url": f"{owner}/ws/tables/{table}"}))
        ws.close(code=4307)

    try:
        an.page.route_web_socket(re.compile(re.escape(here) + "/ws/tables/"), route)
        create_table(an)  # (its socket relayed, after the paused owner did not open it)
        assert len(urls) == 2 and "relay=1" in urls[1] and "moves=" not in urls[1], urls
        an.page.click("#start")
        assert wait_turn_or_end(an.page) == "turn"
        take_turn(an.page)
        quiet[0] = True  # its own node hangs: pinged, given up, opened there again
        sync_api.expect(an.page.locator("#banner")).to_have_class("lost", timeout=WAIT)
        sync_api.expect(an.page.locator("#banner")).to_have_class("ok", timeout=WAIT)
        assert '{"type":"ping"}' in pinged, pinged
        assert len(urls) == 4 and "relay=" not in urls[2] and "since=" in urls[2], urls
        assert "moves=1" in urls[3], urls
        assert wait_turn_or_end(an.page) == "turn"
        take_turn(an.page)
        quiet[1] = True  # the owner it was sent to hangs: relayed at once at its own node
        deadline = time.monotonic() + HANG
        while len(urls) < 5:  # (Playwright runs the route while the page is waited on)
            assert time.monotonic() < deadline, "the page never gave the owner's socket up"
            an.page.wait_for_timeout(50)
        assert "relay=1" in urls[4] and "since=" in urls[4] and urls[4].startswith(here), urls
        play_to_the_end(an.page)
        assert an.page.locator("#result tbody tr").count() == 4
    finally:
        hung.close()


def test_a_page_keeps_its_socket_alive_by_the_welcomes_timings(
    browser: Any, tmp_path: Path
) -> None:
    """A site with a 1 s lease: its welcome has the page ping after 1 s quiet and give a
    silent socket up 1 s after its ping, not after the page's own 2 and 5 s. The page's
    clock is Playwright's, stopped while the socket goes silent (a route drops its frames
    both ways), then run for 3 s: the latest the page gives up by the welcome's timings (a
    ping on the watch's tick after 1 s, then the tick after 1 s more). By its own it would
    give up 5 s after a ping sent no earlier than the silence."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'lease.db'}"
    live = LiveServer(server_settings(url, tmp_path, lease_ttl=1.0))
    an = Player(browser, live, "An")
    quiet = [False]
    welcomes: list[dict[str, Any]] = []

    def route(ws: Any) -> None:
        server_side = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            if quiet[0]:
                return
            if json.loads(message)["type"] == "welcome":
                welcomes.append(json.loads(message))
            ws.send(message)

        server_side.on_message(down)
        ws.on_message(lambda message: None if quiet[0] else server_side.send(message))

    try:
        an.context.clock.install()
        an.page.route_web_socket(re.compile(r"/ws/tables/"), route)
        create_table(an)
        (welcome,) = welcomes
        assert welcome["keepalive"] == {"ping": 1.0, "silent": 1.0, "open": 1.0, "welcome": 12.0}
        # Stopped (a number is seconds here) before the socket goes silent. A quarter of a
        # second ahead: the page's clock runs on between the read and the pause (past 10 ms
        # on a loaded machine: "Cannot fast-forward to the past"), and a jump of 0.25 s is
        # far under the second's quiet a ping waits for, and the 7 s of the page's own timings.
        an.context.clock.pause_at((an.page.evaluate("Date.now()") + 250) / 1000)
        quiet[0] = True
        banner = an.page.locator("#banner")
        assert banner.get_attribute("class") != "lost"
        # The clock run a tenth of a second at a time, stopped once the page gives up: run
        # on in one go, the reconnect it schedules half a second later could open (and turn
        # the banner back to ok) before a loaded machine let the test look.
        ran = 0
        while banner.get_attribute("class") != "lost":
            assert ran < 3000, "the page kept its silent socket past the welcome's timings"
            an.context.clock.run_for(100)
            ran += 100
        quiet[0] = False
        an.context.clock.resume()  # and the page opens its socket again
        sync_api.expect(banner).to_have_class("ok")
        deadline = time.monotonic() + HANG
        while len(welcomes) < 2:  # (the route hears the frame while the page is waited on)
            assert time.monotonic() < deadline, "the page's new socket was never welcomed"
            an.page.wait_for_timeout(50)
    finally:
        an.close()
        live.close()


@pytest.mark.parametrize("shared", [True, False], ids=["cookie-domain", "host-cookie"])
def test_a_page_sent_to_another_nodes_host_name_carries_its_cookie(
    browser: Any, tmp_path: Path, shared: bool
) -> None:
    """Nodes on host names of their own (docs/deploy.md, "A host name per node"): a page of
    n1.tienlen.test sent by a ``moved`` frame (a route standing in for n1, not the owner) to
    n2.tienlen.test, both names resolving to one server. With ``--cookie-domain
    tienlen.test`` the browser's cookie goes to n2 and n2 accepts n1's page: the page plays
    there. Without it, n2 refuses the socket (no token) and the page comes back to n1
    asking to be relayed, and plays on."""
    domain = "tienlen.test" if shared else None
    url = f"sqlite+aiosqlite:///{tmp_path / 'hosts.db'}"
    live = LiveServer(server_settings(url, tmp_path, cookie_domain=domain))
    names = browser.browser_type.launch(
        executable_path=CHROMIUM,
        args=["--no-sandbox", "--host-resolver-rules=MAP *.tienlen.test 127.0.0.1"],
    )
    an = Player(names, live, "An")
    an.base = f"http://n1.tienlen.test:{live.port}"
    n1, n2 = (f"ws://n{i}.tienlen.test:{live.port}" for i in (1, 2))
    routed: list[str] = []
    welcomed: list[str] = []

    def route(ws: Any) -> None:
        routed.append(ws.url)
        if "relay=1" in ws.url:
            ws.connect_to_server()
            return
        table = ws.url.split("/ws/tables/")[1].split("?")[0]
        ws.send(json.dumps({"type": "moved", "url": f"{n2}/ws/tables/{table}"}))
        ws.close(code=4307)

    def watch(ws: Any) -> None:
        def frame(payload: str | bytes) -> None:
            if json.loads(payload)["type"] == "welcome":
                welcomed.append(ws.url)

        ws.on("framereceived", frame)

    try:
        an.page.on("websocket", watch)
        an.page.route_web_socket(re.compile(re.escape(n1) + "/ws/tables/"), route)
        create_table(an)
        an.page.click("#start")
        assert wait_turn_or_end(an.page) == "turn"
        take_turn(an.page)
        if shared:
            assert len(routed) == 1, routed
            assert len(welcomed) == 1 and welcomed[0].startswith(n2), welcomed
        else:
            assert len(routed) == 2 and "relay=1" in routed[1], routed
            assert len(welcomed) == 1 and welcomed[0].startswith(n1), welcomed
    finally:
        an.close()
        names.close()
        live.close()


def turn_state(page: Page) -> str:
    """'end' (the match is over), 'turn' (this seat may act) or 'wait', without waiting."""
    state: str = page.evaluate(
        "() => document.querySelector('.table-page')?.dataset.status === 'finished' ? 'end'"
        " : document.querySelector('#turn')?.dataset.mine === '1'"
        "   && !document.querySelector('#hint')?.disabled ? 'turn' : 'wait'"
    )
    return state


def test_two_browser_players_one_reloading_mid_game(browser: Any, tmp_path: Path) -> None:
    # A real grace period: the reload comes back well within it and keeps the seat.
    settings = server_settings(f"sqlite+aiosqlite:///{tmp_path / 'two.db'}", tmp_path, grace=30)
    live = LiveServer(settings)
    an, binh = Player(browser, live, "An"), Player(browser, live, "Binh")
    try:
        table = create_table(an)
        binh.enter(f"/t/{table}?sit=1")
        binh.page.wait_for_selector(".seat.mine")
        an.page.click("#start")
        turns = {an: 0, binh: 0}
        reloaded = False
        while {turn_state(p.page) for p in (an, binh)} != {"end"}:
            for p in (an, binh):
                if turn_state(p.page) == "turn":
                    take_turn(p.page)
                    turns[p] += 1
            if turns[binh] == 2 and not reloaded:
                binh.page.reload()
                binh.page.wait_for_selector(".seat.mine")
                reloaded = True
            an.page.wait_for_timeout(30)
        assert reloaded
        for p in (an, binh):
            sync_api.expect(p.page.locator("#result tbody tr")).to_have_count(4)
        # Binh kept the seat: no bot played for him, and both results name both players.
        assert "An" in binh.page.locator("#result").inner_text()
        assert "Binh" in an.page.locator("#result").inner_text()
        assert not any((f.get("event") or {}).get("kind") == "away" for f in an.frames)
        assert_no_other_cards(an.frames, 0)
        assert_no_other_cards(binh.frames, 1)
    finally:
        an.close()
        binh.close()
        live.close()


def test_hidden_card_counts_show_a_question_mark_and_can_be_asked(players: Any) -> None:
    # 004: "When requested, a player must reveal the number of cards in his or her hand."
    an = players("An")
    an.enter("/")
    knob = an.page.locator("#knob-hidden_counts")
    an.page.locator("details", has=knob).locator("summary").click()
    knob.check()
    an.page.get_by_role("button", name="Create").click()
    an.page.wait_for_url(re.compile(r"/t/"))
    an.page.wait_for_selector(".seat.mine")
    an.page.click("#start")
    assert wait_turn_or_end(an.page) == "turn"
    seat = an.page.locator('.seat[data-seat="2"]')
    sync_api.expect(seat.locator(".count")).to_have_text("? cards")
    seat.locator("button.ask").click()
    answer = an.page.locator('.seat[data-seat="2"] .count')
    sync_api.expect(answer).to_have_text(re.compile(r"^\d+ cards$"))
    asked = next(f["event"] for f in an.frames if f.get("event", {}).get("kind") == "ask")
    assert answer.inner_text() == f"{asked['count']} cards" and asked["partner"] == 2
    sync_api.expect(an.page.locator('.seat[data-seat="1"] .count')).to_have_text("? cards")
    assert an.page.locator("#turn").get_attribute("data-mine") == "1"  # still An's turn
    # The game's replay page words the ask with its answer.
    play_to_the_end(an.page)
    over = next(f["event"] for f in an.frames if f.get("event", {}).get("kind") == "game_over")
    an.page.goto(f"{an.base}/games/{over['record']}")
    an.page.wait_for_selector("#next")
    names = an.page.locator(".replay-seat .who").all_inner_texts()
    minh = names[2].rsplit(" (", 1)[0]
    while "asks" not in an.page.locator("#last-move").inner_text():
        an.page.click("#next")
    assert an.page.locator("#last-move").inner_text() == f"An asks {minh}: {asked['count']} cards"


def test_the_score_pad_for_a_three_game_match_on_a_phone(players: Any, server: LiveServer) -> None:
    """A pad filled in on a phone for three games played with real cards: the standings
    shown are the engine's scoring of what was entered."""
    from tienlen import Rules
    from tienlen.scoring import Outcome, score_outcome

    an = players("An", viewport={"width": 375, "height": 667}, has_touch=True)
    an.enter("/pads")
    page = an.page
    names = ["An", "Binh", "Chi", "Dung"]
    for i, name in enumerate(names):
        page.fill(f"#pad-name-{i}", name)
    code = "lu.cong"  # per card left, doubled for cóng
    page.fill("#pad-code", code)
    page.click("#pad-create")
    page.wait_for_url(re.compile(r"/pads/[\w-]{20,}$"))
    games = [  # (finishing order, cards held when the first went out, cóng seats)
        ((1, 3, 0, 2), (1, 0, 13, 2), {2}),
        ((0, 1, 2, 3), (0, 4, 6, 9), set()),
        ((2, 0, 3, 1), (3, 13, 0, 5), {1}),
    ]
    for number, (order, left, cong) in enumerate(games, 1):
        for place, seat in enumerate(order, 1):
            page.select_option(f"#place-{place}", str(seat))
        for seat, n in enumerate(left):
            page.fill(f"#left-{seat}", str(n))
        for seat in cong:
            page.check(f"#cong-{seat}")
        page.click("#pad-add")
        sync_api.expect(page.locator(".pad")).to_have_attribute("data-games", str(number))
    rules = Rules.from_code(code)
    totals = [0] * 4
    for order, left, cong in games:
        got = score_outcome(rules, Outcome(order=order, cards_left=left, cong=frozenset(cong)))
        totals = [t + d for t, d in zip(totals, got, strict=True)]
    assert totals[2] != 0  # the cóng doubling shows in the figures
    rows = page.locator("#pad-standings tbody tr")
    shown = {
        rows.nth(i).locator("td").nth(1).inner_text(): int(
            rows.nth(i).locator("td.points").inner_text()
        )
        for i in range(rows.count())
    }
    assert shown == dict(zip(names, totals, strict=True))
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # A player placed once cannot be placed again; an order left short is refused in words
    # and changes nothing.
    page.select_option("#place-1", "0")
    assert page.locator('#place-2 option[value="0"]').is_disabled()
    page.click("#pad-add")
    sync_api.expect(page.locator("#pad-error")).to_have_text("Choose who finished in place 2")
    assert page.locator(".pad").get_attribute("data-games") == "3"
    # The link is the pad: a new browser opens it (in Vietnamese), sees it read-only and is
    # asked a name inline before it may add games.
    binh = players("Binh")
    binh.page.goto(page.url)
    binh.page.click("#lang")
    sync_api.expect(binh.page.locator(".pad h1")).to_have_text("Sổ điểm")
    sync_api.expect(binh.page.locator("#pad-games tbody tr")).to_have_count(3)
    assert binh.page.locator("#pad-game").count() == 0
    binh.page.fill("#pad-guest", "Binh")
    binh.page.click("#pad-join button")
    sync_api.expect(binh.page.locator("#pad-game")).to_be_visible()
    # A game that does not fit the rules is refused naming the player, in Binh's language.
    for place, seat in enumerate((0, 1, 2, 3), 1):
        binh.page.select_option(f"#place-{place}", str(seat))
    binh.page.fill("#left-0", "3")
    binh.page.click("#pad-add")
    sync_api.expect(binh.page.locator("#pad-error")).to_have_text(
        "An về nhất nên còn 0 lá, không phải 3"
    )
    # Both copies follow each other: a game added on the phone shows in Binh's copy, and one
    # Binh deletes goes from the phone's.
    for place, seat in enumerate((3, 2, 1, 0), 1):
        page.select_option(f"#place-{place}", str(seat))
    page.click("#pad-add")
    sync_api.expect(binh.page.locator("#pad-games tbody tr")).to_have_count(4)
    binh.page.get_by_role("button", name="Xoá ván 4").click()
    sync_api.expect(page.locator("#pad-games tbody tr")).to_have_count(3)
    sync_api.expect(page.locator(".pad")).to_have_attribute("data-games", "3")


def test_the_rule_descriptions_come_in_both_languages(players: Any) -> None:
    """The rules page and the create-table form word the engine's descriptions from their
    codes, in the language chosen."""
    an = players("An")
    an.enter("/rules")
    standard = an.page.locator("article#standard")
    run = "A run of pairs has at least 3 consecutive pairs; it may not hold 2s."
    sync_api.expect(standard).to_contain_text(run)
    an.page.click("#lang")
    sync_api.expect(standard.locator("h3").first).to_have_text("Chia bài")
    sync_api.expect(standard).to_contain_text(
        "Đôi thông có ít nhất 3 đôi liên tiếp; không được có heo."
    )
    assert run not in standard.inner_text()
    an.enter("/")
    an.page.select_option("#preset", "proplay")
    an.page.locator("details.about summary").click()
    about = an.page.locator("#about-rules")
    sync_api.expect(about).to_contain_text("Thối 2: người còn giữ heo cuối ván")
    sync_api.expect(about).to_contain_text("thang bom")


def test_the_table_form_names_each_knob_by_its_description_key(
    players: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The create-table form words a knob from the catalogue entry its schema names
    (``Knob.description``), in the language chosen: changing that entry changes the form."""
    key = next(k for k in KNOBS if k.name == "trading").description
    monkeypatch.setitem(PHRASES, key, {"en": "Swap cards first", "vi": "Đổi bài trước"})
    an = players("An")
    an.enter("/")
    knob = an.page.locator("#knob-trading")
    an.page.locator("details", has=knob).locator("summary").click()
    label = an.page.locator("label", has=knob)
    sync_api.expect(label.locator(".knob-name")).to_have_text("Swap cards first")
    an.page.click("#lang")
    knob = an.page.locator("#knob-trading")
    an.page.locator("details", has=knob).locator("summary").click()
    sync_api.expect(an.page.locator("label", has=knob)).to_have_attribute("title", "Đổi bài trước")


def hand_cards(page: Page) -> list[str]:
    cards: list[str] = page.locator(".hand button.card").evaluate_all(
        "bs => bs.map(b => b.dataset.card)"
    )
    return cards


def test_keyboard_only_play_drag_chat_and_a_dom_without_hidden_cards(players: Any) -> None:
    """A whole game played from the keyboard alone; cards dragged into another order; a chat
    line; and mid-game the page's DOM holds no card but this seat's and the played ones."""
    an = players("An")
    create_table(an)
    page = an.page
    page.focus("#start")
    page.keyboard.press("Enter")
    assert wait_turn_or_end(page) == "turn"
    # Drag the last card to the front.
    before = hand_cards(page)
    page.drag_and_drop(".hand button.card >> nth=-1", ".hand button.card >> nth=0")
    after = hand_cards(page)
    assert after[0] == before[-1] and sorted(after) == sorted(before)
    # Arrow keys move between cards, Space selects, Escape clears.
    page.focus(".hand button.card >> nth=0")
    page.keyboard.press("ArrowRight")
    page.keyboard.press(" ")
    second = page.locator(".hand button.card").nth(1)
    sync_api.expect(second).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Escape")
    sync_api.expect(page.locator(".hand button.card.selected")).to_have_count(0)
    # Nothing in the DOM names an opponent's card: their hands are backs, and every card
    # the page names is in this hand or on the table.
    dom = page.evaluate(
        "() => [...document.querySelectorAll('*')].flatMap(e =>"
        " [...e.attributes].map(a => a.value))"
    )
    named = {v for v in dom if CARD.match(v)}
    played = {c for f in an.frames for c in (f.get("event") or {}).get("cards") or []}
    assert named and named <= set(hand_cards(page)) | played, named - set(hand_cards(page))
    suits = str.maketrans("♠♣♦♥", "scdh")
    text = page.locator("body").inner_text()
    written = {m.translate(suits) for m in re.findall(r"(?:10|[2-9JQKA])[♠♣♦♥]", text)}
    assert written <= set(hand_cards(page)) | played, written - set(hand_cards(page)) - played
    backs = page.locator(".seat:not(.mine) .card")
    assert backs.count() == 3
    for i in range(3):
        assert backs.nth(i).get_attribute("data-card") is None
        assert not re.search(r"(?:10|[2-9JQKA])[♠♣♦♥]", backs.nth(i).inner_html())
    # Chat.
    page.fill("#chat-text", "chúc may mắn")
    page.keyboard.press("Enter")
    sync_api.expect(page.locator(".chat-lines")).to_contain_text("chúc may mắn")
    page.focus(".hand button.card >> nth=0")
    # The rest of the game: H asks for a hint (it selects), P plays it, X passes.
    while wait_turn_or_end(page) == "turn":
        version = int(page.locator(".table-page").get_attribute("data-version") or 0)
        sync_api.expect(page.locator("#note")).to_have_text("")  # cleared by the last move
        page.keyboard.press("h")
        page.wait_for_function("() => document.querySelector('#note')?.textContent")
        page.keyboard.press("p" if page.locator(".hand .card.selected").count() else "x")
        page.wait_for_function(
            "v => Number(document.querySelector('.table-page')?.dataset.version) > v"
            " || document.querySelector('#error')?.textContent",
            arg=version,
        )
    sync_api.expect(page.locator("#result tbody tr")).to_have_count(4)


def test_mutual_trading_has_its_own_controls(players: Any) -> None:
    an = players("An")
    an.enter("/")
    page = an.page
    page.locator("details:not(.about) summary").click()
    page.select_option("#knob-trading", "mutual")
    page.fill("#games", "1")
    page.get_by_role("button", name="Create").click()
    page.wait_for_selector(".seat.mine")
    page.click("#start")
    offer = page.get_by_role("button", name="Offer")
    refuse = page.get_by_role("button", name="Refuse")
    page.wait_for_function(
        "() => [...document.querySelectorAll('button')].some(b =>"
        " ['Offer', 'Refuse'].includes(b.textContent))"
    )
    if refuse.count():  # a bot offered first: these are the answer's controls
        sync_api.expect(page.get_by_role("button", name="Accept")).to_be_visible()
        refuse.click()
        sync_api.expect(offer).to_be_visible()
    mine = hand_cards(page)
    page.locator(".hand button.card").first.click()
    page.select_option("#partner", "1")
    wanted = next(c for c in ("2h", "2d", "Ah", "Ad", "Kh") if c not in mine)
    page.fill("#take", wanted)
    offer.click()
    log = page.locator("#log")
    sync_api.expect(log).to_contain_text("An offers a trade to Bot 2 (easy)")
    sync_api.expect(log).to_contain_text(re.compile(r"Bot 2 \(easy\) (accepts|refuses) the trade"))


def test_the_san_jose_exchange_has_its_own_controls(players: Any) -> None:
    """From the second game of a San Jose match the winner and the second of the last game
    give back cards of their choice (the losers' highest cards go by themselves): the page
    offers a Give control for them. Against random bots An (playing the hints) is soon
    first or second."""
    an = players("An")
    an.enter("/")
    page = an.page
    knob = page.locator("#knob-trading")
    page.locator("details", has=knob).locator("summary").click()
    knob.select_option("san-jose")
    page.select_option("#bots", "beginner")
    page.fill("#games", "10")
    page.get_by_role("button", name="Create").click()
    page.wait_for_selector(".seat.mine")
    page.click("#start")
    while True:  # play by hints until an exchange asks this seat to choose
        page.wait_for_function(
            "() => document.querySelector('#give')"
            " || document.querySelector('.table-page')?.dataset.status === 'finished'"
            " || (document.querySelector('#turn')?.dataset.mine === '1'"
            "     && document.querySelector('#hint')?.disabled === false)"
        )
        if page.locator("#give").count():
            break
        assert page.locator(".table-page").get_attribute("data-status") != "finished"
        take_turn(page)
    view = next(
        f["view"]
        for f in reversed(an.frames)
        if (f.get("view") or {}).get("phase") == "exchange" and f["view"].get("legal")
    )
    count = len(view["legal"][0])
    sync_api.expect(page.locator(".controls")).to_contain_text(
        "Choose 1 card to give" if count == 1 else f"Choose {count} cards to give"
    )
    for card in view["legal"][0]:
        page.click(f'.hand button.card[data-card="{card}"]')
    page.click("#give")
    sync_api.expect(page.locator("#log")).to_contain_text(re.compile(r"An gives \S"))


def test_timer_legal_highlights_group_key_then_replay_player_and_leaderboard(
    players: Any,
) -> None:
    """The table's turn timer, the legal plays holding the selection, the Group key; after
    the game its replay (every hand, step by step), the player's page and the leaderboard."""
    an = players("An")
    an.enter("/")
    page = an.page
    page.fill("#games", "1")
    page.fill("#timer", "60")
    page.get_by_role("button", name="Create").click()
    page.wait_for_selector(".seat.mine")
    page.click("#start")
    assert wait_turn_or_end(page) == "turn"
    sync_api.expect(page.locator("#turn .timer")).to_have_text(re.compile(r"^\d+ s$"))
    card = page.locator(".hand button.card").first
    chosen = card.get_attribute("data-card")
    card.click()
    view = next(f["view"] for f in reversed(an.frames) if (f.get("view") or {}).get("legal"))
    expected = {c for m in view["legal"] if chosen in m for c in m}
    fits = set(
        page.locator(".hand button.card.fits").evaluate_all("bs => bs.map(b => b.dataset.card)")
    )
    assert fits == expected
    if expected:
        assert page.locator(".legal li").count() >= 1
    page.keyboard.press("Escape")
    page.keyboard.press("g")
    sync_api.expect(page.locator("#group")).to_have_attribute("aria-pressed", "true")
    groups = page.locator(".hand .card.group-start").count()
    page.keyboard.press("g")
    sync_api.expect(page.locator("#group")).to_have_attribute("aria-pressed", "false")
    assert groups >= 1 and page.locator(".hand .card.group-start").count() == 0
    play_to_the_end(page)
    page.locator("#result").get_by_role("link", name="Replay").click()
    page.wait_for_url(re.compile(r"/games/"))
    where = page.locator("#where")
    sync_api.expect(where).to_have_text(re.compile(r"^Move 0 of \d+$"))
    total = int(where.inner_text().rsplit(" ", 1)[1])
    assert page.locator(".replay-seat").count() == 4
    assert page.locator(".replay-seat").nth(1).locator(".card").count() >= 13  # all hands
    page.keyboard.press("ArrowRight")
    sync_api.expect(where).to_have_text(f"Move 1 of {total}")
    page.click("#last")
    sync_api.expect(page.locator(".replay .result li")).to_have_count(4)
    page.get_by_role("link", name="My games").click()
    page.wait_for_url(re.compile(r"/players/"))
    sync_api.expect(page.locator("table.games tbody tr")).to_have_count(1)
    page.get_by_role("link", name="Leaderboard").click()
    sync_api.expect(page.locator(".board")).to_contain_text("Nobody is rated")  # one human


def test_a_private_tables_invite_link_lets_a_friend_sit(players: Any) -> None:
    an = players("An")
    an.enter("/")
    an.page.check("#private")
    an.page.get_by_role("button", name="Create").click()
    an.page.wait_for_selector(".seat.mine")
    link = an.page.locator("#invite-link").input_value()
    assert "invite=" in link
    table = link.split("/t/")[1].split("?")[0]
    stranger = players("Chi")
    stranger.enter(f"/t/{table}")  # without the invite: refused
    sync_api.expect(stranger.page.locator("#page")).to_contain_text("private")
    binh = players("Binh")
    binh.enter(link.replace(binh.base, "") + "&sit=1")
    binh.page.wait_for_selector(".seat.mine")
    sync_api.expect(an.page.locator(".seats")).to_contain_text("Binh")
