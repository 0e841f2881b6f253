"""The server's game view is the engine's play state: every field of ``PlayState`` shows in
``GameView`` (``opening`` included), so the browser sees what a bot sees; the fields built
once for every seat are the ones all seats' observations agree on; the views, built without
validation, pass it."""

from __future__ import annotations

import dataclasses
import random

import pytest

from tienlen import RULESETS, Game, Rules
from tienlen.apps.server.messages import GameView
from tienlen.apps.server.views import SEAT_FIELDS, TABLE_FIELDS, game_views, mask_ids
from tienlen.observation import observe
from tienlen.position import PlayState

OPENING = Rules.preset("standard", opening_bombs=("pair_run3",))
HANDS = ["3s 4s 9h", "5c 5d 6c 6d 7c 7d", "8d 2h Jd", "Kd Ks Qc"]


def view(game: Game, seat: int | None) -> GameView:
    return views(game, [seat])[seat]


def views(game: Game, seats: list[int | None]) -> dict[int | None, GameView]:
    return game_views(game, seats, number=1, dealer=0, commitment="0" * 64, history=True)


def test_every_play_state_field_has_a_view_field() -> None:
    engine = [f.name for f in dataclasses.fields(PlayState)]
    missing = sorted(set(engine) - set(TABLE_FIELDS) - set(SEAT_FIELDS))
    assert not missing, f"PlayState fields the server's view lacks: {missing}"
    assert not set(TABLE_FIELDS) & set(SEAT_FIELDS)
    shown = [name for name, _value in [*TABLE_FIELDS.values(), *SEAT_FIELDS.values()]]
    assert sorted(set(shown) - set(GameView.model_fields)) == []
    assert len(set(shown)) == len(shown) == len(engine)


def games(rules: Rules, seed: int) -> list[Game]:
    """A random game under ``rules`` at each of its moments (a trade offered where the rules
    trade)."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    out = [game.copy()]
    while not game.is_over:
        if game.phase == "trading" and game.pending_trade is None and rng.random() < 0.5:
            partner = (game.turn + 1) % rules.players
            give, take = game.hands[game.turn][:1], game.hands[partner][:1]
            try:
                game.offer_trade(partner, give, take)
            except ValueError:
                game.play(rng.choice(list(game.legal_moves())))
        else:
            game.play(rng.choice(list(game.legal_moves())))
        out.append(game.copy())
    return out


TRADING = Rules.preset("standard", trading="mutual", hidden_counts=True)


@pytest.mark.parametrize("rules", [*(Rules.preset(n) for n in RULESETS), TRADING, OPENING])
def test_each_seat_sees_what_its_observation_holds(rules: Rules) -> None:
    # The views read the game's position once for every seat: the fields built once are
    # those every seat's observation holds as the position has them, and each seat's own
    # (its hand, the counts shown to it, the cards of its trades) are its observation's.
    for game in games(rules, seed=5):
        position = game.position
        seen = views(game, list(range(rules.players)))
        for seat, shown in seen.items():
            assert seat is not None
            obs = observe(game, seat)
            for name in TABLE_FIELDS:
                assert getattr(obs, name) == getattr(position, name), (name, position)
            assert shown.hand == mask_ids(obs.hand_mask)
            assert shown.card_counts == list(obs.card_counts)
            assert shown.legal is None or obs.is_my_turn()
            own = [(t.give, t.take) for t in obs.trades if seat in (t.proposer, t.partner)]
            cards = [(t.give, t.take) for t in shown.trades if t.give is not None]
            assert cards == [(mask_ids(g), mask_ids(t)) for g, t in own]


@pytest.mark.parametrize("rules", [*(Rules.preset(n) for n in RULESETS), TRADING, OPENING])
def test_the_views_built_without_validation_pass_it(rules: Rules) -> None:
    for game in games(rules, seed=9):
        seats: list[int | None] = [None, *range(rules.players)]
        for seat, shown in views(game, seats).items():
            checked = GameView.model_validate_json(shown.model_dump_json(exclude_none=True))
            assert checked == shown, seat
            assert view(game, seat) == shown  # alone or with the others: the same view


def test_the_view_shows_the_opening_bombs_phase() -> None:
    # The seats after the leader are asked in turn whether they open with three pairs.
    game = Game(OPENING, hands=HANDS)
    asked = view(game, 1)
    assert asked.opening == [1, 2, 3] and asked.turn == 1
    assert ["5c", "5d", "6c", "6d", "7c", "7d"] in (asked.legal or [])
    assert view(game, None).opening == [1, 2, 3]
    for _ in range(3):
        game.play("pass")
    assert view(game, 0).opening == []  # everyone declined: the leader's turn
    game.play("3s")
    after = view(game, 1)
    assert after.opening is None
    assert "opening" not in after.model_dump(exclude_none=True)


def test_a_seat_sees_its_own_hand_and_a_spectator_none() -> None:
    game = Game(OPENING, hands=HANDS)
    assert view(game, 2).hand == ["8d", "Jd", "2h"]
    spectator = view(game, None)
    assert spectator.hand is None and spectator.legal is None
    assert spectator.card_counts == [3, 6, 3, 3]
