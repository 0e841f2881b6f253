"""Limits on what outside data can make the engine and the apps do: rules whose hands would
form billions of combinations are refused when built, so a record or saved match naming
them ends at once with an error (checked in a subprocess under a small memory and CPU cap),
and error messages quote only a short prefix of what they were given."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from quick import presets
from tienlen import RULESETS, Rules, RulesError
from tienlen.cards import parse_cards
from tienlen.inputs import quote_value
from tienlen.rules import MAX_COMBINATIONS
from tienlen.text import printable

# rules that look valid: two players, two decks, every card dealt (52 cards a hand)
BOMB_RULES = {"name": "standard", "players": 2, "decks": 2, "hand_size": "all"}


def capped(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``tienlen ARGS`` with 1 GiB of address space and 30 s of CPU at most."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        resource.setrlimit(resource.RLIMIT_CPU, (30, 30))

    return subprocess.run(
        [sys.executable, "-m", "tienlen.apps.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=120,
    )


def test_every_preset_is_well_under_the_combination_limit() -> None:
    for name in RULESETS:
        assert Rules.preset(name).most_combinations < MAX_COMBINATIONS // 100


def test_two_players_may_share_one_deck() -> None:
    rules = Rules.preset("standard", players=2, hand_size="all")
    assert rules.cards_per_hand == 26
    assert rules.most_combinations < MAX_COMBINATIONS


def test_two_decks_dealt_to_two_players_are_refused_with_a_clear_error() -> None:
    with pytest.raises(RulesError, match=r"a hand of 52 cards from 2 deck.* use one deck"):
        Rules.from_dict(BOMB_RULES)


def test_the_bound_covers_a_real_hand() -> None:
    # 26 cards, two of each rank but the 2s and one more 3: many runs and pair runs
    from tienlen.movegen import combinations_of

    rules = Rules.preset("standard", players=2, hand_size="all")
    hand = parse_cards(
        "3s 3c 3d 4s 4c 5s 5c 6s 6c 7s 7c 8s 8c 9s 9c 10s 10c Js Jc Qs Qc Ks Kc As Ac 2s"
    )
    mask = 0
    for card in hand:
        mask |= card.bit
    assert len(combinations_of(mask, rules)) <= rules.most_combinations


def test_a_tiny_record_of_huge_rules_ends_at_once(tmp_path: Path) -> None:
    record = tmp_path / "bomb.json"
    record.write_text(
        json.dumps({"format": "tienlen-game", "version": 1, "rules": BOMB_RULES, "actions": []})
    )
    assert record.stat().st_size < 305
    proc = capped("replay", str(record))
    assert proc.returncode == 2, proc.stderr
    assert "a hand of 52 cards from 2 deck(s)" in proc.stderr


def test_a_saved_match_of_huge_rules_ends_at_once(tmp_path: Path) -> None:
    save = tmp_path / "match.json"
    save.write_text(
        json.dumps(
            {
                "format": "tienlen-match",
                "version": 1,
                "settings": {"rules": BOMB_RULES, "bots": ["greedy"], "games": 1, "seed": 1},
                "games": [],
            }
        )
    )
    proc = capped("play", "--plain", "--resume", str(save))
    assert proc.returncode == 2, proc.stderr
    assert "a hand of 52 cards from 2 deck(s)" in proc.stderr


def test_error_messages_quote_a_short_prefix() -> None:
    huge = "3s " * 1_000_000  # a 3 MB "play"
    with pytest.raises(ValueError) as info:
        parse_cards(huge)
    assert len(str(info.value)) < 300
    assert quote_value("x" * 1000, limit=5) == "'xxxxx'… (1000 characters)"


def test_printable_escapes_terminal_controls() -> None:
    assert printable("A\x1b]0;owned\x07\x1b[2J\u202eB") == "A\\x1b]0;owned\\x07\\x1b[2J\\u202eB"
    assert printable("Ann ♠ Lê") == "Ann ♠ Lê"
    assert printable("abcdef", limit=3) == "abc…"


def test_files_past_the_size_cap_are_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tienlen.apps.cli import main
    from tienlen.inputs import MAX_TEXT

    big = tmp_path / "big.json"
    big.write_text('{"format": "tienlen-game", "x": "' + "x" * MAX_TEXT + '"}')
    for argv in (["replay", str(big)], ["play", "--plain", "--resume", str(big)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"larger than {MAX_TEXT:,} bytes" in err
        assert len(err) < 300


@pytest.mark.parametrize("name", presets(RULESETS))
def test_the_count_of_a_hand_is_exact_or_above(name: str) -> None:
    import random

    from tienlen.cards import deck
    from tienlen.movegen import combinations_of

    rules = Rules.preset(name)
    rng = random.Random(name)
    cards = list(deck(rules.decks))
    for _ in range(200):
        hand = rng.sample(cards, rng.randint(1, 26))
        mask = 0
        for card in hand:
            mask |= card.bit
        counts = [b.bit_count() for b in mask.to_bytes(13, "little")]
        formed = len(combinations_of(mask, rules))
        assert formed <= rules.combinations_in(counts)
        if name == "standard":
            assert formed == rules.combinations_in(counts)


def test_a_record_may_not_hand_one_seat_a_huge_hand() -> None:
    from tienlen import Game
    from tienlen.cards import deck

    rules = Rules.preset("double-deck-13")
    cards = [c.ascii() for c in deck(2)]
    hands = [" ".join(cards[7:]), *cards[:7]]  # 97 cards to seat 0, one to each other
    with pytest.raises(ValueError, match=r"a hand of 97 cards forms .* combinations"):
        Game(rules, hands=hands)
