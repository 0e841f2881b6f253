"""Token buckets: the rate limits on messages, chat and table creation."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

__all__ = ["Rate", "TokenBucket"]


class Rate:
    """``burst`` actions at once, refilled at ``burst`` per ``per`` seconds."""

    __slots__ = ("burst", "per")

    def __init__(self, burst: int, per: float) -> None:
        if burst < 1 or per <= 0:
            raise ValueError(f"a rate needs burst >= 1 and per > 0, not {burst!r}/{per!r}")
        self.burst = burst
        self.per = per

    def __repr__(self) -> str:
        return f"Rate({self.burst}, {self.per})"

    def __str__(self) -> str:
        return f"{self.burst}/{self.per:g}"

    @classmethod
    def parse(cls, text: str) -> Rate:
        """A rate written ``COUNT/SECONDS`` (``"60/3600"``: 60 an hour), as the
        ``tienlen serve`` options and their environment variables take it."""
        count, slash, seconds = text.partition("/")
        try:
            per = float(seconds)
            if not slash or not math.isfinite(per):
                raise ValueError(text)
            return cls(int(count), per)
        except ValueError:
            raise ValueError(
                f"a rate is COUNT/SECONDS with COUNT >= 1 and SECONDS > 0 "
                f"(e.g. 60/3600), not {text[:40]!r}"
            ) from None


class TokenBucket:
    """A bucket of ``rate.burst`` tokens refilled continuously; :meth:`take` spends one."""

    __slots__ = ("_clock", "_last", "_rate", "_tokens")

    def __init__(self, rate: Rate, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._rate = rate
        self._clock = clock
        self._tokens = float(rate.burst)
        self._last = clock()

    def full(self) -> bool:
        """Whether the bucket has refilled to its burst (it remembers nothing then)."""
        rate = self._rate
        tokens = self._tokens + (self._clock() - self._last) * rate.burst / rate.per
        return tokens >= rate.burst

    def take(self) -> bool:
        """Spend a token if one is left; ``False`` means the caller is over its limit."""
        t = self._clock()
        rate = self._rate
        self._tokens = min(rate.burst, self._tokens + (t - self._last) * rate.burst / rate.per)
        self._last = t
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False
