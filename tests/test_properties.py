"""Property tests over whole games of every rule set (hypothesis draws the rules, the deal
seed and the players' habits).

- cards are conserved: hands plus played cards are always the dealt cards, never twice;
- every game ends, with a finish order that is a permutation of the seats;
- every legal move plays; every illegal one raises :class:`IllegalMoveError` and leaves the
  game exactly as it was;
- an observation never depends on another seat's hidden cards;
- a record (JSON or text) replays to the same game, card counts asked included.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from dataclasses import dataclass

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from quick import examples
from reference import public_state
from tienlen import PASS, RULESETS, Action, Game, IllegalMoveError, Rules
from tienlen.cards import cards_of_mask, mask_of
from tienlen.combos import Choice, classify_mask
from tienlen.observation import observe

# The presets and a few variants (player counts, direction, trading, exchanges).
RULE_CHOICES: tuple[Rules, ...] = (
    *(Rules.preset(name) for name in RULESETS),
    Rules.preset("standard", players=3),
    Rules.preset("standard", players=2, direction="anticlockwise"),
    Rules.preset("lu", players=3),
    Rules.preset("pike", players=2),
    Rules.preset("wikipedia", players=6, decks=2, tie_rule="later-wins"),
    Rules.preset("vietcong", trading="mutual"),
    Rules.preset("pang", trading="san-jose"),
    Rules.preset("standard", hidden_counts=True),
    Rules.preset("lu", players=3, hidden_counts=True),
    Rules.preset("standard", redeal_four_twos=True),
    Rules.preset("pike", players=2, redeal_four_twos=True),
)
MAX_ACTIONS = 3_000
SETTINGS = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@dataclass(frozen=True)
class Deal:
    rules: Rules
    seed: int
    pass_chance: float

    def new_game(self) -> Game:
        previous = None
        if self.rules.trading == "san-jose":
            previous = random.Random(self.seed).sample(
                range(self.rules.players), self.rules.players
            )
        return Game(self.rules, seed=self.seed, previous_finish=previous)


deals = st.builds(
    Deal,
    rules=st.sampled_from(RULE_CHOICES),
    seed=st.integers(0, 2**32),
    pass_chance=st.sampled_from((0.0, 0.2, 0.5, 0.9)),
)


def choose(game: Game, rng: random.Random, pass_chance: float) -> Choice:
    legal = sorted(game.legal_moves(), key=lambda m: m.mask)
    assert legal, "a game that is not over always has a legal move"
    plays = [m for m in legal if m.mask]
    if PASS in legal and (not plays or rng.random() < pass_chance):
        return PASS
    return rng.choice(plays)


def play_out(game: Game, rng: random.Random, pass_chance: float) -> Iterator[Game]:
    """Yield ``game`` before each action, then play a policy move; stop when over."""
    for _ in range(MAX_ACTIONS):
        if game.is_over:
            return
        yield game
        game.play(choose(game, rng, pass_chance))
    raise AssertionError(f"game did not end within {MAX_ACTIONS} actions: {game!r}")


def played_mask(game: Game) -> int:
    out = 0
    for action in game.history:
        if isinstance(action, Action):
            out |= action.move.mask
    return out


def dealt_mask(game: Game) -> int:
    return union(tuple(mask_of(h) for h in game.dealt))


def union(masks: tuple[int, ...]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


@SETTINGS
@given(deal=deals)
def test_cards_are_conserved_and_every_game_ends_well(deal: Deal) -> None:
    game = deal.new_game()
    rng = random.Random(deal.seed)
    n = deal.rules.players
    for g in play_out(game, rng, deal.pass_chance):
        hands = g.hand_masks
        held = union(hands)
        assert sum(h.bit_count() for h in hands) == held.bit_count(), "a card in two hands"
        if g.phase == "play":
            played = played_mask(g)
            assert not held & played, "a played card is still in a hand"
            assert held | played == dealt_mask(g)
            dealt_count = sum(len(h) for h in g.dealt)
            assert held.bit_count() + played.bit_count() == dealt_count
        assert not held & union(tuple(mask_of(h) for h in g.unused_hands))
    assert game.is_over
    assert sorted(game.finish_order) == list(range(n)), game.finish_order
    assert game.legal_moves() == []
    if game.instant_win is None and game.phase == "over" and not deal.rules.end_at_first_out:
        # Everyone but the loser went out; the loser still holds cards.
        assert all(game.cards_left(s) == 0 for s in game.finish_order[:-1])
        assert game.cards_left(game.finish_order[-1]) > 0


@SETTINGS
@given(deal=deals, data=st.data())
def test_legal_moves_play_and_illegal_moves_change_nothing(deal: Deal, data: st.DataObject) -> None:
    game = deal.new_game()
    rng = random.Random(deal.seed)
    stop = data.draw(st.integers(0, 80), label="positions checked")
    for i, g in enumerate(play_out(game, rng, deal.pass_chance)):
        if i > stop:
            break
        legal = g.legal_moves()
        legal_masks = {m.mask for m in legal}
        for m in legal:
            assert g.why_illegal(m) is None, m
            copy = g.copy()
            played = copy.play(m)
            assert played.mask == m.mask
            assert public_state(g) != public_state(copy)
        if g.phase != "play":
            continue
        # Random card sets: from the hand (often) or from the whole deck.
        hand = list(cards_of_mask(g.hand_masks[g.turn]))
        everything = list(cards_of_mask(dealt_mask(g)))
        for _ in range(6):
            pool = hand if rng.random() < 0.8 else everything
            cards = rng.sample(pool, rng.randint(1, min(len(pool), 6)))
            mask = mask_of(cards)
            before = public_state(g)
            before_legal = legal_masks
            reason = g.why_illegal(cards)
            if mask in legal_masks:
                assert reason is None
                continue
            assert reason, cards
            try:
                g.play(cards)
            except IllegalMoveError as e:
                assert str(e)
            else:
                raise AssertionError(f"{cards} was played but is not a legal move")
            assert public_state(g) == before
            assert {m.mask for m in g.legal_moves()} == before_legal
            if classify_mask(mask, deal.rules) is None:
                assert "not a combination" in reason or "do not hold" in reason


def _other_hands_shuffled(game: Game, seat: int, rng: random.Random) -> list[int] | None:
    """Dealt hands where every seat but ``seat`` keeps the cards it has played by now but
    holds other unplayed cards (same counts); the holder of the lowest card keeps it."""
    dealt = [mask_of(h) for h in game.dealt]
    lowest = union(tuple(dealt))
    lowest &= -lowest
    others = [s for s in range(len(dealt)) if s != seat]
    pool: list[int] = []
    keep: dict[int, int] = {}
    for s in others:
        unplayed = game.hand_masks[s]
        keep[s] = (dealt[s] & ~unplayed) | (unplayed & lowest)
        pool.extend(c.bit for c in cards_of_mask(unplayed & ~lowest))
    rng.shuffle(pool)
    hands = list(dealt)
    for s in others:
        need = game.hand_masks[s].bit_count() - (game.hand_masks[s] & lowest).bit_count()
        hands[s] = keep[s] | sum(pool[:need])
        del pool[:need]
    return hands if hands != dealt else None


@SETTINGS
@given(deal=deals, data=st.data())
def test_observations_hide_other_hands(deal: Deal, data: st.DataObject) -> None:
    rules = deal.rules
    assume(rules.trading == "none" and not rules.starter_takes_spare)
    game = deal.new_game()
    assume(not game.is_over)
    rng = random.Random(deal.seed)
    stop = data.draw(st.integers(0, 120), label="actions before the swap")
    moves: list[Choice] = []
    while not game.is_over and len(moves) < stop:
        moves.append(choose(game, rng, deal.pass_chance))
        game.play(moves[-1])
    seat = data.draw(st.integers(0, rules.players - 1), label="observer")
    hands = _other_hands_shuffled(game, seat, rng)
    assume(hands is not None)
    assert hands is not None
    twin = Game(rules, hands=[cards_of_mask(h) for h in hands])
    assume(twin.instant_win is None)
    original = Game(rules, seed=deal.seed)
    assert observe(original, seat) == observe(twin, seat)
    for m in moves:
        original.play(m)
        twin.play(m)
        assert observe(original, seat) == observe(twin, seat)
    # Not vacuous: the other seats' cards do differ, and the game knows it.
    assert original.hand_masks != twin.hand_masks
    assert original.hand_masks[seat] == twin.hand_masks[seat]


@SETTINGS
@given(deal=deals, data=st.data())
def test_records_replay_to_the_same_game(deal: Deal, data: st.DataObject) -> None:
    from tienlen.record import format_text, load, parse_text, to_json

    game = deal.new_game()
    rng = random.Random(deal.seed)
    stop = data.draw(st.one_of(st.just(MAX_ACTIONS), st.integers(0, 60)), label="actions")
    for i, _ in enumerate(play_out(game, rng, deal.pass_chance)):
        if i == stop:
            break
    for replayed in (load(to_json(game, seed=deal.seed)), parse_text(format_text(game))):
        got, want = public_state(replayed), public_state(game)
        if deal.rules.deal_four_hands:
            # A record keeps the hands in play; the hands set aside (UT Pike) are the next
            # game's deal and are not part of it.
            assert replayed.unused_hands == ()
            got, want = got[:-1], want[:-1]  # public_state ends with unused_hands
        assert got == want
        assert replayed.legal_moves() == game.legal_moves()


@SETTINGS
@given(deal=deals, data=st.data())
def test_asked_counts_replay_and_show_only_as_asked(deal: Deal, data: st.DataObject) -> None:
    from tienlen.record import format_text, load, parse_text, to_json

    rules = dataclasses.replace(deal.rules, hidden_counts=True)
    game = Deal(rules, deal.seed, deal.pass_chance).new_game()
    rng = random.Random(deal.seed)
    ask_chance = data.draw(st.sampled_from((0.1, 0.5)), label="ask chance")
    n = rules.players
    for _ in play_out(game, rng, deal.pass_chance):
        while game.phase == "play" and rng.random() < ask_chance:
            asker, asked = rng.sample(range(n), 2)
            assert game.ask_count(asker, asked) == game.cards_left(asked)
        true = tuple(game.cards_left(s) for s in range(n))
        for seat in range(n):
            obs = observe(game, seat)
            shown = obs.card_counts
            assert shown[seat] == true[seat]
            answered = {a.seat for a in game.asks if a.cards == true[a.seat]}
            for s in range(n):
                if s != seat and s not in game.finish_order:
                    assert shown[s] == (true[s] if s in answered else None)
    for replayed in (load(to_json(game, seed=deal.seed)), parse_text(format_text(game))):
        assert replayed.asks == game.asks
        for seat in range(n):
            assert observe(replayed, seat) == observe(game, seat)
