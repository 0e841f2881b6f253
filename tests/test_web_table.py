"""The browser table as people hold it: a phone upright (390x844, touch), a phone sideways
(844x390) and a laptop (1280x800), in English and Vietnamese. Whole games are played by taps
from "Play now"; at every turn the hand and the Play / Pass buttons must lie inside the
screen without scrolling. Seats sit round the table in play order; a guest who closes the tab
shows as offline with a countdown, then their bot plays; a language switch rewords the log.

Turn timers and grace periods are a few seconds here, so each test takes seconds."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from serverkit import LiveServer, server_settings, until
from test_web import WAIT, Player, sync_api
from test_web import browser as browser  # fixtures, shared
from test_web import server as server

pytestmark = pytest.mark.slow

PORTRAIT = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
LANDSCAPE = {"viewport": {"width": 844, "height": 390}, "has_touch": True, "is_mobile": True}
LAPTOP = {"viewport": {"width": 1280, "height": 800}}
PLAY = {"en": "Play", "vi": "Đánh"}
PASS = {"en": "Pass", "vi": "Bỏ lượt"}


def speak(p: Player, lang: str) -> None:
    """Choose the page's language before the first page (remembered in the browser)."""
    p.context.add_init_script(f"localStorage.setItem('tienlen.lang', '{lang}')")


def play_now(p: Player, *, level: str = "easy", preset: str = "standard") -> None:
    """The first page's "Play now": a name inline, a bot level, rules; the game starts."""
    p.page.goto(p.base + "/")
    p.page.fill("#guest-name", p.name)
    p.page.select_option("#quick-level", level)
    p.page.select_option("#quick-rules", preset)
    p.page.click("#play-now-go")
    p.page.wait_for_url(re.compile(r"/t/"))
    p.page.wait_for_selector('.table-page[data-status="playing"]')


def inside(page: Any, selector: str) -> None:
    """Every element of ``selector`` is drawn and lies wholly inside the viewport, waited for
    (bounded): a frame that arrives between the turn's check and this one redraws the table,
    and the check must not land between two draws."""
    width, height = page.viewport_size["width"], page.viewport_size["height"]

    def fits() -> bool:
        boxes = page.locator(selector).evaluate_all(
            "els => els.map(e => { const r = e.getBoundingClientRect();"
            " return [r.left, r.top, r.right, r.bottom]; })"
        )
        return bool(boxes) and all(
            left >= -1 and top >= -1 and right <= width + 1 and bottom <= height + 1
            for left, top, right, bottom in boxes
        )

    until(fits, f"every {selector} drawn inside the {width}x{height} screen")


def press(locator: Any) -> None:
    """A tap on a touch screen, else a click."""
    if locator.page.evaluate("navigator.maxTouchPoints > 0"):
        locator.tap()
    else:
        locator.click()


def no_scrolling(page: Any) -> None:
    dims = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.scrollHeight,"
        " innerWidth, innerHeight]"
    )
    assert dims[0] <= dims[2] and dims[1] <= dims[3], dims


def wait_turn_or_end(page: Any) -> str:
    page.wait_for_function(
        "() => document.querySelector('.table-page')?.dataset.status === 'finished'"
        " || (document.querySelector('#turn')?.dataset.mine === '1'"
        "     && !document.querySelector('#hint')?.disabled)"
    )
    status = page.locator(".table-page").get_attribute("data-status")
    return "end" if status == "finished" else "turn"


