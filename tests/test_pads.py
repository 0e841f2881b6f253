"""Score pads (issue 10): games played with a real deck, entered by hand and scored by the
engine's own scoring code. Every bad request gets an error in words and changes nothing;
each test runs on SQLite, and on PostgreSQL when it is configured."""

from __future__ import annotations

import re
from typing import Any

import pytest

from serverkit import (
    NO_REFILL,
    Client,
    LiveServer,
)
from tienlen import Game, Rules, score
from tienlen.apps.server.limits import Rate
from tienlen.cards import format_cards
from tienlen.scoring import Outcome, ScoredChop, outcome_fields, outcome_of, score_outcome

ANNA, BEN, CARLA, DAN = range(4)
NAMES = ["Anna", "Ben", "Carla", "Dan"]


@pytest.fixture
def live_settings() -> dict[str, Any]:
    return {"pads": Rate(3, NO_REFILL), "pad_edits": Rate(30, NO_REFILL)}


def new_pad(c: Client, **spec: Any) -> dict[str, Any]:
    r = c.http.post("/api/pads", json=spec)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def add(c: Client, pad: str, **entry: Any) -> dict[str, Any]:
    r = c.http.post(f"/api/pads/{pad}/games", json=entry)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def test_a_pad_scores_the_003_example_and_keeps_standings(live: LiveServer) -> None:
    a = Client(live.base, "A")
    pad = new_pad(a, names=NAMES, preset="standard", target=10)
    assert len(pad["id"]) >= 20  # the link is the key: unguessable
    assert pad["scoring"] == "scorepad" and pad["fields"] == [] and pad["games"] == []
    # 003: "Ben goes out first (+2), then Dan (+1), then Anna (−1). Carla ... (−2)."
    pad = add(a, pad["id"], order=[BEN, DAN, ANNA, CARLA])
    assert pad["games"][0]["deltas"] == [-1, 2, -2, 1]
    pad = add(a, pad["id"], order=[ANNA, BEN, CARLA, DAN])
    assert pad["totals"] == [1, 3, -3, -1]
    assert [s["name"] for s in pad["standings"]] == ["Ben", "Anna", "Dan", "Carla"]
    assert not pad["over"]
    # Anyone with the link reads the same pad, without a guest token.
    other = Client(live.base, "B")
    other.http.headers.pop("Authorization")
    other.http.cookies.clear()
    assert other.http.get(f"/api/pads/{pad['id']}").json() == pad
    # A game entered by mistake is deleted; the standings follow.
    r = a.http.delete(f"/api/pads/{pad['id']}/games/1")
    assert r.status_code == 200 and r.json()["totals"] == [2, 1, -1, -2]


def test_every_scheme_scores_as_the_engine_scores_a_played_game(live: LiveServer) -> None:
    """The same game played through the engine and entered on a pad: equal points."""
    a = Client(live.base, "A")
    hands = ["3s 9d", "2h", "4d 5d", "Ks"]
    moves = ["3s", "2h", "pass", "pass", "pass", "4d", "Ks", "pass", "pass", "9d"]
    for code in ("standard.cong", "lu", "vietcong.cong", "standard.scoring-winner-takes-all"):
        rules = Rules.from_code(code)
        game = Game(rules, hands=hands)
        for m in moves:
            if not game.is_over:  # lu ends when the first player goes out
                game.play(m)
        pad = new_pad(Client(live.base, "P"), names=NAMES, rules=code)
        entry: dict[str, Any] = {"order": list(game.finish_order)}
        if "cong" in pad["fields"]:
            entry["cong"] = [CARLA, DAN]  # neither had played when Ben went out
        if "cards_left" in pad["fields"]:
            entry["cards_left"] = [1, 0, 2, 1]
        got = add(a, pad["id"], **entry)["games"][0]["deltas"]
        assert got == list(score(game)), code


