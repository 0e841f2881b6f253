"""A tiny bot speaking the tienlen bot protocol (docs/protocol.md), with no dependency.

Run it by hand to see the protocol, or let the arena run it:

    tienlen arena --bots "cmd:python examples/protocol_bot.py",greedy,greedy,greedy --games 40

Its play: lead or beat with the play that has the lowest top card (cards come as "3s",
"10h", ...; the rank decides first, then the suit), and pass when passing is allowed and
the only plays would spend a 2. Options for testing a host's error handling:
``--bad json`` answers with a line that is not JSON, ``--bad illegal`` with a move that is
not allowed, ``--bad silent`` never answers a move request.
"""

from __future__ import annotations

import json
import sys

RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
SUITS = "scdh"


def strength(card: str) -> tuple[int, int]:
    """(rank, suit) of a card such as "10h" or "3s'" (a second-deck copy)."""
    card = card.rstrip("'")
    return RANKS.index(card[:-1].upper()), SUITS.index(card[-1].lower())


def choose(legal: list[str]) -> str:
    plays = [m for m in legal if m != "pass"]
    if not plays:
        return "pass"
    plays.sort(key=lambda m: max(strength(c) for c in m.split()))
    best = plays[0]
    if "pass" in legal and any(c.rstrip("'")[:-1] == "2" for c in best.split()):
        return "pass"
    return best


def main() -> int:
    bad = sys.argv[sys.argv.index("--bad") + 1] if "--bad" in sys.argv else None
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply = {"type": "hello", "protocol": 1, "name": "example-lowest"}
        elif kind == "move":
            if bad == "silent":
                continue
            if bad == "json":
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
                continue
            move = choose(message["legal"])
            if bad == "illegal":  # a single card this bot does not hold
                hand = message["observation"]["hand"].split()
                move = next(r + s for r in RANKS for s in SUITS if r + s not in hand)
            reply = {"type": "move", "id": message["id"], "move": move}
        elif kind == "quit":
            return 0
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
