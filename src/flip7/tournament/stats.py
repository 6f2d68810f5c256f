"""Small statistics for tournaments: Wilson intervals and mergeable latency histograms.

>>> low, high = wilson(25, 100)
>>> round(low, 4), round(high, 4)
(0.1755, 0.343)
>>> wilson(0, 0)
(0.0, 1.0)
>>> h = Latency.of([0.001, 0.002, 0.003, 0.004]).merge(Latency.of([0.010]))
>>> h.count, h.max
(5, 0.01)
>>> 0.0029 < h.quantile(0.5) < 0.0031
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Z95", "Latency", "wilson"]

# The two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054

# Latency buckets: 16 per doubling, so a quantile read from the histogram is within
# about 2.2% of the true value; bucket b holds times in [2**(b/16), 2**((b+1)/16)).
_PER_DOUBLING = 16
_ZERO_BUCKET = -(2**31)  # times of exactly 0 (a clock that did not tick)


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: ``successes`` out of ``trials``.

    ``successes`` may be fractional (a shared win counts 1/k for each of k winners); with no
    trials the interval is the whole of [0, 1].
    """
    if trials <= 0:
        return 0.0, 1.0
    p = min(max(successes / trials, 0.0), 1.0)
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1.0 - p) / trials + z2 / (4 * trials * trials)) / denom
    low = 0.0 if p == 0.0 else max(0.0, centre - half)
    high = 1.0 if p == 1.0 else min(1.0, centre + half)
    return low, high


def _bucket(seconds: float) -> int:
    if seconds <= 0.0:
        return _ZERO_BUCKET
    return math.floor(math.log2(seconds) * _PER_DOUBLING)


def _bucket_value(bucket: int) -> float:
    if bucket == _ZERO_BUCKET:
        return 0.0
    return float(2.0 ** ((bucket + 0.5) / _PER_DOUBLING))


@dataclass(frozen=True)
class Latency:
    """Decision times (seconds) as a log-scale histogram: mergeable across workers and of a
    fixed size however many decisions it holds. Count, total and max are exact; quantiles
    are read from the histogram (within about 2.2%)."""

    count: int = 0
    total: float = 0.0
    max: float = 0.0
    buckets: Mapping[int, int] = field(default_factory=dict)

    @classmethod
    def of(cls, times: Iterable[float]) -> Latency:
        buckets: dict[int, int] = {}
        count, total, top = 0, 0.0, 0.0
        for t in times:
            b = _bucket(t)
            buckets[b] = buckets.get(b, 0) + 1
            count += 1
            total += t
            if t > top:
                top = t
        return cls(count, total, top, buckets)

    def merge(self, other: Latency) -> Latency:
        buckets = dict(self.buckets)
        for b, k in other.buckets.items():
            buckets[b] = buckets.get(b, 0) + k
        return Latency(
            self.count + other.count, self.total + other.total, max(self.max, other.max), buckets
        )

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0

    def quantile(self, q: float) -> float:
        """The ``q`` quantile (0 ≤ q ≤ 1), the midpoint of its bucket (capped at the max)."""
        if not self.count:
            return 0.0
        rank = max(1, math.ceil(q * self.count))
        seen = 0
        for b in sorted(self.buckets):
            seen += self.buckets[b]
            if seen >= rank:
                return min(_bucket_value(b), self.max)
        return self.max

    def to_json(self) -> dict[str, Any]:
        """Count, mean, p50, p95 and max, in seconds."""
        return {
            "decisions": self.count,
            "mean": self.mean,
            "p50": self.quantile(0.5),
            "p95": self.quantile(0.95),
            "max": self.max,
        }