def test_chops_hands_and_instant_wins_where_the_rules_count_them(live: LiveServer) -> None:
    a = Client(live.base, "A")
    pad = new_pad(a, names=NAMES, preset="proplay")
    assert pad["fields"] == ["cards_left", "hands", "chops"]
    # Ben wins; Anna kept the 2♥ (2x = 4 to Ben); Carla cut Dan's black 2 (x = 2).
    entry = {
        "order": [BEN, ANNA, CARLA, DAN],
        "cards_left": [5, 0, 3, 12],
        "hands": ["2h", "", "", ""],
        "chops": [{"by": CARLA, "of": DAN, "cut": True, "black_twos": 1}],
    }
    deltas = add(a, pad["id"], **entry)["games"][0]["deltas"]
    rules = Rules.preset("proplay")
    outcome = Outcome(
        order=(BEN, ANNA, CARLA, DAN),
        cards_left=(5, 0, 3, 12),
        hands=(Card_mask("2h"), 0, 0, 0),
        chops=(ScoredChop(CARLA, DAN, cut=True, black_twos=1),),
    )
    assert deltas == list(score_outcome(rules, outcome))
    assert deltas == [-2 - 4, 2 + 4 + 2 + 4, -2 + 2, -4 - 2]
    instant = new_pad(a, names=NAMES[:3], preset="vietcong")
    assert instant["fields"] == ["instant_win"]
    got = add(a, instant["id"], order=[2, 0, 1], instant_win=True)["games"][0]["deltas"]
    assert got == [1, -2, 1]  # stake: the loser (seat 1) pays each other player 1
    cong = new_pad(a, names=NAMES[:3], rules="vietcong.cong")
    r = a.http.post(
        f"/api/pads/{cong['id']}/games", json={"order": [2, 0, 1], "instant_win": True, "cong": [1]}
    )
    assert r.status_code == 400 and "after an instant win nobody played" in r.json()["message"]


def Card_mask(text: str) -> int:
    from tienlen import parse_cards
    from tienlen.cards import mask_of

    return mask_of(parse_cards(text))