def tap_a_turn(page: Any, lang: str) -> None:
    """Tap cards (the hint's choice, then each card by a tap) and tap Play, or tap Pass."""
    version = int(page.locator(".table-page").get_attribute("data-version") or 0)
    sync_api.expect(page.locator("#note")).to_have_text("")  # cleared by the last move
    press(page.locator("#hint"))
    page.wait_for_function("() => document.querySelector('#note')?.textContent")
    chosen = page.locator(".hand .card.selected").evaluate_all("bs => bs.map(b => b.dataset.card)")
    note = page.locator("#note").inner_text()
    assert not chosen or note.endswith(")"), note  # the hint's reason beside it
    if lang == "vi":  # worded in Vietnamese too
        assert not re.search(r"\b(your|the|with|lead|play|nothing)\b", note), note
    play = page.get_by_role("button", name=PLAY[lang], exact=True)
    if chosen:
        # Unselect by taps, see Play disabled with nothing chosen, then choose again by taps.
        for card in chosen:
            press(page.locator(f'.hand button.card[data-card="{card}"]'))
        sync_api.expect(play).to_be_disabled()
        for card in chosen:
            press(page.locator(f'.hand button.card[data-card="{card}"]'))
        press(play)
    else:
        press(page.get_by_role("button", name=PASS[lang], exact=True))
    page.wait_for_function(
        "v => Number(document.querySelector('.table-page')?.dataset.version) > v"
        " || document.querySelector('#error')?.textContent",
        arg=version,
    )


@pytest.mark.parametrize(
    ("device", "lang"),
    [(PORTRAIT, "en"), (PORTRAIT, "vi"), (LANDSCAPE, "vi"), (LAPTOP, "en")],
    ids=["portrait-en", "portrait-vi", "landscape-vi", "laptop-en"],
)
def test_a_whole_game_by_taps_from_play_now(
    browser: Any, server: LiveServer, device: dict[str, Any], lang: str
) -> None:
    an = Player(browser, server, "An", **device)
    try:
        speak(an, lang)
        play_now(an)
        page = an.page
        turns = 0
        # A deal can end before the seat has had three turns (about one in 3,000 with these
        # bots): the host deals again until it has, three deals at most.
        for deal in range(3):
            if deal:
                press(page.locator("#rematch"))
                page.wait_for_selector('.table-page[data-status="playing"]')
            while wait_turn_or_end(page) == "turn":
                # The whole table, the hand and the buttons on one screen, nothing to scroll.
                no_scrolling(page)
                inside(page, ".hand button.card")
                inside(page, ".seat")
                play = page.get_by_role("button", name=PLAY[lang], exact=True)
                sync_api.expect(play).to_be_visible()
                inside(page, "#play, #pass, #hint")
                if turns == 0:
                    for b in ("#play", "#pass", "#hint"):  # a thumb's size
                        box = page.locator(b).bounding_box()
                        assert box is not None and box["height"] >= 44 and box["width"] >= 44, box
                tap_a_turn(page, lang)
                turns += 1
            if turns >= 3:
                break
        assert turns >= 3, page.locator("#log").inner_text()  # (a seat given to its bot shows)
        result = page.locator("#result")
        sync_api.expect(result.locator("tbody tr")).to_have_count(4)
        inside(page, "#result")
        sync_api.expect(page.locator("#rematch")).to_be_visible()
        # Standings and results go by points, most first.
        points = [int(x) for x in page.locator("#match-standings li b").all_inner_texts()]
        assert points == sorted(points, reverse=True) and len(points) == 4
        if device is LAPTOP:  # the side column's move log shows the newest move
            log = page.locator("#log")
            assert log.is_visible()
            assert log.evaluate("e => e.scrollHeight > e.clientHeight")
            assert log.evaluate("e => e.scrollTop + e.clientHeight >= e.scrollHeight - 2")
    finally:
        an.close()


def settled_seat_centres(page: Any, n: int) -> dict[int, tuple[float, float]]:
    """The centres of the ``n`` seats once the table has settled: two readings a tenth of a
    second apart agree and no two seats share a place (right after the start the table can
    be drawn before its felt has its size, every seat in one spot)."""
    deadline = time.monotonic() + WAIT / 1000
    last: dict[int, tuple[int, int]] = {}
    while True:
        got = {s: (round(x), round(y)) for s, (x, y) in seat_centres(page).items()}
        if len(got) == n and len(set(got.values())) == n and got == last:
            return {s: (float(x), float(y)) for s, (x, y) in got.items()}
        assert time.monotonic() < deadline, f"the seats did not settle: {got}"
        last = got
        page.wait_for_timeout(100)


def seat_centres(page: Any) -> dict[int, tuple[float, float]]:
    got = page.locator(".seat").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [Number(e.dataset.seat), r.left + r.width / 2, r.top + r.height / 2]; })"
    )
    return {seat: (x, y) for seat, x, y in got}


