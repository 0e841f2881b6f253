"""Argument types shared by the subcommands (argparse ``type=`` callables)."""

from __future__ import annotations

import argparse

from tienlen.inputs import quote_value

__all__ = ["at_least_one"]


def at_least_one(text: str) -> int:
    """A whole number of 1 or more, or an argparse error that quotes the text."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {quote_value(text)}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value