def test_bad_input_is_refused_in_words_and_changes_nothing(live: LiveServer) -> None:
    a = Client(live.base, "A")
    pad = new_pad(a, names=NAMES, preset="lu")  # per-card: counts cards left
    add(a, pad["id"], order=[BEN, DAN, ANNA, CARLA], cards_left=[1, 0, 2, 1])
    before = a.http.get(f"/api/pads/{pad['id']}").json()
    url = f"/api/pads/{pad['id']}/games"
    for body, code, words in [
        ({"order": [0, 1, 2]}, "bad_game", "each of the 4 players once"),
        ({"order": [0, 0, 1, 2], "cards_left": [0, 1, 1, 1]}, "bad_game", "Anna, Anna, Ben"),
        ({"order": [0, 1, 2, 3]}, "bad_game", "needs the cards each player held"),
        ({"order": [0, 1, 2, 3], "cards_left": [3, 0, 1, 1]}, "bad_game", "Anna went out first"),
        ({"order": [0, 1, 2, 3], "cards_left": [0, 1, 1, 99]}, "bad_game", "from 0 to 13"),
        (
            {"order": [0, 1, 2, 3], "cards_left": [0, 1, 1, 1], "cong": [1]},
            "bad_game",
            "do not count cong",
        ),
        (
            {"order": [0, 1, 2, 9], "cards_left": [0, 1, 1, 1]},
            "bad_pad",
            "order, place 4: not one of the players (Anna, Ben, Carla, Dan)",
        ),
        ({"order": ["0", 1, 2, 3]}, "bad_pad", "order, place 1: Input should be"),
        (
            {"order": [0, 1, 2, 3], "cards_left": [0, 1, 1, -1]},
            "bad_pad",
            "cards_left of Dan: Input should be greater than or equal to 0",
        ),
        (
            {"order": [0, 1, 2, 3], "chops": [{"by": 0, "of": 8}]},
            "bad_pad",
            "chop 1, of: not one of the players",
        ),
        ({"order": [0, 1, 2, 3], "bonus": 5}, "bad_pad", "bonus"),
        ({"order": [0, 1, 2, 3], "chops": [{"by": 0, "of": 1}]}, "bad_game", "do not count chops"),
    ]:
        r = a.http.post(url, json=body)
        assert r.status_code == 400 and r.json()["code"] == code, (body, r.text)
        assert words in r.json()["message"], (body, r.json())
    r = a.http.post(url, content=b"{" + b" " * 9000 + b"}", headers={"Content-Type": "x"})
    assert r.status_code == 400 and r.json()["code"] == "too_large"
    assert a.http.delete(f"/api/pads/{pad['id']}/games/5").status_code == 404
    assert a.http.get(f"/api/pads/{pad['id']}").json() == before
    # Pads themselves.
    for spec, code, words in [
        ({"names": ["Solo"]}, "bad_pad", "names"),
        ({"names": ["A"] * 9}, "bad_pad", "names"),
        ({"names": ["A", "x" * 25]}, "bad_pad", "names.1"),
        ({"names": ["A", "B\n"]}, "bad_pad", "names.1"),
        ({"names": ["A", "B"], "preset": "nosuch"}, "bad_rules", "unknown preset 'nosuch'"),
        ({"names": ["A", "B"], "rules": "standard.bogus"}, "bad_rules", "cannot read part"),
        ({"names": ["A", "B"], "rules": "lu", "preset": "lu"}, "bad_rules", "not both"),
    ]:
        r = Client(live.base, "C").http.post("/api/pads", json=spec)
        assert r.status_code == 400 and r.json()["code"] == code, (spec, r.text)
        assert words in r.json()["message"], (spec, r.json())
    assert Client(live.base, "D").http.get("/api/pads/nope").status_code == 404
    anonymous = Client(live.base, "E")
    anonymous.http.headers.pop("Authorization")
    anonymous.http.cookies.clear()
    assert anonymous.http.post(url, json={"order": [0, 1, 2, 3]}).status_code == 401
    assert a.http.get(f"/api/pads/{pad['id']}").json() == before


def test_a_game_that_does_not_fit_names_the_players_in_both_languages(live: LiveServer) -> None:
    """Every way the engine refuses a pad's game names the players, never a seat from 0 or
    a tuple, and carries a reason the browser words in English or Vietnamese."""
    from tienlen.reasons import Reason

    a = Client(live.base, "A")
    pad = new_pad(a, names=NAMES, rules="proplay.guarantees.cong")
    url = f"/api/pads/{pad['id']}/games"
    fine = {"order": [BEN, ANNA, CARLA, DAN], "cards_left": [5, 0, 3, 12]}
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"order": [BEN, ANNA, CARLA]}, "outcome_order", "not Ben, Anna, Carla"),
        ({"order": [BEN, ANNA, CARLA, 7]}, "outcome_order", "not Ben, Anna, Carla, player 8"),
        ({"order": [BEN, BEN, CARLA, DAN]}, "outcome_order", "not Ben, Ben, Carla, Dan"),
        ({"cards_left": [5, 0, 3]}, "outcome_cards_left_count", "each of the 4 players"),
        ({"cards_left": [5, 0, 14, 12]}, "outcome_cards_left_range", "Carla cannot have held 14"),
        ({"cards_left": [5, 2, 3, 12]}, "outcome_winner_cards", "Ben went out first"),
        ({"cong": [BEN]}, "outcome_cong", "Ben went out first, so cannot be cóng"),
        ({"cong": [DAN, 6]}, "outcome_no_player", "player 7 is not a player"),
        ({"hands": ["2h", "", ""]}, "outcome_hands_count", "each of the 4 players"),
        ({"hands": ["2h", "", "zz", ""]}, "outcome_hand", "Carla's cards left"),
        (
            {"guarantees": [{"seat": DAN}, {"seat": DAN, "blind": True}]},
            "outcome_guarantee_twice",
            "Dan can guarantee only once",
        ),
        ({"guarantees": [{"seat": 5}]}, "outcome_no_player", "player 6"),
        ({"chops": [{"by": DAN, "of": DAN}]}, "outcome_self_chop", "Dan cannot chop their own"),
        ({"chops": [{"by": CARLA, "of": 4}]}, "outcome_no_player", "player 5"),
        (
            {"chops": [{"by": CARLA, "of": DAN}, {"by": ANNA, "of": CARLA, "on": 1}]},
            "outcome_chop_on",
            "chop 2 can only answer an earlier chop, not chop 2",
        ),
        ({"instant_win": True}, "outcome_uncounted", "do not count instant_win"),
    ]
    for change, code, words in cases:
        r = a.http.post(url, json={**fine, **change})
        body = r.json()
        assert r.status_code == 400 and body["code"] == "bad_game", (change, body)
        assert body["reason"]["code"] == code and words in body["message"], (change, body)
        assert not re.search(r"\(\d+(, \d+)*\)|\bseat\b|\[\d", body["message"]), body
        said = Reason(code, body["reason"]["params"])
        assert str(said) == body["message"]
        vietnamese = said.text("vi")
        assert vietnamese != body["message"]
        for name in NAMES:  # the players named in English are named in Vietnamese too
            assert (name in vietnamese) == (name in body["message"]), (change, vietnamese)
    assert a.http.get(f"/api/pads/{pad['id']}").json()["games"] == []