@pytest.mark.parametrize(
    ("preset", "players", "direction"),
    [("standard", 4, "clockwise"), ("double-deck-13", 6, "anticlockwise")],
)
def test_seats_sit_round_the_table_in_play_order(
    browser: Any, server: LiveServer, preset: str, players: int, direction: str
) -> None:
    """This player at the bottom; the next to play on the left when play goes clockwise, on
    the right when anticlockwise; going round the screen meets the seats in play order."""
    import math

    an = Player(browser, server, "An", **PORTRAIT)
    try:
        an.enter("/")
        an.page.select_option("#preset", preset)
        an.page.locator("details.options summary").click()
        an.page.wait_for_selector(f'#knob-players option[value="{players}"]', state="attached")
        an.page.select_option("#knob-players", str(players))
        an.page.select_option("#knob-direction", direction)
        an.page.get_by_role("button", name="Create").click()
        an.page.wait_for_selector(".seat.mine")
        an.page.click("#start")
        wait = an.page.wait_for_function
        wait(
            "n => document.querySelector('.table-page')?.dataset.status === 'playing'"
            " && document.querySelectorAll('.seat').length === n",
            arg=players,
        )
        centres = settled_seat_centres(an.page, players)
        assert len(centres) == players
        me = an.page.locator(".seat.mine").get_attribute("data-seat")
        mine = int(me or 0)
        cx = sum(x for x, _ in centres.values()) / players
        cy = sum(y for _, y in centres.values()) / players
        assert centres[mine][1] == max(y for _, y in centres.values())  # at the bottom
        step = 1 if direction == "clockwise" else -1
        following = (mine + step) % players
        if direction == "clockwise":
            assert centres[following][0] < centres[mine][0]  # to the left
        else:
            assert centres[following][0] > centres[mine][0]  # to the right

        # Screen angles, turning the way play turns (clockwise on screen: from the bottom
        # to the left, the top, the right), grow seat after seat in play order.
        def turned(seat: int) -> float:
            x, y = centres[seat]
            a = math.atan2(y - cy, x - cx) - math.pi / 2
            return (a * step) % (2 * math.pi)

        order = [(mine + k * step) % players for k in range(players)]
        angles = [turned(s) for s in order]
        assert angles == sorted(angles), (order, angles)
        no_scrolling(an.page)
    finally:
        an.close()


def test_a_closed_tab_shows_offline_with_a_countdown_then_its_bot_plays(
    browser: Any, tmp_path: Path
) -> None:
    settings = server_settings(f"sqlite+aiosqlite:///{tmp_path / 'gone.db'}", tmp_path, grace=4)
    live = LiveServer(settings)
    an = Player(browser, live, "An", **PORTRAIT)
    binh = Player(browser, live, "Binh", **LANDSCAPE)
    try:
        an.enter("/")
        an.page.fill("#timer", "0")  # no turn timer: the grace alone decides
        an.page.get_by_role("button", name="Create").click()
        an.page.wait_for_selector(".seat.mine")
        table = an.page.url.split("/t/")[1].split("?")[0]
        binh.enter(f"/t/{table}?sit=1")
        binh.page.wait_for_selector(".seat.mine")
        an.page.click("#start")
        binh.page.wait_for_selector('.table-page[data-status="playing"]')
        binh_seat = binh.page.locator(".seat.mine").get_attribute("data-seat")
        binh.page.close()  # the tab is gone
        seat = an.page.locator(f'.seat[data-seat="{binh_seat}"]')
        sync_api.expect(seat.locator(".badge.offline")).to_contain_text("offline")
        countdown = seat.locator(".badge.offline .timer")
        sync_api.expect(countdown).to_have_text(re.compile(r"^[1-4] s$"))
        # Then the bot takes the seat (shown as such) and plays Binh's turns.
        sync_api.expect(seat.locator(".badge.away")).to_be_visible(timeout=WAIT)
        log = an.page.locator("#log")  # in the drawer: its text, unseen
        sync_api.expect(log).to_contain_text("Binh is away: a bot plays for them")
        while wait_turn_or_end(an.page) == "turn":
            tap_a_turn(an.page, "en")
            if re.search(r"Binh: \S|Binh passes", log.text_content() or ""):
                break
        moves = [
            f
            for f in an.frames
            if (f.get("event") or {}).get("kind") in ("play", "pass")
            and str((f.get("event") or {}).get("seat")) == binh_seat
        ]
        away = next(
            i for i, f in enumerate(an.frames) if (f.get("event") or {}).get("kind") == "away"
        )
        assert moves and an.frames.index(moves[-1]) > away
    finally:
        an.close()
        binh.close()
        live.close()


