"""The server's game view is the engine's play state: every field of ``PlayState`` shows in
``GameView`` (``opening`` included), so the browser sees what a bot sees."""

from __future__ import annotations

import dataclasses

from tienlen import Game, Rules
from tienlen.apps.server.messages import GameView
from tienlen.apps.server.views import PLAY_STATE, game_view
from tienlen.position import PlayState

OPENING = Rules.preset("standard", opening_bombs=("pair_run3",))
HANDS = ["3s 4s 9h", "5c 5d 6c 6d 7c 7d", "8d 2h Jd", "Kd Ks Qc"]


def view(game: Game, seat: int | None) -> GameView:
    return game_view(game, seat, number=1, dealer=0, commitment="0" * 64)


def test_every_play_state_field_has_a_view_field() -> None:
    engine = [f.name for f in dataclasses.fields(PlayState)]
    missing = sorted(set(engine) - set(PLAY_STATE))
    assert not missing, f"PlayState fields the server's view lacks: {missing}"
    shown = [name for name, _value in PLAY_STATE.values()]
    assert sorted(set(shown) - set(GameView.model_fields)) == []
    assert len(set(shown)) == len(shown) == len(engine)


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
