"""The built-in bots: legal play in every rule set and player count, only observations,
determinism, and the tactics each bot claims (positions written in card notation)."""

from __future__ import annotations

import gc
import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from quick import presets
from tienlen import PASS, RULESETS, Game, Give, Move, Rules, parse_cards
from tienlen.cards import mask_of
from tienlen.combos import Choice
from tienlen.observation import Observation, observe
from tienlen.players.base import Budget, Player, choose_safely
from tienlen.players.bots.analysis import counts_of, is_boss, planner
from tienlen.players.bots.greedy import greedy_pick
from tienlen.players.bots.heuristic import HeuristicBot, accepts_trade, rank_swaps
from tienlen.players.bots.ismcts import IsmctsBot
from tienlen.players.registry import BOTS, make_bot
from tienlen.players.toolkit import sample_hands

FAST_BOTS = ("random", "greedy", "heuristic")
ISMCTS_OPTIONS: dict[str, Any] = {"iterations": 12, "guesses": 2}

# Every preset, plus rule values and table sizes the presets do not reach.
VARIANTS: dict[str, Rules] = {name: Rules.preset(name) for name in RULESETS}
VARIANTS.update(
    {
        "standard/2p-all-cards": Rules.preset("standard", players=2, hand_size="all"),
        "standard/3p": Rules.preset("standard", players=3),
        "standard/anticlockwise": Rules.preset("standard", direction="anticlockwise"),
        "wikipedia/6p": Rules.preset("wikipedia", players=6, decks=2),
        "pagat/5p-later-wins": Rules.preset("pagat", players=5, decks=2, tie_rule="later-wins"),
        "lu/2p": Rules.preset("lu", players=2),
        "pike/2p": Rules.preset("pike", players=2),
        "vietcong/trading": Rules.preset("vietcong", trading="mutual"),
        "pang/san-jose": Rules.preset("pang", trading="san-jose"),
        "hawaii/7p": Rules.preset("hawaii", players=7, decks=2),
        "standard/no-bomb-lead": Rules.preset(
            "standard", bombs_may_lead=False, may_finish_on_two=False
        ),
    }
)


def new_game(rules: Rules, seed: int) -> Game:
    """A deal; San Jose rule sets start from a previous finish so the exchange is played."""
    previous = None
    if rules.trading == "san-jose":
        previous = tuple(random.Random(seed).sample(range(rules.players), rules.players))
    return Game(rules, seed=seed, previous_finish=previous)


def play_checked(game: Game, players: Sequence[Player], budget: Budget | None = None) -> int:
    """Play to the end through the validating ``Game.play`` (an illegal move raises);
    returns the number of decisions. Fails on any fallback (the bot raised or erred)."""
    decisions = 0
    while not game.is_over:
        legal = game.legal_moves()
        assert legal, f"no legal move in {game!r}"
        seat = game.turn
        move, problem = choose_safely(players[seat], observe(game, seat), legal, budget or Budget())
        assert problem is None, problem
        assert move in legal
        game.play(move)
        decisions += 1
    return decisions


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_fast_bots_play_legal_games_in_every_rule_set(variant: str) -> None:
    rules = VARIANTS[variant]
    n = rules.players
    # Thousands of deals where games are cheap; fewer with many players or long hands.
    games = 2000 if n <= 4 and rules.cards_per_hand <= 13 else 200
    seen_phases: set[str] = set()
    for seed in range(games):
        names = [FAST_BOTS[(seed + s) % 3] for s in range(n)]
        players = [make_bot(name, seed=seed * 10 + s) for s, name in enumerate(names)]
        game = new_game(rules, seed)
        seen_phases.add(game.phase)
        play_checked(game, players)
        assert sorted(game.finish_order) == list(range(n))
    if rules.trading == "mutual":
        assert "trading" in seen_phases
    if rules.trading == "san-jose":
        assert "exchange" in seen_phases


