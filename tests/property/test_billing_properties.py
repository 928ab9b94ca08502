"""Whole-instance billing never bills fewer GPUs than the replicas use, never an instance more
than packing needs, and GPU-hour billing bills exactly the GPUs."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.quantities.billing import billed_units_of


def _one(value: float) -> np.ndarray:
    return np.array([value], dtype=float)


@settings(max_examples=200, deadline=None)
@given(instances=st.integers(min_value=0, max_value=5000),
       tp=st.sampled_from([1, 2, 4, 8]), pp=st.sampled_from([1, 2, 4]),
       unit_gpus=st.sampled_from([1, 4, 8]))
def test_whole_instances_cover_and_do_not_overbill(instances: int, tp: int, pp: int,
                                                   unit_gpus: int) -> None:
    gpus = instances * tp * pp
    node = np.array(["node_hour"], dtype=object)
    units = float(billed_units_of(_one(instances), _one(tp), _one(pp), _one(gpus), node,
                                  _one(unit_gpus))[0])
    assert units * unit_gpus >= gpus
    if tp <= unit_gpus:
        stages = unit_gpus // tp
        assert units == -(-instances * pp // stages)  # ceil: no instance more than packing needs
    else:  # a stage wider than the instance takes whole instances of its own
        assert units == instances * pp * -(-tp // unit_gpus)
    hourly = np.array(["gpu_hour"], dtype=object)
    assert float(billed_units_of(_one(instances), _one(tp), _one(pp), _one(gpus), hourly,
                                 _one(unit_gpus))[0]) == gpus