def test_pads_are_rate_limited(live: LiveServer) -> None:
    a = Client(live.base, "A")
    pads = [new_pad(a, names=["A", "B"]) for _ in range(3)]
    r = a.http.post("/api/pads", json={"names": ["A", "B"]})
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    url = f"/api/pads/{pads[0]['id']}/games"
    codes = [a.http.post(url, json={"order": [0, 1]}).status_code for _ in range(31)]
    assert codes == [201] * 30 + [429]
    assert len(a.http.get(f"/api/pads/{pads[0]['id']}").json()["games"]) == 30


def test_guarantees_are_scored_as_a_match_scores_them(live: LiveServer) -> None:
    from tienlen import Match

    a = Client(live.base, "A")
    pad = new_pad(a, names=NAMES, rules="proplay.guarantees")
    assert pad["fields"] == ["cards_left", "hands", "chops", "guarantees"]
    rules = Rules.from_code(pad["rules"])
    match = Match(rules, games=1, seed=3)
    match.guarantee(0)
    match.guarantee(2, blind=True)
    game = match.game
    while not game.is_over:
        game.play(game.legal_moves()[0])
    [result] = match.results
    snap = outcome_of(game)
    entry = {
        "order": list(game.finish_order),
        "cards_left": list(snap.cards_left),
        "hands": [format_cards(h) for h in game.hands],
        "guarantees": [{"seat": 0}, {"seat": 2, "blind": True}],
    }
    if snap.chops:
        entry["chops"] = [
            {
                "by": c.seat,
                "of": c.victim,
                "cut": c.cut,
                "red_twos": c.red_twos,
                "black_twos": c.black_twos,
                "on": c.on,
            }
            for c in snap.chops
        ]
    got = add(a, pad["id"], **entry)["games"][0]["deltas"]
    assert got == list(result.deltas)
    plain = new_pad(a, names=NAMES, preset="proplay")
    r = a.http.post(f"/api/pads/{plain['id']}/games", json=entry)
    assert r.status_code == 400 and "do not count guarantees" in r.json()["message"]


def test_outcome_fields_follow_the_knobs() -> None:
    assert outcome_fields(Rules.preset("standard")) == ()
    assert outcome_fields(Rules.preset("standard", cong=True)) == ("cong",)
    assert "three_spades_last" in outcome_fields(
        Rules.preset("standard", score_extras=("three-spades-last",))
    )