# the quick loop: three presets and the two variants with a phase before the play
@pytest.mark.parametrize("variant", presets(VARIANTS, also=("vietcong/trading", "pang/san-jose")))
def test_ismcts_plays_legal_games_in_every_rule_set(variant: str) -> None:
    rules = VARIANTS[variant]
    n = rules.players
    players: list[Player] = [make_bot("greedy") for _ in range(n)]
    players[0] = make_bot("ismcts", seed=3, **ISMCTS_OPTIONS)
    players[n // 2] = make_bot("ismcts", seed=4, **ISMCTS_OPTIONS)
    game = new_game(rules, 11)
    play_checked(game, players)
    assert sorted(game.finish_order) == list(range(n))


def test_registry_lists_the_bots_with_descriptions() -> None:
    assert list(BOTS) == ["random", "greedy", "heuristic", "ismcts", "learned"]
    for name, info in BOTS.items():
        assert info.description and "\n" not in info.description
        assert isinstance(make_bot(name, seed=1), Player)
    with pytest.raises(ValueError, match=r"unknown bot 'alphago'.*random, greedy"):
        make_bot("alphago")


class Spy:
    """A bot that keeps everything it is given."""

    name = "spy"

    def __init__(self) -> None:
        self.seen: list[tuple[Observation, tuple[Choice, ...], Budget]] = []

    def choose(self, obs: Observation, legal: Sequence[Choice], budget: Budget) -> Choice:
        self.seen.append((obs, tuple(legal), budget))
        return legal[0]


def _reachable(root: object) -> list[object]:
    """Every object reachable from ``root`` (classes, modules and functions excluded)."""
    out, stack, ids = [], [root], set()
    while stack:
        obj = stack.pop()
        if id(obj) in ids or isinstance(obj, type) or (callable(obj) and not isinstance(obj, Move)):
            continue
        ids.add(id(obj))
        out.append(obj)
        stack.extend(gc.get_referents(obj))
        if hasattr(obj, "__slots__"):
            for cls in type(obj).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    if hasattr(obj, slot):
                        stack.append(getattr(obj, slot))
    return out


def test_a_bot_is_given_nothing_that_leads_to_the_hidden_hands() -> None:
    hands = [
        "3s 5c 7d 9h Jc Kd 2s",
        "4s 6c 8d 10h Qc Ad 2c",
        "3c 5d 7h 9s Jd Kh 2d",
        "4c 6d 8h 10s Qd Ah 2h",
    ]
    game = Game("standard", hands=hands)
    spies = [Spy() for _ in range(4)]
    for _ in range(12):
        seat = game.turn
        move, _ = choose_safely(spies[seat], observe(game, seat), game.legal_moves(), Budget())
        game.play(move)
    for seat, spy in enumerate(spies):
        hidden = {mask_of(parse_cards(h)) for s, h in enumerate(hands) if s != seat}
        hidden |= {m for s, m in enumerate(game.hand_masks) if s != seat}
        for given in spy.seen:
            for obj in _reachable(given):
                assert not isinstance(obj, Game), "a bot reached the game itself"
                if isinstance(obj, int) and not isinstance(obj, bool):
                    assert obj not in hidden or obj.bit_count() < 2, "a bot saw another hand"


def test_bots_decide_the_same_whatever_the_other_hands_hold() -> None:
    # Same hand for seat 0, different cards elsewhere: equal observations, equal choices.
    a = Game("standard", hands=["3s 4s 5s 9d 9h Kd", "6c 7c 8c Qs", "10d Jd 2h", "Ah As 6d"])
    b = Game("standard", hands=["3s 4s 5s 9d 9h Kd", "6d 10d Jd Qs", "7c 8c 2h", "Ah As 6c"])
    oa, ob = observe(a, 0), observe(b, 0)
    assert oa == ob
    for name in ("greedy", "heuristic", "ismcts"):
        opts = ISMCTS_OPTIONS if name == "ismcts" else {}
        ma = make_bot(name, seed=5, **opts).choose(oa, a.legal_moves(), Budget())
        mb = make_bot(name, seed=5, **opts).choose(ob, b.legal_moves(), Budget())
        assert ma == mb


@pytest.mark.parametrize("name", list(BOTS))
def test_a_fixed_seed_gives_the_same_game(name: str) -> None:
    def transcript() -> list[int]:
        opts = ISMCTS_OPTIONS if name == "ismcts" else {}
        players = [make_bot(name, seed=s, **opts) for s in range(4)]
        game = Game("standard", seed=99)
        out = []
        while not game.is_over:
            legal = game.legal_moves()
            move = players[game.turn].choose(observe(game, game.turn), legal, Budget())
            out.append(move.mask)
            game.play(move)
        return out

    assert transcript() == transcript()


# --- analysis -------------------------------------------------------------------------------
def plan_of(text: str, rules: Rules | None = None) -> list[tuple[str, int]]:
    units = (
        planner(rules or Rules.preset("standard")).plan(counts_of(mask_of(parse_cards(text)))).units
    )
    return sorted((u.kind, u.cards) for u in units)


def test_the_planner_finds_the_fewest_combinations() -> None:
    # a straight and a pair rather than five singles and a pair
    assert plan_of("3s 4d 5c 6h 7s Kd Kh") == [("pair", 2), ("straight", 5)]
    # a pair run (đôi thông) is one play
    assert plan_of("5s 5d 6c 6h 7s 7d") == [("pair_run", 6)]
    # 2s never sit in a standard straight, but may top one under pagat
    assert plan_of("Qs Kd Ac 2h") == [("single", 1), ("straight", 3)]
    assert plan_of("Qs Kd Ac 2h", Rules.preset("pagat")) == [("straight", 4)]


def test_the_planner_copes_with_a_double_deck() -> None:
    rules = Rules.preset("double-deck-13")
    units = plan_of("3s 3s' 3c 3c' 3d 3h 4s", rules)
    assert sum(cards for _, cards in units) == 7


def test_card_tracking_knows_the_unbeatable_plays() -> None:
    rules = Rules.preset("standard")
    two_hearts = Move("single", 1, mask_of(parse_cards("2h")))
    ace_hearts = Move("single", 1, mask_of(parse_cards("Ah")))
    # every other 2 has been played, and no quad is left among the unseen cards
    unseen = mask_of(parse_cards("3s 4c 9d Kh Ah"))
    assert is_boss(ace_hearts, unseen, rules)
    assert not is_boss(ace_hearts, unseen | mask_of(parse_cards("2s")), rules)
    assert is_boss(two_hearts, unseen, rules)
    # four unseen 9s could chop the 2
    assert not is_boss(two_hearts, unseen | mask_of(parse_cards("9s 9c 9h")), rules)


def test_determinizations_respect_card_counts_and_shown_cards() -> None:
    game = Game("standard", seed=4)
    for _ in range(9):
        game.play(game.legal_moves()[0])
    obs = observe(game, game.turn)
    rng = random.Random(1)
    for _ in range(50):
        hands = sample_hands(obs, rng)
        assert hands[obs.seat] == obs.hand_mask
        assert [h.bit_count() for h in hands] == list(obs.card_counts)
        union = 0
        for h in hands:
            assert not h & union
            assert not h & obs.played_mask
            union |= h


# --- tactics --------------------------------------------------------------------------------
def obs_of(
    hands: list[str], plays: Sequence[str] = (), rules: str = "standard"
) -> tuple[Observation, list[Move]]:
    game = Game(rules, hands=hands)
    for play in plays:
        game.play(play)
    return observe(game, game.turn), game.legal_plays()


def test_greedy_leads_its_lowest_cards_in_the_biggest_combination() -> None:
    obs, legal = obs_of(["3s 4d 5c 9h 9d Kd 2s", "6c 7c", "8d 10h", "Jd Js"])
    move = make_bot("greedy").choose(obs, legal, Budget())
    assert move.cards == parse_cards("3s 4d 5c")


def test_greedy_keeps_its_2_for_later_but_chops_2s_with_a_quad() -> None:
    # seat 1 must beat a single 3: every card that could would break a pair, or is a 2
    obs, legal = obs_of(
        ["3s 6c Jd Qs Kh", "9s 9d 2h 5h 5d 8s 8d", "4c 4d 10c 10d", "7h 7s Ac Ad"], ["3s"]
    )
    assert obs.seat == 1
    assert make_bot("greedy").choose(obs, legal, Budget()) == PASS
    # a single 2 on the pile and a quad in hand: chop it
    obs, legal = obs_of(
        ["3s 7d Jd Qs", "2c 5h 6h 8h", "9s 9d 9c 9h Kd 5s", "7h 7s Ac Kh"], ["3s", "2c"]
    )
    assert obs.seat == 2
    move = make_bot("greedy").choose(obs, legal, Budget())
    assert isinstance(move, Move) and move.kind == "quad"


def test_greedy_pick_is_the_playout_policy() -> None:
    rules = Rules.preset("standard")
    obs, legal = obs_of(["3s 4d 5c 9h 9d Kd 2s", "6c 7c", "8d 10h", "Jd Js"])
    from tienlen.combos import index

    assert greedy_pick(obs.hand_mask, legal, None, 2, index(rules)) == make_bot("greedy").choose(
        obs, legal, Budget()
    )


def test_heuristic_goes_out_with_an_unbeatable_play_first() -> None:
    # No bombs in these rules, so nothing can beat 2♥: play it, keep the lead, go out.
    rules = replace(Rules.preset("standard"), chops=(), after_pass_bombs=())
    game = Game(rules, hands=["4c 2h", "5c 9c 9d", "5d 10c Qs", "5h 10h Jc"], leader=0)
    move, reason = HeuristicBot().decide(observe(game, 0), game.legal_moves())
    assert move.cards == parse_cards("2h")
    assert reason == "nobody can beat your single 2♥: keep the lead, then go out"
    # with bombs about, the 2 is no longer safe: lead the low card
    game = Game("standard", hands=["4c 2h", "5c 9c 9d", "5d 10c Qs", "5h 10h Jc"], leader=0)
    move, _ = HeuristicBot().decide(observe(game, 0), game.legal_moves())
    assert move.cards == parse_cards("4c")


def test_heuristic_leads_a_pair_against_an_opponent_with_one_card() -> None:
    game = Game("standard", hands=["5s 5d 9c", "Kh", "4c 6c 7c 8c Qd", "4d 6d 7d 8d Qs"], leader=0)
    move, reason = HeuristicBot().decide(observe(game, 0), game.legal_moves())
    assert isinstance(move, Move) and move.kind == "pair"
    assert "one card" in reason


def test_heuristic_beats_with_its_highest_single_when_the_next_player_is_almost_out() -> None:
    game = Game("standard", hands=["4s 6s 8c 10h Kd", "4c", "3d 5d", "9h 9s 10d 10s"], leader=2)
    game.play("3d")
    game.play("pass") if game.turn != 0 else None
    obs = observe(game, game.turn)
    if obs.seat != 0:  # seat 3 passed or played: play on until it is seat 0's turn
        game.play("pass")
        obs = observe(game, game.turn)
    assert obs.seat == 0
    move, reason = HeuristicBot().decide(obs, game.legal_moves())
    assert isinstance(move, Move) and move.top == parse_cards("Kd")[0]
    assert "one card" in reason


def test_heuristic_chops_a_2_with_a_quad() -> None:
    game = Game("standard", hands=["7s 7c 7d 7h 10s Jc", "2s", "3d 5d", "9h 9s"], leader=1)
    game.play("2s") if game.turn == 1 else None
    obs = observe(game, game.turn)
    if obs.seat != 0:
        game.play("pass")
        game.play("pass")
        obs = observe(game, game.turn)
    move, reason = HeuristicBot().decide(obs, game.legal_moves())
    assert isinstance(move, Move) and move.kind == "quad"
    assert reason == "chop the single 2♠ with your quad of 7s"


def test_heuristic_gives_its_least_useful_cards_in_the_exchange() -> None:
    rules = Rules.preset("pang", trading="san-jose")
    game = Game(rules, seed=3, previous_finish=(0, 1, 2, 3))
    assert game.phase == "exchange"
    obs = observe(game, game.turn)
    move = HeuristicBot().choose(obs, game.legal_moves(), Budget())
    assert isinstance(move, Give) and move.mask.bit_count() == 2
    assert not move.mask & ~obs.hand_mask


def test_ismcts_converts_a_won_endgame() -> None:
    # Seat 0 holds the top pair of 2s and a low single: whatever it leads, it can win.
    game = Game("standard", hands=["3s 2h 2d", "4c 5c 9c", "6d 7d 10d", "8h 9h Jh"], leader=0)
    players: list[Player] = [IsmctsBot(seed=1, iterations=60)]
    players += [make_bot("greedy") for _ in range(3)]
    play_checked(game, players)
    assert game.finish_order[0] == 0


def test_ismcts_respects_an_iteration_budget_from_the_caller() -> None:
    game = Game("standard", seed=8)
    bot = IsmctsBot(seed=1, iterations=1000)
    legal = game.legal_moves()
    bot.choose(observe(game, game.turn), legal, Budget(iterations=30))
    assert bot.last_iterations == 30


def test_bots_work_with_rules_changed_by_replace() -> None:
    rules = replace(
        Rules.preset("standard"), chops=(*Rules.preset("standard").chops, ("pair@2", "quad"))
    )
    game = Game(rules, seed=2)
    play_checked(
        game,
        [
            make_bot("heuristic"),
            make_bot("greedy"),
            make_bot("random", seed=1),
            make_bot("heuristic"),
        ],
    )
    assert game.is_over and sorted(game.finish_order) == [0, 1, 2, 3]


TRADING = Rules.preset("vietcong", trading="mutual")


def cards(text: str) -> int:
    return mask_of(parse_cards(text))


def test_heuristic_accepts_a_trade_that_tidies_its_hand_and_refuses_one_that_spoils_it() -> None:
    hand = cards("3c 6d 7h 8s 9c 10d Jh Qs Ks Kd Ac Ah 2d")
    assert accepts_trade(TRADING, hand, give=cards("2s"), take=cards("3c"))  # a 2 for a loose 3
    assert not accepts_trade(TRADING, hand, give=cards("4s"), take=cards("2d"))  # its 2 for a 4
    assert not accepts_trade(TRADING, hand, give=cards("2s"), take=cards("4c"))  # not held


#: A trading deal: seat 0 (holding 3♠) offers first; seat 1 holds the hand above.
TRADE_HANDS = [
    "3s 4s 5c 6c 7c 8c 9s 10s Jc Qc Kc As 2s",
    "3c 6d 7h 8s 9c 10d Jh Qs Ks Kd Ac Ah 2d",
    "3d 4c 5s 6s 7s 8d 9d 10c Jd Qd Kh Ad 2c",
    "3h 4d 4h 5d 5h 6h 7d 8h 9h 10h Js Qh 2h",
]


def offered(give: str, take: str) -> Game:
    """The trading deal with seat 0's offer of ``give`` for seat 1's ``take`` pending."""
    game = Game(TRADING, hands=TRADE_HANDS)
    game.offer_trade(1, give, take)
    return game


@pytest.mark.parametrize("spec", ["greedy", "heuristic", "learned", "ismcts"])
def test_bots_accept_the_offer_the_heuristic_rule_favours_and_refuse_the_other(spec: str) -> None:
    bot = make_bot(spec, **(ISMCTS_OPTIONS if spec == "ismcts" else {}))
    for give, take, accept in (("2s", "3c", True), ("4s", "2d", False)):
        game = offered(give, take)
        legal = game.legal_moves()
        assert legal == [Give.of(take), PASS]  # accept (give the card asked for), or refuse
        hand = game.hand_masks[1]
        assert accepts_trade(TRADING, hand, cards(give), cards(take)) is accept
        assert bot.choose(observe(game, 1), legal, Budget()) == (legal[0] if accept else PASS)


def test_heuristic_says_why_it_answers_an_offer_so() -> None:
    game = offered("2s", "3c")
    move, why = HeuristicBot().decide(observe(game, 1), game.legal_moves())
    assert move == Give.of("3c") and why.code == "hint_accept_trade"


def test_random_accepts_or_refuses_offers_at_random() -> None:
    game = offered("4s", "2d")
    legal = game.legal_moves()
    answers = {
        make_bot("random", seed=s).choose(observe(game, 1), legal, Budget()) for s in range(20)
    }
    assert answers == set(legal)


def test_heuristic_ranks_first_the_swap_that_completes_a_straight() -> None:
    hand = cards("3s 4d 5h 7c 8d 9s 9h Jc Qd Kd Kh As 2h")
    swaps = rank_swaps(TRADING, hand, cards("4c 6h 10h Js"))
    assert len(swaps) == 11 * 4 - 2  # each of its 11 ranks for each unseen one (4, J held)
    give, take = swaps[0]
    assert take == cards("6h")  # 3 4 5 6 7 8 9: one play for seven cards
    assert give & hand
