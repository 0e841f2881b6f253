"""Cross-check the engine against the brute-force model of tests/reference.py.

For every preset, seeded random self-play visits at least 10,000 play-phase positions
(whole games, so hands of every size; leading, following, stacking, passed players
rejoining over 2s, first leads). At each position the engine's ``legal_moves`` must equal
the reference's brute-force list (same cards, same kind and size), illegal combinations
must be refused by ``why_illegal`` and ``play``, and after each move the engine's turn,
pile, passes, lock-outs and finish order must equal the reference model's.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import pytest

from quick import presets
from reference import RefTable, ref_classify, ref_combinations
from tienlen import PASS, RULESETS, Action, Game, IllegalMoveError, Move, Rules, deck
from tienlen.cards import cards_of_mask, format_cards
from tienlen.combos import classify_mask

POSITIONS_PER_PRESET = 10_000

# Extra rule values (variants the presets do not reach) checked on fewer positions.
VARIANTS: dict[str, Rules] = {
    "standard/anticlockwise": Rules.preset("standard", direction="anticlockwise"),
    "standard/3-players": Rules.preset("standard", players=3),
    "standard/no-bomb-lead/no-finish-on-2": Rules.preset(
        "standard", bombs_may_lead=False, may_finish_on_two=False
    ),
    "pang/2-players": Rules.preset("pang", players=2),
    "lu/3-players": Rules.preset("lu", players=3),
    "pike/2-players": Rules.preset("pike", players=2),
    "akita/anticlockwise": Rules.preset("akita", direction="anticlockwise"),
    "wikipedia/6-players": Rules.preset("wikipedia", players=6, decks=2),
    "vietcong/later-wins": Rules.preset("vietcong", players=5, decks=2, tie_rule="later-wins"),
    "hawaii/no-lock/highest-distinct": Rules.preset(
        "hawaii", players=5, decks=2, pass_locks=False, tie_rule="highest-distinct"
    ),
    # 004: "Three consecutive pairs can be played at the beginning of the game without
    # being the lead"; "no universal agreement on whether this applies to 3 consecutive
    # pairs only or all chops".
    "standard/opening-three-pairs": Rules.preset("standard", opening_bombs=("pair_run3",)),
    "wikipedia/opening-any-chop/no-bomb-lead": Rules.preset(
        "wikipedia", opening_bombs=("quad", "pair_run3+"), bombs_may_lead=False
    ),
    # 004: "Four consecutive pairs can chop a single 2 or smaller chop even if the player has
    # previously passed."
    "standard/after-pass-on-chops": Rules.preset("standard", after_pass_on_chops=True),
    "suited/four-pairs-after-pass-on-chops": Rules.from_code(
        "suited.pair-run4-chops-single-of-2.pair-run4-chops-pair-run3"
        ".after-pass-bombs-pair-run4.after-pass-on-chops"
    ),
}
VARIANT_POSITIONS = 1_500


def _describe(game: Game, ref: RefTable) -> str:
    hands = " | ".join(format_cards(cards_of_mask(h), ascii=True) for h in game.hand_masks)
    moves = "; ".join(
        f"{a.seat}:{a.move if isinstance(a, Action) else a.give}" for a in game.history
    )
    return f"rules={game.rules.name} hands=[{hands}] history=[{moves}] ref_turn={ref.turn}"


def _key(m: Move) -> tuple[int, str, int]:
    return (m.mask, "pass" if not m.mask else m.kind, m.size if m.mask else 0)


def _compare_state(game: Game, ref: RefTable) -> None:
    where = _describe(game, ref)
    assert game.is_over == ref.over, where
    assert list(game.finish_order) == ref.finish, where
    if ref.over:
        return
    assert game.position == ref.position(), where


Deal = Callable[[Rules, random.Random], tuple[list[str], int | None]]


def crosscheck(rules: Rules, positions: int, label: str, deal: Deal | None = None) -> Counter[str]:
    """Play seeded random games until ``positions`` play-phase positions were checked.
    ``deal`` makes explicit hands and a leader instead of a shuffled deal."""
    counts: Counter[str] = Counter()
    combos_cache: dict[int, list[Move]] = {}
    game_no = 0
    while counts["positions"] < positions:
        seed = f"{label}/{game_no}"
        game_no += 1
        rng = random.Random(seed)
        leader = None
        if deal is None:
            game = Game(rules, seed=seed)
        else:
            hands, leader = deal(rules, rng)
            game = Game(rules, hands=hands, leader=leader)
        counts["games"] += 1
        if game.phase != "play":
            counts["games-over-at-deal"] += 1
            continue
        ref = RefTable(rules, list(game.hand_masks), leader=leader)
        # How eager this game's players are to pass: from never to nearly always.
        pass_chance = rng.choice((0.0, 0.15, 0.4, 0.7, 0.9))
        while True:
            _compare_state(game, ref)
            if ref.over:
                break
            hand = ref.hands[ref.turn]
            combos = combos_cache.get(hand)
            if combos is None:
                combos = combos_cache[hand] = ref_combinations(hand, rules)
            expected = {_key(m) for m in ref.legal(combos)}
            got_list = game.legal_plays()
            got = {_key(m) for m in got_list}
            assert len(got) == len(got_list), "legal_moves lists a move twice"
            if got != expected:
                extra = [format_cards(cards_of_mask(k[0])) or "pass" for k in got - expected]
                missing = [format_cards(cards_of_mask(k[0])) or "pass" for k in expected - got]
                pytest.fail(
                    f"legal moves differ ({ref.state_kind()}): engine also allows {extra}, "
                    f"engine misses {missing}; {_describe(game, ref)}"
                )
            counts["positions"] += 1
            counts[ref.state_kind()] += 1
            if hand.bit_count() >= 13:
                counts["hands of 13+ cards"] += 1
            if ref.top is None and (0, "pass", 0) in expected:
                counts["leader may pass"] += 1  # declining the first lead, or stuck
            # Some combinations that are not legal now must be refused, with a reason.
            illegal = [m for m in combos if _key(m) not in expected]
            for m in rng.sample(illegal, min(3, len(illegal))):
                assert game.why_illegal(m) is not None, _describe(game, ref)
                with pytest.raises(IllegalMoveError):
                    game.copy().play(m)
            legal = sorted(got_list, key=_key)
            plays = [m for m in legal if m.mask]
            if PASS in legal and (not plays or rng.random() < pass_chance):
                move = PASS
            else:
                move = rng.choice(plays)
            assert game.why_illegal(move) is None, _describe(game, ref)
            if ref.opening and move.mask:
                counts["opened out of turn"] += 1
            game.play(move)
            ref.apply(move)
    return counts


def _expected_kinds(rules: Rules) -> list[str]:
    """The kinds of decision random self-play must reach under these rules."""
    kinds = ["lead", "follow"]
    if rules.first_lead != "holder-free":
        kinds.append("first-lead")
    if rules.pass_locks and rules.after_pass_bombs:
        kinds.append("rejoin")
    if not rules.pass_locks:
        kinds.append("follow-after-pass")
    if rules.stacking:
        kinds.append("stack")
    if rules.straight_lock:
        kinds.append("follow-locked-straight")
    if rules.opening_bombs:
        kinds.append("open-out-of-turn")
    return kinds


@pytest.mark.slow
@pytest.mark.parametrize("preset", RULESETS)
def test_legal_moves_match_brute_force(
    preset: str, record_property: Callable[[str, object], None]
) -> None:
    rules = Rules.preset(preset)
    counts = crosscheck(rules, POSITIONS_PER_PRESET, preset)
    record_property("reference_counts", f"{preset}: {dict(sorted(counts.items()))}")
    assert counts["positions"] >= POSITIONS_PER_PRESET
    for kind in _expected_kinds(rules):
        assert counts[kind] > 0, f"no {kind!r} position was reached: {counts}"


@pytest.mark.slow
@pytest.mark.parametrize("label", list(VARIANTS))
def test_variants_match_brute_force(
    label: str, record_property: Callable[[str, object], None]
) -> None:
    counts = crosscheck(VARIANTS[label], VARIANT_POSITIONS, label)
    record_property("reference_counts", f"{label}: {dict(sorted(counts.items()))}")
    assert counts["positions"] >= VARIANT_POSITIONS


def _pair_runs_dealt(rules: Rules, rng: random.Random) -> tuple[list[str], int | None]:
    """A shuffled deal in which seats 1-3 each hold a run of three pairs (5-6-7, 8-9-10,
    J-Q-K in two suits), so openings out of turn are on offer."""
    runs = ["5s 5c 6s 6c 7s 7c", "8d 8h 9d 9h 10d 10h", "Js Jc Qs Qc Ks Kc"]
    held = {c for run in runs for c in run.split()}
    rest = [c.ascii() for c in deck(1) if c.ascii() not in held]
    rng.shuffle(rest)
    hands = [" ".join(rest[:13])] + [
        f"{run} {' '.join(rest[13 + 7 * i : 20 + 7 * i])}" for i, run in enumerate(runs)
    ]
    return hands, rng.choice([None, 0, 2])


@pytest.mark.slow
def test_openings_out_of_turn_match_brute_force(
    record_property: Callable[[str, object], None],
) -> None:
    rules = VARIANTS["standard/opening-three-pairs"]
    counts = crosscheck(rules, VARIANT_POSITIONS, "opening", deal=_pair_runs_dealt)
    record_property("reference_counts", f"opening: {dict(sorted(counts.items()))}")
    assert counts["open-out-of-turn"] > 0 and counts["opened out of turn"] > 0, counts


@pytest.mark.parametrize("preset", presets(RULESETS))
def test_reference_classifier_agrees_with_classify(preset: str) -> None:
    """The reference's classifier and the engine's agree on random card sets."""
    rules = Rules.preset(preset)
    rng = random.Random(preset)
    deck_ids = list(range(0, 104, 1 if rules.decks == 2 else 2))
    runs = 0
    for _ in range(4_000):
        size = rng.choice((1, 2, 3, 4, 5, 6, 8, 12, rng.randint(1, 16)))
        if rng.random() < 0.5:
            # Biased towards runs: consecutive ranks with equal counts.
            per = rng.randint(1, 4)
            start = rng.randint(0, 12)
            length = rng.randint(1, 13 - start)
            ids = [
                i
                for r in range(start, start + length)
                for i in rng.sample([i for i in deck_ids if i // 8 == r], per)
            ]
        else:
            ids = rng.sample(deck_ids, size)
        mask = sum(1 << i for i in ids)
        expected = ref_classify(ids, rules)
        got = classify_mask(mask, rules)
        got_key = (got.kind, got.size) if got else None
        assert got_key == expected, (format_cards(cards_of_mask(mask)), got_key, expected)
        runs += expected is not None and expected[0] not in ("single", "pair", "triple", "quad")
    assert runs > 100


def stuck_prone_deal(rules: Rules, rng: random.Random) -> tuple[list[str], int | None]:
    """Small hands rich in quads and 2s, so that leaders are often left without a legal
    lead (no bomb leads, no going out on a 2)."""
    ranks = list(range(12))
    rng.shuffle(ranks)
    twos = ["2s", "2c", "2d", "2h"]
    rng.shuffle(twos)
    spare = [f"{r}{s}" for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J") for s in "scdh"]
    hands: list[str] = []
    for _ in range(rules.players):
        shape = rng.choice(("quad", "quad+2", "two", "twos", "mixed"))
        cards: list[str] = []
        if shape.startswith("quad"):
            rank = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")[ranks.pop()]
            cards = [f"{rank}{s}" for s in "scdh"]
        if shape in ("quad+2", "two", "twos") and twos:
            cards.append(twos.pop())
        if shape == "twos" and twos:
            cards.append(twos.pop())
        if shape == "mixed" or not cards:
            cards.extend(c for c in rng.sample(spare, 3))
        used = set(cards)
        spare = [c for c in spare if c not in used]
        hands.append(" ".join(cards))
    # Some games keep the first-lead rule; quads may share ranks with the spare cards.
    if len({c for h in hands for c in h.split()}) != sum(len(h.split()) for h in hands):
        return stuck_prone_deal(rules, rng)
    return hands, (rng.randrange(rules.players) if rng.random() < 0.7 else None)


@pytest.mark.slow
def test_stuck_leaders_match_brute_force(
    record_property: Callable[[str, object], None],
) -> None:
    """Leaders with no legal lead pass it on; when nobody can lead, the game ends."""
    rules = Rules.preset("standard", bombs_may_lead=False, may_finish_on_two=False)
    counts = crosscheck(rules, 2_000, "stuck", stuck_prone_deal)
    record_property("reference_counts", f"standard/stuck-leaders: {dict(sorted(counts.items()))}")
    assert counts["leader may pass"] > 50


def test_crosscheck_reports_a_wrong_move_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cross-check is not vacuous: an engine that forgets one legal play is caught."""
    real = Game.legal_plays

    def forgetful(self: Game) -> list[Move]:
        moves = real(self)
        plays = [m for m in moves if m.mask]
        return moves if len(plays) < 2 else [m for m in moves if m != plays[-1]]

    monkeypatch.setattr(Game, "legal_plays", forgetful)
    with pytest.raises(pytest.fail.Exception, match="engine misses"):
        crosscheck(Rules.preset("standard"), 200, "forgetful")


