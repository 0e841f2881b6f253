"""The play state and its notation: round trips, games rebuilt from positions, errors."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quick import examples
from tienlen import RULESETS, Game, Rules
from tienlen.observation import observe
from tienlen.position import (
    InvalidPositionError,
    PlayState,
    PositionSyntaxError,
    parse_position,
    state_fields,
)
from tienlen.rules import FirstLead


def _played(rules: Rules, seed: int, moves: int) -> Game:
    """A game of ``rules`` after up to ``moves`` random legal moves (seeded)."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.apply_unchecked(rng.choice(game.legal_moves()))
    return game


@settings(max_examples=examples(150), deadline=None)
@given(st.sampled_from(sorted(RULESETS)), st.integers(0, 10_000), st.integers(0, 80))
def test_a_position_reads_back_to_the_same_state(name: str, seed: int, moves: int) -> None:
    rules = Rules.preset(name)
    game = _played(rules, seed, moves)
    state = game.position
    text = state.format()
    assert parse_position(text, rules) == state
    assert parse_position(text, rules).format() == text
    # the observer's view: other hands hidden, written as card counts
    seat = seed % rules.players
    view = PlayState(**state_fields(observe(game, seat)))
    assert parse_position(view.format(), rules) == view
    if game.phase in ("play", "over"):
        rebuilt = Game.from_position(text, rules=rules)
        assert rebuilt.position == state
        assert rebuilt.legal_moves() == game.legal_moves()


@settings(max_examples=examples(100), deadline=None)
@given(
    st.integers(2, 8),
    st.lists(st.integers(0, 7), max_size=8),
    st.booleans(),
    st.sampled_from([None, ("lowest-single", "3s"), ("holder-may-decline", "4h")]),
    st.one_of(st.none(), st.lists(st.integers(0, 7), max_size=7, unique=True)),
)
def test_made_up_states_read_back(
    players: int,
    seats: list[int],
    locked: bool,
    first: tuple[FirstLead, str] | None,
    opening: list[int] | None,
) -> None:
    from tienlen.cards import Card

    rules = Rules.preset("standard").for_players(players)
    chosen = frozenset(s for s in seats if s < players)
    hands = tuple(None if s % 2 else (1 << (s + 8)) for s in range(players))
    state = PlayState(
        turn=players - 1,
        leader=0,
        hands=hands,
        card_counts=tuple(
            1 if h is not None else 7 if s % 3 else None for s, h in enumerate(hands)
        ),
        passed=chosen,
        locked_out=chosen,
        stuck=chosen,
        straight_locked=locked,
        first_lead=(first[0], Card.parse(first[1])) if first else None,
        opening=tuple(s for s in opening if s < players) if opening is not None else None,
        finish_order=tuple(sorted(chosen))[:1],
    )
    assert parse_position(state.format(), rules) == state


def test_the_documented_examples() -> None:
    game = Game("standard", hands=["3s 4s 5d 9h", "6c 7c", "8d 2h", "Kd Ks"])
    assert game.position.format() == "3s4s5d9h/6c7c/8d2h/KsKd 0 0 - - i3s -"
    game.play("3s 4s 5d")
    game.play("pass")
    assert game.position.format() == "9h/6c7c/8d2h/KsKd 2 0 0:3s4s5d p1x1 - -"
    view = PlayState(**state_fields(observe(game, 2)))
    assert view.format() == "?1/?2/8d2h/?2 2 0 0:3s4s5d p1x1 - -"
    akita = Game("akita", hands=["3s 4s 5d 9h", "6c 7c", "8d 2h", "Kd Ks"])
    akita.play("3s 4s 5d")
    akita.play("pass")
    assert akita.position.format() == "9h/6c7c/8d2h/KsKd 2 0 0:3s4s5d p1 - -"


def test_a_game_from_a_position_plays_on() -> None:
    game = Game.from_position("9h/6c7c/8d2h/KsKd 2 0 0:3s4s5d p1x1 - -", rules="standard")
    assert game.turn == 2 and game.passed == {1} and game.locked_out == {1}
    assert [str(m) for m in game.legal_moves()] == ["pass"]
    with pytest.raises(ValueError, match="seat 1's hand is not known"):
        Game.from_position("9h/?2/8d2h/KsKd 2 0 - - - -", rules="standard")