def test_a_language_switch_rewords_the_log(browser: Any, server: LiveServer) -> None:
    an = Player(browser, server, "An", **LAPTOP)
    try:
        play_now(an)
        assert wait_turn_or_end(an.page) == "turn"
        tap_a_turn(an.page, "en")
        log = an.page.locator("#log")
        sync_api.expect(log).to_contain_text("Game 1 is dealt")
        sync_api.expect(log).to_contain_text(re.compile(r"Bot \d \(easy\)"))
        an.page.click("#lang")
        sync_api.expect(log).to_contain_text("Chia bài ván 1")
        sync_api.expect(log).to_contain_text(re.compile(r"Máy \d \(dễ\)"))
        assert "Game 1 is dealt" not in log.inner_text()
        sync_api.expect(an.page.locator("#play")).to_have_text("Đánh")
    finally:
        an.close()


IDENTIFIER = re.compile(r"\b[a-z]+_[a-z_]+\b")
JSON_LITERAL = re.compile(r'[{\[]\s*"|"\s*:|\b(?:null|true|false)\b|\[\]|\{\}')


def test_no_visible_text_is_a_python_name_or_json(browser: Any, server: LiveServer) -> None:
    """The lobby (its create form open), the rules page, a table and the score pad, in both
    languages: no words like ``hidden_counts`` or ``{"players": 4}`` meet the eye."""
    an = Player(browser, server, "An", **LAPTOP)
    try:
        for lang in ("en", "vi"):
            an.page.goto(an.base + "/")
            an.page.evaluate(f"localStorage.setItem('tienlen.lang', '{lang}')")
            an.page.reload()
            an.page.wait_for_selector("#create")
            an.page.locator("details.options summary").click()
            an.page.locator("details.about summary").click()
            texts = [an.page.locator("body").inner_text()]
            texts += an.page.locator("option").all_inner_texts()
            an.page.goto(an.base + "/rules")
            an.page.wait_for_selector("article")
            texts.append(an.page.locator("body").inner_text())
            for text in texts:
                assert not IDENTIFIER.search(text), IDENTIFIER.search(text)
                assert not JSON_LITERAL.search(text), JSON_LITERAL.search(text)
        play_now(an)
        for _ in ("vi", "en"):
            an.page.click("#lang")
            text = an.page.locator("body").inner_text()
            assert not IDENTIFIER.search(text) and not JSON_LITERAL.search(text), text
    finally:
        an.close()


def test_the_catalogues_have_the_same_keys(browser: Any, server: LiveServer) -> None:
    an = Player(browser, server, "An")
    try:
        an.page.goto(an.base + "/rules")
        keys = an.page.evaluate(
            "async () => { const m = await import('/static/js/i18n.js');"
            " return [Object.keys(m.WORDS.en).sort(), Object.keys(m.WORDS.vi).sort()]; }"
        )
        # Singular forms ("1 card", key.one) are for languages with plurals: English has
        # them, Vietnamese needs none; every other key is in both.
        en, vi = ({k for k in ks if not k.endswith(".one")} for ks in keys)
        assert en == vi, en ^ vi
        assert all(k.removesuffix(".one") in en for k in keys[0] + keys[1])
        assert len(en) > 150
    finally:
        an.close()


