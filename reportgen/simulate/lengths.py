"""Prompt and output lengths that match a scenario's average and maximum.

Lengths follow a gamma distribution of shape LENGTH_GAMMA_SHAPE (coefficient of variation
1/√shape before the cap, an assumption: chat traces such as ShareGPT have long right tails)
capped at the maximum, with its scale solved so that the capped sample's mean is the average.
When the maximum equals the average every request has that length (the scenario file's
default: blank maxima)."""

from __future__ import annotations

import numpy as np

from reportgen.xlfuncs import Array

LENGTH_GAMMA_SHAPE = 2.0


def draw_lengths(n: int, mean_tokens: float, max_tokens: float,
                 rng: np.random.Generator) -> Array:
    """``n`` whole lengths ≥ 1 with mean ``mean_tokens`` (to within rounding) and none above
    ``max_tokens``."""
    top = max(float(max_tokens), float(mean_tokens))
    if top <= mean_tokens * (1 + 1e-9) or n == 0:
        return np.full(n, max(1.0, round(mean_tokens)))
    draws = rng.gamma(LENGTH_GAMMA_SHAPE, 1.0 / LENGTH_GAMMA_SHAPE, size=n)
    low, high = 1e-6 * mean_tokens, mean_tokens * 1e3
    for _ in range(60):  # the capped mean rises with the scale: bisect on it
        scale = (low + high) / 2
        if np.minimum(draws * scale, top).mean() < mean_tokens:
            low = scale
        else:
            high = scale
    return np.clip(np.rint(draws * (low + high) / 2), 1, np.floor(top))