@pytest.mark.parametrize(
    ("text", "error", "quoted"),
    [
        ("3s/4s 0 0 - -", PositionSyntaxError, "not 5"),
        ("3s/4s/5s/6s 0 0 - - - -", InvalidPositionError, "'3s/4s/5s/6s'"),
        ("3s/4x 0 0 - - - -", PositionSyntaxError, "'4x'"),
        ("3s/3s 0 0 - - - -", InvalidPositionError, "'3s'"),
        ("3s3s/4s 0 0 - - - -", InvalidPositionError, "'3s3s'"),
        ("3s/4s 2 0 - - - -", InvalidPositionError, "'2'"),
        ("3s/4s 0 0 0:5s7h - - -", InvalidPositionError, "'0:5s7h'"),
        ("3s/4s 0 0 0:3s - - -", InvalidPositionError, "'0:3s'"),
        ("3s/4s 0 0 05s - - -", PositionSyntaxError, "'05s'"),
        ("3s/4s 0 0 - q1 - -", PositionSyntaxError, "'q1'"),
        ("3s/4s 0 0 - p - -", PositionSyntaxError, "'p'"),
        ("3s/4s 0 0 - p11 - -", InvalidPositionError, "'11'"),
        ("3s/4s 0 0 - - z3s -", PositionSyntaxError, "'z3s'"),
        ("3s/?x 0 0 - - - -", PositionSyntaxError, "'?x'"),
        ("3s'/4s 0 0 - - - -", InvalidPositionError, "second deck"),
    ],
)
def test_bad_positions_are_refused_quoting_the_part(
    text: str, error: type[ValueError], quoted: str
) -> None:
    rules = Rules.preset("standard").for_players(2)
    with pytest.raises(error) as info:
        parse_position(text, rules)
    assert quoted in str(info.value)
    assert isinstance(info.value, ValueError)


def test_the_notation_document_runs() -> None:
    import doctest
    from pathlib import Path

    doc = Path(__file__).parent.parent / "docs" / "position-notation.md"
    result = doctest.testfile(str(doc), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
    three = Rules.preset("standard").for_players(3)
    state = parse_position("-/5h/- 1 0 - - - 02", three)
    assert state.finish_order == (0, 2) and state.phase == "play"


def test_reprs_paste_back() -> None:
    from dataclasses import replace

    from tienlen import PASS, IllegalMoveError, Move

    namespace = {"Game": Game, "Move": Move, "Rules": Rules}
    for name in sorted(RULESETS):
        game = _played(Rules.preset(name), 7, 9)
        for move in game.legal_plays():
            back = eval(repr(move), namespace)
            assert back == move and back.size == move.size and back.kind == move.kind
        if game.phase in ("play", "over"):
            again = eval(repr(game), namespace)
            assert again.position == game.position and repr(again) == repr(game)
    assert repr(PASS) == "Move.of('pass')" and eval(repr(PASS), namespace) == PASS
    changed = replace(Rules.preset("pagat"), after_pass_bombs=())
    game = Game(changed, seed=1)
    again = eval(repr(game), namespace)
    assert again.rules == changed and again.position == game.position
    with pytest.raises(ValueError, match="'straigt'"):
        Move.of("straigt", "3s 4s 5s")
    with pytest.raises(ValueError, match="only the pass"):
        Move.of("pass", "3s")
    with pytest.raises(IllegalMoveError) as info:
        game.play(Move.of("single", "2h") if game.hand_masks[game.turn] >> 51 & 1 else "pass")
    assert info.value.move is not None and info.value.state == game.position
    assert str(info.value).startswith(f"illegal move {str(info.value.move)!r}: ")
    assert info.value.reason is not None and info.value.reason.code


@settings(max_examples=examples(120), deadline=None)
@given(st.sampled_from(sorted(RULESETS)), st.integers(0, 10_000), st.integers(0, 80))
def test_legal_moves_from_the_state_and_one_hand(name: str, seed: int, moves: int) -> None:
    from tienlen.play import legal_moves

    rules = Rules.preset(name)
    game = _played(rules, seed, moves)
    if game.phase != "play":
        return
    obs = observe(game, game.turn)  # the other hands hidden: nothing stands in for them
    assert legal_moves(obs, obs.hand_mask, rules) == game.legal_moves()
    assert legal_moves(game.position, game.hand_masks[game.turn], rules) == game.legal_moves()


def test_legal_moves_refuse_other_phases() -> None:
    from tienlen.play import legal_moves

    game = Game(Rules.preset("standard"), seed=2)
    state = PlayState(**{**state_fields(game.position), "phase": "trading"})
    with pytest.raises(ValueError, match="'trading'"):
        legal_moves(state, game.hand_masks[game.turn], game.rules)