def test_the_state_reducer_takes_the_chop_from_the_server(browser: Any, server: LiveServer) -> None:
    """The reducer keeps what the server said: a play event marked as a chop raises the
    banner and a chop line in the log (worded later), and asks for the chop's sound."""
    an = Player(browser, server, "An")
    try:
        an.page.goto(an.base + "/rules")
        got = an.page.evaluate(
            """async () => {
              const s = await import('/static/js/tablestate.js');
              const seats = [0, 1, 2, 3].map((i) => ({seat: i, name: 'P' + i}));
              const table = {seats, status: 'playing'};
              let st = s.initialState('me');
              st = s.reduce(st, {type: 'state', version: 3, table});
              st = s.reduce(st, {type: 'event', version: 4, more: false,
                event: {kind: 'play', seat: 2, cards: ['3s', '3c', '3d', '3h'],
                        chop: {victim: 1, twos: 1}}});
              const plain = s.reduce(st, {type: 'event', version: 5, more: false,
                event: {kind: 'play', seat: 3, cards: ['4s']}});
              return {banner: st.banner, last: st.log[st.log.length - 1], effects: st.effects,
                      after: plain.banner, plainEffects: plain.effects};
            }"""
        )
        assert got["banner"] == {"key": "banner.chopheo", "seat": 2, "victim": 1, "version": 4}
        assert got["last"]["key"] == "log.chopheo" and got["last"]["victim"] == 1
        assert {"kind": "sound", "sound": "chop"} in got["effects"]
        assert got["after"] == got["banner"]  # the banner stays until the page drops it
        assert {"kind": "sound", "sound": "chop"} not in got["plainEffects"]
    finally:
        an.close()


def test_a_hint_note_lasts_until_the_seat_moves(browser: Any, server: LiveServer) -> None:
    """A hint is about one turn: other seats' moves leave its note, this seat's move ends it
    (a stale "Hint: pair of 5s" stayed on screen after the pair was played), also where more
    events follow in its batch, and a new deal ends it. A hint that comes back after a move
    was made is dropped, and a state after a gap or a new turn of the seat's ends a note (a
    hint that came back after the seat's bot had played its turn stayed into the next one)."""
    an = Player(browser, server, "An")
    try:
        an.page.goto(an.base + "/rules")
        got = an.page.evaluate(
            """async () => {
              const s = await import('/static/js/tablestate.js');
              const seats = [0, 1, 2, 3].map((i) => ({seat: i, name: 'P' + i, player: 'p' + i}));
              const table = {seats, status: 'playing'};
              let st = s.initialState('p1');
              st = s.reduce(st, {type: 'state', version: 3, table});
              const hint = (cards, kind) =>
                ({type: 'hint', asked: st.moves, cards, kind, why: 'w'});
              st = s.reduce(st, hint(['5c', '5h'], 'pair'));
              const hinted = st.note;
              st = s.reduce(st, {type: 'event', version: 4, more: false,
                event: {kind: 'pass', seat: 0}});
              const afterOther = st.note;
              st = s.reduce(st, {type: 'event', version: 5, more: false,
                event: {kind: 'play', seat: 1, cards: ['5c', '5h']}});
              const afterOwn = st.note;
              // The seat's last cards: its play comes first in a batch, the game's end and the
              // next deal after it (the note stayed on into the next game).
              st = s.reduce(st, hint(['10c', '10d'], 'pair'));
              const hintedAgain = st.note;
              st = s.reduce(st, {type: 'event', version: 6, more: true,
                event: {kind: 'play', seat: 1, cards: ['10c', '10d']}});
              st = s.reduce(st, {type: 'event', version: 7, more: false,
                event: {kind: 'game_over', game: 1, finish_order: [1, 0, 2, 3]}});
              const afterOut = st.note;
              st = s.reduce(st, {...hint([], null), why: null});
              const passHint = st.note;
              st = s.reduce(st, {type: 'event', version: 8, more: false, event: {kind: 'deal'}});
              const afterDeal = st.note;
              // Asked, then another seat moves before the answer: the answer is dropped.
              const late = hint(['7s'], 'single');
              st = s.reduce(st, {type: 'event', version: 9, more: false,
                event: {kind: 'pass', seat: 0}});
              st = s.reduce(st, late);
              const lateNote = st.note, lateSelected = st.selected;
              // A note on a turn of the seat's: a state at a new version (a socket opened
              // again after a gap) ends it, one at the same version (a sync with nothing
              // new) leaves it.
              const view = (turn) => ({turn, phase: 'play', hand: ['7s', '9d'], legal: [['9d']]});
              st = s.reduce(st, {type: 'state', version: 9, table, view: view(1)});
              st = s.reduce(st, hint(['9d'], 'single'));
              st = s.reduce(st, {type: 'state', version: 9, table, view: view(1)});
              const sameState = st.note;
              st = s.reduce(st, {type: 'state', version: 12, table, view: view(1)});
              const newState = st.note;
              // A note left from a turn whose move never came (refused): the seat's next
              // turn begins without it.
              st = s.reduce(st, hint(['9d'], 'single'));
              st = s.reduce(st, {type: 'event', version: 13, more: false,
                event: {kind: 'play', seat: 2, cards: ['10s']}, view: view(2)});
              const othersTurn = st.note;
              st = s.reduce(st, {type: 'event', version: 14, more: false,
                event: {kind: 'play', seat: 3, cards: ['Js']}, view: view(1)});
              return {hinted, afterOther, afterOwn, hintedAgain, afterOut, passHint, afterDeal,
                      lateNote, lateSelected, sameState, newState, othersTurn,
                      nextTurn: st.note, seat: st.seat};
            }"""
        )
        assert got["seat"] == 1
        assert got["hinted"]["key"] == "note.hint" and got["hinted"]["cards"] == ["5c", "5h"]
        assert got["afterOther"] == got["hinted"]
        assert got["afterOwn"] is None
        assert got["hintedAgain"]["cards"] == ["10c", "10d"]
        assert got["afterOut"] is None
        assert got["passHint"] == {"key": "note.hintpass"}
        assert got["afterDeal"] is None
        assert got["lateNote"] is None and got["lateSelected"] == []
        assert got["sameState"]["cards"] == ["9d"]
        assert got["newState"] is None
        assert got["othersTurn"]["cards"] == ["9d"]  # other seats' moves leave it
        assert got["nextTurn"] is None
    finally:
        an.close()


