"""What ``make test-fast`` runs less of (``make test`` runs all of it): Hypothesis's ``fast``
profile, which that target loads (``--hypothesis-profile=fast``) and under which each
property test draws a tenth of the examples it names (:func:`examples`); and the presets a
per-preset test runs on in the quick loop (:func:`presets`)."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from hypothesis import settings

__all__ = ["QUICK_PRESETS", "examples", "presets"]

#: The quick loop's profile: a tenth of the default profile's 100 examples.
settings.register_profile("fast", max_examples=10)

#: The presets a per-preset test runs on in the quick loop: the base game, the one furthest
#: from it (thirteen knobs changed) and the eight-player double deck.
QUICK_PRESETS = ("standard", "suited", "double-deck-13")


def examples(full: int) -> int:
    """How many examples a property test draws: ``full`` under the default profile (100
    examples a test), in proportion under another (``fast``: a tenth, at least one)."""
    profile = settings.default
    assert profile is not None  # Hypothesis loads its default profile on import
    return max(1, full * profile.max_examples // 100)


def presets(names: Iterable[str], *, also: Iterable[str] = ()) -> list[object]:
    """``names`` as parameters, those outside :data:`QUICK_PRESETS` and ``also`` marked
    ``slow``: the quick loop runs a per-preset test on a few, ``make test`` on every one."""
    quick = {*QUICK_PRESETS, *also}
    return [pytest.param(name, marks=() if name in quick else pytest.mark.slow) for name in names]
