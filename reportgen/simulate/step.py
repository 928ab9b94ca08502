"""How long one scheduler step takes: the engine's own decode step and in-batch prefill.

A step of the simulated server decodes one token for each of ``n`` running sequences and
computes ``c`` prompt tokens of admitted requests (chunked prefill). Its time is

    decode_step_ms(n) + c × prefill_in_batch_ms / prefill_tokens

with ``decode_step_ms`` evaluated by the registry's own function at batch ``n`` (the roofline
step: weights and KV read or compute, link time, overhead) and the prefill cost per prompt token
of the row's mean prompt (its compute and link transfer, attention included). A step with no
decoding sequences still reads the weights and pays the step's fixed costs, so a lone prompt of
at most one chunk takes exactly the engine's ``prefill_ms`` (one pipeline stage). One definition
of a step: the simulator calls the registry and has no timing model of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from reportgen.quantities import REGISTRY, input_kind
from reportgen.units import CONSTANTS
from reportgen.xlfuncs import Array


def _evaluate(name: str, values: Mapping[str, Any], model: Mapping[str, Any],
              given: Mapping[str, Array]) -> Array:
    """Registry quantity ``name`` with the arrays ``given`` for some of its inputs and the
    row's values (or the model's catalog fields, or a constant) for the rest."""
    quantity = REGISTRY[name]
    arguments: dict[str, Any] = {}
    for argument in quantity.inputs:
        if argument in given:
            arguments[argument] = given[argument]
        elif input_kind(argument) == "constant":
            arguments[argument] = CONSTANTS[argument].value
        elif argument.startswith("model__"):
            arguments[argument] = float(model[argument.removeprefix("model__")])
        else:
            arguments[argument] = float(values[argument])
    return np.asarray(quantity.compute(**arguments), dtype=float)


@dataclass(frozen=True)
class StepModel:
    """Step times of one instance: ``decode_ms[n]`` for n = 0 … max_seqs running sequences and
    the prefill cost of one prompt token riding in a step."""

    decode_ms: Array
    prefill_ms_per_token: float

    def step_ms(self, decoding: int, prefill_tokens: float) -> float:
        """One step decoding ``decoding`` sequences and computing ``prefill_tokens``."""
        return float(self.decode_ms[decoding]) + prefill_tokens * self.prefill_ms_per_token

    @classmethod
    def from_row(cls, values: Mapping[str, Any], model: Mapping[str, Any],
                 max_seqs: int) -> StepModel:
        """The step times of a results row (``values``: its scenario inputs and quantities;
        ``model``: its model catalog row) for up to ``max_seqs`` sequences."""
        batch = np.arange(max_seqs + 1, dtype=float)
        weights = _evaluate("weights_read_gib_per_step", values, model, {"batch": batch})
        decode = _evaluate("decode_step_ms", values, model,
                           {"batch": batch, "weights_read_gib_per_step": weights})
        tokens = max(float(values["prefill_tokens"]), 1.0)
        return cls(decode, float(values["prefill_in_batch_ms"]) / tokens)