def test_installable_with_an_honest_offline_page(browser: Any, server: LiveServer) -> None:
    """A manifest with icons that load (a phone's home screen opens it full screen), and a
    service worker that keeps the page's files and, offline, says that play needs the
    server."""
    an = Player(browser, server, "An")
    try:
        page = an.page
        page.goto(an.base + "/rules")
        assert page.evaluate("navigator.serviceWorker.ready.then(r => Boolean(r.active))")
        href = page.locator('link[rel="manifest"]').get_attribute("href")
        manifest = page.evaluate(f"fetch('{href}').then(r => r.json())")
        assert manifest["start_url"] == "/" and "fullscreen" in manifest["display_override"]
        sizes = {i["sizes"] for i in manifest["icons"]}
        assert {"192x192", "512x512"} <= sizes
        for icon in manifest["icons"]:
            status = page.evaluate(f"fetch('{icon['src']}').then(r => r.status)")
            assert status == 200, icon
        page.reload()  # now the worker looks after the page
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        an.context.set_offline(True)
        page.goto(an.base + "/t/nowhere")
        sync_api.expect(page.locator("h1")).to_contain_text("You are offline")
        assert "needs its server" in page.locator("body").inner_text()
        an.context.set_offline(False)
    finally:
        an.close()


def test_sounds_start_off_and_reduced_motion_stills_the_table(
    browser: Any, server: LiveServer
) -> None:
    an = Player(browser, server, "An", reduced_motion="reduce", **PORTRAIT)
    try:
        play_now(an)
        sound = an.page.locator("#sound")
        sync_api.expect(sound).to_have_attribute("aria-pressed", "false")
        press(sound)
        sync_api.expect(an.page.locator("#sound")).to_have_attribute("aria-pressed", "true")
        assert an.page.evaluate("localStorage.getItem('tienlen.sound')") == "on"
        card = an.page.locator(".hand button.card").first
        assert card.evaluate("e => getComputedStyle(e).transitionDuration") == "0s"
        # A tapped card rises at once: no transition runs (without the setting one would).
        press(card)
        sync_api.expect(card).to_have_attribute("aria-pressed", "true")
        assert an.page.evaluate("document.getAnimations().length") == 0
    finally:
        an.close()
