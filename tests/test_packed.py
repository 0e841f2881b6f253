"""A game's record (tienlen.packed): PlayState's fields under PlayState's names, converted from
the one declaration and copied whole; Game.copy and Game.from_state name no field."""

from __future__ import annotations

import ast
import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest

from tienlen import RULESETS, Game, Rules
from tienlen.cards import parse_cards
from tienlen.combos import classify
from tienlen.debts import CardDebt, Settlement
from tienlen.exchanges import MutualTrading, TradeOffer
from tienlen.movegen import table_for
from tienlen.packed import PackedState, packed, unpacked
from tienlen.position import Action, Chop, CountAsk, PlayState, parse_position

GAME_SOURCE = Path(__file__).resolve().parent.parent / "src" / "tienlen" / "game.py"
RECORD = {f.name for f in dataclasses.fields(PackedState)}


def test_the_record_has_every_play_state_field_under_its_name() -> None:
    state = {f.name for f in dataclasses.fields(PlayState)}
    # card_counts alone is not kept: it is each hand's bit count.
    assert state - RECORD == {"card_counts"}


def a_record_of_distinct_values() -> dict[str, Any]:
    """A value for every field, none of them its default, so that a field the copy drops
    shows (a field added to the record must be given one here)."""
    debt = CardDebt(0, 1, 1, "chopped last")
    pair = classify(parse_cards("9h 9d"), Rules.preset("standard"))
    assert pair is not None
    play = Action(2, pair)
    trading = MutualTrading(1, 4, 1)
    trading.offers.append(TradeOffer(1, 2, 0b1000, 0b10000))
    return {
        "turn": 3,
        "leader": 2,
        "hands": [0b1, 0b10, 0b100, 0],
        "phase": "over",
        "pile": (play,),
        "passed": 0b1,
        "locked_out": 0b10,
        "straight_locked": True,
        "first_lead": "lowest-single",
        "stuck": 0b100,
        "finish_order": (3,),
        "opening": (1, 2),
        "lowest": 5,
        "setup": ((0b1, 0b10), 1, (0, 1), (debt,)),
        "dealt": (0b11, 0b100),
        "spare": 0b1000,
        "spare_taker": 1,
        "unused": (0b10000,),
        "redeals": 2,
        "instant": (1, "dragon"),
        "history": [play],
        "chops": (Chop(2, 1, play.move, play.move),),
        "receivers": (1,),
        "asks": (CountAsk(0, 1, 4, 2),),
        "trading": trading,
        "exchange": Settlement((debt,), "any-two"),
        "tables": [None, table_for(0b10, Rules.preset("standard"))],
    }


# What the exchanges hold (their slots, read by name: the compiled classes keep no __dict__).
SLOTS = {
    MutualTrading: ("leader", "offers", "players", "step"),
    Settlement: ("_debt", "_next", "_paid", "chooser", "count", "debt_card", "debts", "log"),
}


def contents(value: object) -> object:
    """A value's contents to compare a copy with: a list as it is, an exchange by its slots."""
    if isinstance(value, list):
        return value
    return {name: getattr(value, name) for name in SLOTS[type(value)]}


def test_a_copy_carries_every_field_and_shares_nothing_that_changes_in_place() -> None:
    values = a_record_of_distinct_values()
    assert set(values) == RECORD
    record = PackedState(**values)
    twin = record.copy()
    for name, value in values.items():
        copied = getattr(twin, name)
        if isinstance(value, (list, MutualTrading, Settlement)):
            assert copied is not value, f"{name} is shared between a record and its copy"
            assert type(copied) is type(value), name
            assert contents(copied) == contents(value), f"{name} is not copied whole"
        else:
            assert copied == value, name
    assert twin.hands == record.hands and twin.history == record.history
    assert twin.tables == record.tables
    twin.hands[0] = 0
    assert record.hands[0] == 0b1


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_a_position_converts_to_the_record_and_back_unchanged(name: str) -> None:
    rng = random.Random(name)
    game = Game(name, seed=f"packed-{name}")
    while game.phase in ("trading", "exchange"):
        game.apply_unchecked(game.legal_moves()[0])
    while not game.is_over:
        state = game.position
        assert unpacked(packed(state, game.hand_masks)) == state
        again = Game.from_position(state.format(), rules=game.rules)
        assert again.position == state
        assert [str(m) for m in again.legal_moves()] == [str(m) for m in game.legal_moves()]
        game.apply_unchecked(rng.choice(game.legal_moves()))
    assert unpacked(packed(game.position, game.hand_masks)) == game.position


def test_the_seat_sets_and_the_first_lead_are_packed_as_bits() -> None:
    state = parse_position("3s4s/5d/6c/7h 1 0 - p2x2s3 d3s -", "standard")
    record = packed(state, [h or 0 for h in state.hands])
    assert (record.passed, record.locked_out, record.stuck) == (0b100, 0b100, 0b1000)
    assert (record.first_lead, record.lowest) == ("holder-may-decline", 0)
    assert unpacked(record) == state


# --- Game.copy and Game.from_state name no field ---------------------------------------------
def fields_named(function: ast.FunctionDef) -> list[str]:
    """The fields a function sets one by one: the attributes it assigns (the record aside)
    and the record fields it passes by keyword."""
    named = []
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if node.attr != "_state":
                named.append(node.attr)
        elif isinstance(node, ast.keyword) and node.arg in RECORD:
            named.append(node.arg)
    return named


def game_method(name: str, source: str | None = None) -> ast.FunctionDef:
    tree = ast.parse(source or GAME_SOURCE.read_text(encoding="utf-8"))
    game = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Game")
    return next(n for n in game.body if isinstance(n, ast.FunctionDef) and n.name == name)


@pytest.mark.parametrize("method", ["copy", "from_state"])
def test_copy_and_from_state_name_no_field_one_by_one(method: str) -> None:
    assert fields_named(game_method(method)) == []


def test_the_field_check_sees_fields_set_one_by_one() -> None:
    old_copy = (
        "class Game:\n"
        "    def copy(self):\n"
        "        g = Game(self._rules, _shell=True)\n"
        "        g._hands = self._hands[:]\n"
        "        g._turn = self._turn\n"
        "        return g\n"
    )
    assert fields_named(game_method("copy", old_copy)) == ["_hands", "_turn"]
    by_keyword = "class Game:\n    def copy(self):\n        return PackedState(turn=1, pile=())\n"
    assert fields_named(game_method("copy", by_keyword)) == ["turn", "pile"]
