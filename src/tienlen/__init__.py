"""tienlen: the rules of Tiến Lên as data, complete move generation, games and records.

The core (this package's top-level modules) is pure Python with no I/O and no third-party
dependency; ``tienlen.players`` and ``tienlen.apps`` build on it, never the reverse.
"""

from . import movegen as _movegen
from .cards import RANKS, SUITS, Card, CardParseError, deck, format_cards, parse_cards
from .combos import (
    PASS,
    PASS_WORDS,
    Choice,
    Give,
    Move,
    MoveParseError,
    beats,
    classify,
    format_move,
    parse_give,
    parse_move,
    why_not_beats,
)
from .describe import describe_rules
from .game import Action, Chop, Game, GameSetup, Gift, IllegalMoveError, TradeOffer
from .match import GameResult, Match
from .record import GameRecord, RecordError, record_of
from .rules import INSTANT_WINS, RULESETS, Rules, RulesError
from .scoring import score

__all__ = [
    "COMPILED",
    "INSTANT_WINS",
    "PASS",
    "PASS_WORDS",
    "RANKS",
    "RULESETS",
    "SUITS",
    "Action",
    "Card",
    "CardParseError",
    "Choice",
    "Chop",
    "Game",
    "GameRecord",
    "GameResult",
    "GameSetup",
    "Gift",
    "Give",
    "IllegalMoveError",
    "Match",
    "Move",
    "MoveParseError",
    "RecordError",
    "Rules",
    "RulesError",
    "TradeOffer",
    "beats",
    "classify",
    "deck",
    "describe_rules",
    "format_cards",
    "format_move",
    "parse_cards",
    "parse_give",
    "parse_move",
    "record_of",
    "score",
    "why_not_beats",
]
__version__ = "0.2.0"

COMPILED: bool = not (_movegen.__file__ or "").endswith(".py")
"""Whether the engine's hot modules run compiled with mypyc (``make compiled``) rather
than interpreted; the package behaves the same either way."""