def test_crosscheck_reports_a_wrong_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """... and so is one whose pass does not lock the passer out."""
    rules = Rules.preset("standard")
    loose = replace(rules, pass_locks=False)

    real_game = Game

    def loose_game(_rules: Rules, *, seed: str) -> Game:
        return real_game(loose, seed=seed)

    import test_movegen_reference as me

    # a function, not a subclass: a compiled Game cannot be subclassed by interpreted code
    monkeypatch.setattr(me, "Game", loose_game)
    with pytest.raises((AssertionError, pytest.fail.Exception)):
        crosscheck(rules, 2_000, "loose")


@pytest.mark.parametrize("players", [4, 8])
def test_plays_on_a_single_under_a_killer_card_keep_their_order(players: int) -> None:
    """Under a killer single (``double-deck-13``: the blue K♦ beats any single, and no
    single beats it), the plays on a single are found by bisection, not by asking ``beats``
    of every single: the same moves, in the order ``beats`` on every candidate gave them
    (each group, by kind and size, in its own order), which the search bot's choices depend
    on. Every card is tried as the pile's top, the killer and its twin copy among them."""
    from tienlen.combos import beats
    from tienlen.movegen import MoveTable

    rules = Rules.preset("double-deck-13").for_players(players)
    rng = random.Random(players)
    cards = [1 << c.id for c in deck(rules.decks)]
    for _ in range(60):
        hand = 0
        for bit in rng.sample(cards, rng.randint(1, 26)):
            hand |= bit
        table = MoveTable.build(hand, rules)
        for top in deck(rules.decks):
            old = Move("single", 1, 1 << top.id)
            expected = sorted(
                (m for m in table.moves if beats(m, old, rules)), key=lambda m: (m.kind, m.size)
            )
            assert table.beating(old, rules) == expected, (format_cards(cards_of_mask(hand)), top)
