"""Plain-words explanations of a :class:`~tienlen.Rules` value, written from its knobs.

:func:`describe_rules` turns any rules value (a preset or a house mix) into short sections
of sentences; nothing here asks which preset a value came from. The only per-preset text
is :data:`SUMMARIES`, the one-line summaries that ``tienlen rules`` lists.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .cards import RANKS, Card
from .patterns import Pattern, parse_pattern
from .rules import Rules
from .scoring import PROPLAY_BET, SCHEMES

__all__ = [
    "SUMMARIES",
    "describe_differences",
    "describe_pattern",
    "describe_rules",
    "rules_sections",
]

#: One line per preset, for listings (``tienlen rules``).
SUMMARIES: dict[str, str] = {
    "standard": "modern southern rules: 3♠ in the first lead, no 2s in runs, score pad",
    "wikipedia": "core rules: lowest card led alone, 2s may top runs, no bombing after a pass",
    "pagat": "3♠ holder leads with it, 2s may top runs, bombs allowed after passing",
    "pang": "Pagat plus: the 3♠ holder may decline, no 2s in runs, stacking",
    "lu": "17 cards with 2-3 players, quads beat any single or pair, first out ends it",
    "vietcong": "four 2s win at once, consecutive quads, 2s may top pair runs",
    "suited": "follow suit and colour, instant wins, every game from the lowest card",
    "hawaii": "13 each always, quad beats a 3-pair run, every game from the lowest card",
    "akita": "no lock-out, bombs beat anything, triples beat an ace, suited-straight lock",
    "pike": "no lock-out, only 3-pair runs bomb, four hands dealt, suited-straight lock",
    "proplay": "16-level bomb ladder with re-bombing, winner takes all, point system",
    "double-deck-13": "8 players, two decks, red back wins ties, blue K♦ kills any single",
}

_KIND_WORDS = {
    "single": ("single", "singles"),
    "pair": ("pair", "pairs"),
    "triple": ("triple", "triples"),
    "quad": ("four of a kind (tứ quý)", "fours of a kind"),
    "straight": ("straight (sảnh)", "straights"),
    "pair_run": ("run of pairs (đôi thông)", "runs of pairs"),
    "triple_run": ("run of triples", "runs of triples"),
    "quad_run": ("run of consecutive quads", "runs of consecutive quads"),
    "multi_quad": ("set of two or more quads played together", "sets of quads"),
    "dragon": ("dragon (the 12-card straight 3 to A)", "dragons"),
}

_INSTANT_WORDS = {
    "four-twos": "all four 2s",
    "six-pairs": "six pairs",
    "three-triples": "three triples",
    "dragon": "a dragon (3 to A)",
    "five-consecutive-pairs": "five consecutive pairs",
}


def _rank_plural(rank: int) -> str:
    return f"{RANKS[rank]}s"


def _size_words(p: Pattern, unit: str) -> str:
    lo, hi = p.min_size, p.max_size
    if lo == 0:
        return f"{unit}s"
    if hi == lo:
        return f"exactly {lo} {unit}s"
    return f"{lo} or more {unit}s"


def describe_pattern(text: str) -> str:
    """A bomb-table pattern in words: ``"pair_run3+"`` → ``"a run of 3 or more pairs"``."""
    p = parse_pattern(text)
    top = f" topped by {_rank_plural(p.top_rank)}" if p.top_rank is not None else ""
    match p.kind:
        case None:
            return "any play"
        case "single" | "pair" | "triple" | "quad" if p.top_rank is not None:
            names = {"single": "a single", "pair": "a pair of", "triple": "three", "quad": "four"}
            return f"{names[p.kind]} {RANKS[p.top_rank]}" + ("s" if p.kind != "single" else "")
        case "single":
            return "any single card"
        case "pair":
            return "any pair"
        case "triple":
            return "any triple"
        case "quad":
            return "a four of a kind"
        case "straight":
            size = "" if p.min_size == 0 else f" of {_size_words(p, 'card')}"
            end = f" ending in a {RANKS[p.top_rank]}" if p.top_rank is not None else ""
            return f"a straight{size}{end}"
        case "pair_run" | "triple_run":
            unit = "pair" if p.kind == "pair_run" else "triple"
            return f"a run of {_size_words(p, unit)}{top}"
        case "quad_run":
            if p.min_size == 0:
                return f"consecutive quads{top}"
            return f"{_size_words(p, 'consecutive quad')}{top}"
        case "multi_quad":
            if p.min_size == 0:
                return "two or more quads played together"
            return f"{_size_words(p, 'quad')} played together"
        case "dragon":
            return "a dragon"
        case _:
            return text


def rules_sections(rules: Rules) -> list[tuple[str, list[str]]]:
    """The explanation as ``(heading, sentences)`` sections."""
    return [
        ("Deal", _deal(rules)),
        ("Who starts", _start(rules)),
        ("Combinations", _combinations(rules)),
        ("Beating a play", _beating(rules)),
        ("Bombs (chopping)", _bombs(rules)),
        ("Passing and the end of a pile", _passing(rules)),
        ("Before play", _before_play(rules)),
        ("End of the game and scoring", _ending(rules)),
    ]


def describe_rules(rules: Rules, *, width: int = 88) -> str:
    """The rules in plain words: a title, then bulleted sections."""
    import textwrap

    title = rules.name
    if rules.name in SUMMARIES:
        # The summary describes the preset itself: a changed value keeps only its name.
        unchanged = rules == Rules.preset(rules.name)
        title += f": {SUMMARIES[rules.name]}" if unchanged else " (changed from the preset)"
    lines = [title, ""]
    for heading, sentences in rules_sections(rules):
        if not sentences:
            continue
        lines.append(heading)
        for s in sentences:
            lines.extend(
                textwrap.wrap(s, width=width, initial_indent="  - ", subsequent_indent="    ")
            )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def describe_differences(a: Rules, b: Rules) -> list[str]:
    """One line per knob on which ``a`` and ``b`` differ, in the words :func:`rules_sections`
    uses: what ``a``'s explanation says on that point, then ``→`` and what ``b``'s says.

    A knob's words are the sentences that change when only that knob is switched to the
    other value (in ``a``'s rules, else in ``b``'s where ``a`` cannot take it); a knob that
    changes no sentence (a double-deck tie rule with one deck) is shown by its values."""
    lines = []
    for f in dataclasses.fields(Rules):
        if not f.init or f.name == "name":
            continue
        old, new = getattr(a, f.name), getattr(b, f.name)
        if old == new:
            continue
        words = _knob_words(a, f.name, new) or _flip(_knob_words(b, f.name, old))
        if words is None:
            lines.append(f"{f.name}: {_value_words(old)} → {_value_words(new)}")
        else:
            lines.append(f"{f.name}: {_trim(*words)}")
    return lines


def _knob_words(rules: Rules, knob: str, value: Any) -> tuple[str, str] | None:
    """The sentences of ``rules`` that switching ``knob`` to ``value`` takes away and adds."""
    try:
        other = dataclasses.replace(rules, **{knob: value})
    except ValueError:
        return None
    before, after = _sentences(rules), _sentences(other)
    gone = " ".join(s for s in before if s not in after)
    added = " ".join(s for s in after if s not in before)
    return (gone, added) if gone or added else None


def _flip(words: tuple[str, str] | None) -> tuple[str, str] | None:
    return (words[1], words[0]) if words else None


def _sentences(rules: Rules) -> list[str]:
    return [s for _, sentences in rules_sections(rules) for s in sentences]


def _value_words(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return ", ".join(_value_words(v) for v in value) if value else "none"
    return "none" if value is None else str(value)


#: Words of context kept on each side of a change.
_CONTEXT = 3


def _trim(old: str, new: str) -> str:
    """``old → new`` with the words both share at the start and the end cut to a little
    context (``…``); a side with nothing to say reads "(no such rule)"."""
    if not old or not new:
        return f"{old or '(no such rule)'} → {new or '(no such rule)'}"
    x, y = old.split(), new.split()
    head = 0
    while head < min(len(x), len(y)) and x[head] == y[head]:
        head += 1
    tail = 0
    while tail < min(len(x), len(y)) - head and x[-1 - tail] == y[-1 - tail]:
        tail += 1

    def cut(words: list[str]) -> str:
        start = max(0, head - _CONTEXT)
        end = len(words) - max(0, tail - _CONTEXT)
        text = " ".join(words[start:end])
        return ("…" if start else "") + text + ("…" if end < len(words) else "")

    return f"{cut(x)} → {cut(y)}"


# --- sections --------------------------------------------------------------------------
def _deal(r: Rules) -> list[str]:
    out: list[str] = []
    cards = 52 * r.decks
    deck = "one 52-card deck" if r.decks == 1 else "two 52-card decks (blue and red backs)"
    out.append(f"{r.players} players, {deck}; play goes {r.direction}.")
    if r.deal_four_hands:
        out.append(
            "Exactly four hands of 13 are dealt whatever the number of players; unused hands "
            "are set aside unseen. With two players the two unused hands are the next game, "
            "without reshuffling."
        )
    else:
        size = r.cards_per_hand
        spare = cards - size * r.players
        text = f"Each player is dealt {size} cards"
        if r.hand_size == "all":
            text += " (the deck dealt out equally)"
        if r.few_players_hand_size is not None and r.players >= 4:
            text += f"; with 2 or 3 players, {r.few_players_hand_size} each"
        out.append(text + ".")
        if spare == 1 and r.starter_takes_spare:
            out.append("The one card left over goes to the player who leads first.")
        elif spare:
            out.append(f"The {spare} cards left over are set aside unseen.")
        elif r.starter_takes_spare:
            out.append("If exactly one card is left over, the first leader takes it.")
    out.append("The first dealer is chosen at random; after that the loser deals.")
    if r.hidden_counts:
        out.append(
            "Card counts are hidden: during play a player may ask another how many cards they "
            "hold, and the answer is told to the whole table."
        )
    return out


def _start(r: Rules) -> list[str]:
    lowest = "the lowest card dealt (the 3♠ when it is dealt)"
    first = {
        "lowest-single": f"The first game starts with {lowest}, played on its own.",
        "must-include-lowest": (
            f"The first game is led by the holder of {lowest}, whose first play must include it."
        ),
        "holder-free": (
            "The first game is led by the holder of the 3♠ (the lowest card dealt if the 3♠ "
            "is not), who may lead anything."
        ),
        "holder-may-decline": (
            f"The holder of {lowest} leads a play containing it, or may decline: then the "
            "next player leads anything."
        ),
    }[r.first_lead]
    out = [first]
    if r.first_lead_kinds:
        kinds = _or_list([_KIND_WORDS[k][0] for k in r.first_lead_kinds])
        out.append(f"That opening play must be a {kinds}; no other kind may open.")
    if r.opening_bombs:
        bombs = _or_list([describe_pattern(b) for b in r.opening_bombs])
        out.append(
            f"Before the first lead of every game, each other player in turn may open out of "
            f"turn with {bombs}, without the lowest card; play then goes on from them."
        )
    later = (
        "Every later game is led by the previous winner, who may lead anything."
        if r.later_leads == "winner"
        else "Every later game starts the same way as the first."
    )
    return [*out, later]


def _combinations(r: Rules) -> list[str]:
    kinds = [k for k in _KIND_WORDS if k in r.kinds]
    names = ", ".join(_KIND_WORDS[k][0] for k in kinds)
    out = [f"Plays: {names}."]
    out.append(
        f"A straight has at least {r.min_straight} consecutive cards of any suits"
        + (
            "; a 2 may be its top card (K-A-2)."
            if r.twos_in_straight == "top"
            else "; 2s may not be in a straight."
        )
        + " Runs never wrap round (no A-2-3)."
    )
    out.append(
        f"A run of pairs has at least {r.min_pair_run} consecutive pairs"
        + ("; 2s may be its top pair." if r.twos_in_pair_run == "top" else "; it may not hold 2s.")
    )
    if r.pair_run_one_colour:
        out.append("A run of pairs must be all red (♦ ♥) or all black (♠ ♣) cards.")
    if "triple_run" in r.kinds:
        out.append(f"A run of triples has at least {r.min_triple_run} consecutive triples.")
    if "quad_run" in r.kinds:
        out.append(f"A run of quads has at least {r.min_quad_run} consecutive quads.")
    if "multi_quad" in r.kinds:
        out.append(
            f"Any {r.min_quad_run} or more quads may be played together, consecutive or not."
        )
    if "dragon" in r.kinds:
        out.append("The 12-card straight 3 to A is a dragon, a combination of its own.")
    return out


def _beating(r: Rules) -> list[str]:
    out = [
        "A play is beaten by the same kind with the same number of cards and a higher top "
        "card (rank first, then suit ♠ < ♣ < ♦ < ♥)."
    ]
    if r.single_same_suit:
        out.append("A single must be beaten by a higher card of the same suit (2s are exempt).")
    if r.pair_same_colours:
        out.append("A pair must be beaten by a pair of the same colours (2s are exempt).")
    if r.triple_same_suits:
        out.append("A triple must be beaten by a triple of the same three suits (2s exempt).")
    if r.pair_run_same_colours:
        out.append(
            "A run of pairs must be beaten by one whose pairs have the same colours, pair by "
            "pair in rank order."
        )
    if r.straight_above:
        out.append(
            "A straight must be beaten by one whose lowest card is above the other's highest "
            "card (6-7-8 by 9-10-J or higher)."
        )
    if r.pair_run_above:
        out.append(
            "A run of pairs must be beaten by one whose lowest pair is above the other's "
            "highest pair."
        )
    if r.straight_lock:
        out.append(
            "Once a one-suit straight is played, later straights on that pile must be one-suit "
            "too (a lock)."
        )
    if r.triple_beats_ace:
        out.append("Any triple may be played on a single ace.")
    if r.single_killer:
        card = Card.parse(r.single_killer)
        back = " (blue back)" if r.decks == 2 and card.copy == 0 else ""
        out.append(f"The {card}{back} beats any single card, 2s included.")
    if r.decks == 2:
        out.append(
            {
                "forbid": "With two decks, a card cannot beat its own twin.",
                "later-wins": "With two decks, a card beats its twin when played later.",
                "highest-distinct": (
                    "With two decks, twins tie; the play wins on its highest card that differs."
                ),
                "red-beats-blue": "With two decks, the red-backed twin beats the blue one.",
            }[r.tie_rule]
        )
    return out


def _bombs(r: Rules) -> list[str]:
    out: list[str] = []
    by_target: dict[str, list[str]] = {}
    for target, bomb in r.chops:
        by_target.setdefault(target, []).append(bomb)
    if not by_target and not r.bomb_ladder:
        return ["There are no bombs: nothing beats a play of another kind."]
    ladder = list(r.bomb_ladder)
    merged: dict[tuple[str, ...], list[str]] = {}
    for target, target_bombs in by_target.items():
        merged.setdefault(tuple(target_bombs), []).append(target)
    for bombs, targets in merged.items():
        what = _or_list([describe_pattern(t) for t in targets])
        rungs = sorted(ladder.index(b) for b in bombs) if set(bombs) <= set(ladder) else []
        if len(rungs) > 2 and rungs == list(range(rungs[0], rungs[-1] + 1)):
            lo, hi = rungs[0], rungs[-1]
            words = f"any bomb on rungs {lo + 1}-{hi + 1} of the ladder below"
        else:
            words = _or_list([describe_pattern(b) for b in bombs])
        out.append(f"{_cap(what)} may be chopped by {words}.")
    if ladder:
        rungs_words = [describe_pattern(p) for p in ladder]
        if len(rungs_words) == 2:
            out.append(f"{_cap(rungs_words[0])} beats {rungs_words[1]}.")
        else:
            numbered = "; ".join(f"({i}) {w}" for i, w in enumerate(rungs_words, 1))
            out.append(f"Bombs beat lower bombs on this ladder, strongest first: {numbered}.")
    if any(t == "*" for t, _ in r.chops):
        out.append("A bomb may also be played on another bomb, whatever their kinds.")
    else:
        out.append(
            "After a bomb, the next play must be a higher bomb of the same kind and length"
            + (" (or one higher on the ladder)." if r.bomb_ladder else ".")
        )
    if not r.bombs_may_lead:
        out.append("A bomb may not be led to a fresh pile.")
    return out


def _passing(r: Rules) -> list[str]:
    out: list[str] = []
    if r.pass_locks:
        out.append("Passing locks you out of the pile until a new one starts.")
        if r.after_pass_bombs:
            bombs = (
                "any bomb"
                if r.after_pass_bombs == ("*",)
                else _or_list([describe_pattern(b) for b in r.after_pass_bombs])
            )
            out.append(
                f"Exception: while 2s are on top of the pile, a player who passed may come back "
                f"in with {bombs}; they stay locked out after that."
            )
        else:
            out.append("No bombing after passing: a passed player waits for the next pile.")
    else:
        out.append("Passing does not lock you out: you may play again on the same pile.")
    if r.stacking:
        out.append(
            "Stacking: when everyone else has passed, the last player may go on playing higher "
            "combinations of the same kind and size on their own play (not bombs); the others "
            "may answer only with bombs."
        )
    out.append(
        "When everyone else has passed, the last player to play wins the pile and leads a "
        "fresh one; if they have gone out, the next player still in leads."
    )
    if r.out_ends_pile:
        out.append("When a player goes out the pile ends at once, and the next player leads.")
    if not r.may_finish_on_two:
        out.append("Your last play may not contain a 2.")
    return out


def _before_play(r: Rules) -> list[str]:
    out: list[str] = []
    if r.trading == "mutual":
        out.append(
            "Trading: before the first lead each player, from the leader round the table, may "
            "offer one other player a swap of the same number of cards; the other accepts or "
            "refuses."
        )
    elif r.trading == "san-jose":
        out.append(
            "San Jose trading, from the second game: the loser gives their two highest cards "
            "to the winner and, with four or more players, the second-to-last gives their "
            "highest to the second; at the same time the winner gives back two cards of their "
            "choice and the second one."
        )
    debts = r.chop_debts != "none" or r.loser_owes_twos
    if r.chop_debts != "none":
        owed = {
            "stacking": "one card, plus one for each 2 beyond the first and for each bomb "
            "played on a bomb above it",
            "doubling": "one card, doubled for each 2 beyond the first and for each bomb "
            "played on a bomb above it",
            "no-stacking": "one card per 2 chopped, however many bombs were played on top",
        }[r.chop_debts]
        out.append(
            "Chop debts: the last player chopped in a game owes the player who chopped them "
            f"{owed}, given at the next deal."
        )
    if r.loser_owes_twos:
        out.append(
            "The loser owes the winner one card for each 2 still in hand at the end, given at "
            "the next deal."
        )
    if debts:
        card = {
            "highest-two": "their highest 2s (a debtor without a 2 gives nothing)",
            "any-two": "2s of their choice (a debtor without a 2 gives nothing)",
            "highest-card": "their highest cards",
        }[r.debt_card]
        out.append(
            f"A debtor pays with {card}; the receiver gives back as many cards of their choice."
        )
    if r.instant_wins and r.trading == "none":
        hands = _or_list([_INSTANT_WORDS[w] for w in r.instant_wins])
        out.append(f"Instant win (tới trắng): a player dealt {hands} wins at once, before play.")
        if debts and "four-twos" in r.instant_wins:
            out.append("A player who owes cards cannot claim the instant win with four 2s.")
    elif r.instant_wins:
        out.append("Instant wins are off because trading is played.")
    return out


def _ending(r: Rules) -> list[str]:
    out: list[str] = []
    if r.end_at_first_out:
        out.append(
            "The game ends as soon as the first player goes out; the others are ranked by "
            "cards left."
        )
    else:
        out.append("The game goes on until one player is left holding cards: the loser.")
    scheme = SCHEMES[r.scoring]
    x = PROPLAY_BET
    text = f"Scoring ({scheme.name}): {scheme.summary}."
    if r.scoring == "proplay":
        text += f" The bet x is {PROPLAY_BET} points."
    out.append(text)
    if r.cong and r.scoring in ("stake", "scorepad", "per-card"):
        out.append("Cóng: a player who has not played a card when someone goes out pays double.")
    if r.guarantees:
        out.append(
            "Guarantees (Guaransheeds): before play a player may guarantee to go out first; "
            "made good, every other player pays them 1 point (2 if they guaranteed before "
            "seeing their hand); failed, they pay every other player 2."
        )
    extras = {
        "twos-left": (
            f"Thối 2: a player left holding 2s pays the winner {x} points per black 2 and "
            f"{2 * x} per red 2."
        ),
        "bombs-left": (
            f"Thối hàng: a player left holding bombs pays the winner {3 * x // 2} points per "
            f"run of pairs and {3 * x} per four of a kind."
        ),
        "chop-twos": (
            f"Chopping a 2 is paid at once by the chopped player: {x} points for a black 2 "
            f"and {3 * x // 2} for a red 2 chopped with a run of pairs, {2 * x} and {3 * x} "
            "with another bomb; chopping a bomb earns double what it earned."
        ),
        "three-spades-last": (
            f"A winner whose last play holds the 3♠ receives {x} more points from every "
            "other player."
        ),
    }
    out += [extras[e] for e in dict.fromkeys(r.score_extras)]
    if r.got_to_get_in:
        out.append(
            f"Got to Get In: when the first player goes out, each player who has not yet "
            f"played a card pays them {r.got_to_get_in} points."
        )
    return out


# --- helpers -----------------------------------------------------------------------------
def _or_list(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]
