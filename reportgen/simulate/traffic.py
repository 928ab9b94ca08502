"""Requests to serve: arrival times and lengths, drawn at random or replayed from a trace."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reportgen.xlfuncs import Array


@dataclass(frozen=True)
class Requests:
    """Requests in arrival order: arrival time [s], prompt and output length [tokens]."""

    arrival_s: Array
    prompt_tokens: Array
    output_tokens: Array

    def __post_init__(self) -> None:
        n = len(self.arrival_s)
        if len(self.prompt_tokens) != n or len(self.output_tokens) != n:
            raise ValueError("arrival_s, prompt_tokens and output_tokens differ in length")
        if n and np.any(np.diff(self.arrival_s) < 0):
            raise ValueError("arrival_s must be in arrival order (non-decreasing)")

    def __len__(self) -> int:
        return len(self.arrival_s)


def unit_gaps(n: int, arrival_cv: float, rng: np.random.Generator) -> Array:
    """``n`` gaps between arrivals with mean 1 and coefficient of variation ``arrival_cv``: 1 is
    a Poisson process (exponential gaps); above 1 bursty, below 1 smoother (gamma gaps of shape
    1/cv², the renewal process load testers use for bursty traffic); 0 evenly spaced."""
    if arrival_cv <= 0:
        return np.ones(n)
    shape = 1.0 / arrival_cv**2
    return rng.gamma(shape, 1.0 / shape, size=n)


def poisson_or_bursty(rate_rps: float, gaps: Array, prompt_tokens: Array,
                      output_tokens: Array) -> Requests:
    """Requests arriving at ``rate_rps`` on the given unit-mean gaps (see unit_gaps): the same
    gaps scaled to every rate, so a search over rates sees the same traffic pattern."""
    return Requests(np.cumsum(gaps) / rate_rps, prompt_tokens, output_tokens)


def replay(arrival_s: Array, prompt_tokens: Array, output_tokens: Array) -> Requests:
    """A replayed trace: timestamps [s] and lengths as recorded, sorted by arrival."""
    order = np.argsort(np.asarray(arrival_s, dtype=float), kind="stable")
    times = np.asarray(arrival_s, dtype=float)[order]
    return Requests(times - times[0] if len(times) else times,
                    np.asarray(prompt_tokens, dtype=float)[order],
                    np.asarray(output_tokens, dtype=float)[order])
