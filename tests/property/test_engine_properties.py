"""Invariants of the engine that must hold for any valid scenario (Hypothesis)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from reportgen.catalog import load_catalogs
from reportgen.engine import estimate
from tests.scenarios import validated

MODELS = ("Llama-3.1-8B", "Llama-3.1-70B", "Mixtral-8x7B", "Qwen3-30B-A3B", "Qwen2.5-7B",
          "DeepSeek-V3", "gemma-2-9b", "gpt-oss-120b")
GPUS = ("H100-SXM", "H200-SXM", "A100-SXM-80GB", "L40S", "L4", "B200", "MI300X")
DTYPES = ("bf16", "fp8", "int4", "fp4", "mxfp4", None)  # None: blank, as the model ships

scenario_rows = st.fixed_dictionaries(
    {
        "model": st.sampled_from(MODELS),
        "gpu": st.sampled_from(GPUS),
        "peak_qps": st.floats(0.01, 5000),
        "avg_prompt_tokens": st.integers(1, 6000),
        "avg_output_tokens": st.integers(1, 2000),
        "weight_dtype": st.sampled_from(DTYPES),
        "kv_dtype": st.sampled_from(("bf16", "fp8")),
        "engine": st.sampled_from(("vllm", "tensorrt-llm", "sglang")),
        "method": st.sampled_from(("roofline", "roofline", "roofline", "tutorial")),
        "ttft_slo_ms": st.one_of(st.none(), st.floats(1, 20_000)),
        "tpot_slo_ms": st.one_of(st.none(), st.floats(1, 300)),
        "max_batch": st.one_of(st.none(), st.integers(1, 1024)),
        "prefix_cache_hit_rate": st.one_of(st.none(), st.floats(0, 0.9)),
    }
)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _rows(draws: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{"scenario": f"s{i}", **row} for i, row in enumerate(draws)]


def _run(rows: list[dict[str, object]]) -> pd.DataFrame:
    checked = validated(rows)
    return estimate(checked.scenarios, checked.tables)


@FAST
@given(st.lists(scenario_rows, min_size=1, max_size=8))
def test_vectorised_equals_row_by_row(draws: list[dict[str, object]]) -> None:
    """Estimating a set at once gives each row what estimating it alone gives."""
    rows = _rows(draws)
    together = _run(rows)
    for i, row in enumerate(rows):
        alone = _run([row]).iloc[0]
        pd.testing.assert_series_equal(together.iloc[i], alone, check_names=False)


@FAST
@given(st.lists(scenario_rows, min_size=2, max_size=6), st.randoms())
def test_row_order_does_not_matter(draws: list[dict[str, object]], rnd: object) -> None:
    """Shuffling the scenarios shuffles the results and changes nothing else."""
    rows = _rows(draws)
    shuffled = list(rows)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    a = _run(rows).set_index("scenario").sort_index()
    b = _run(shuffled).set_index("scenario").sort_index()
    pd.testing.assert_frame_equal(a, b)


@FAST
@given(st.lists(scenario_rows, min_size=1, max_size=8))
def test_no_nan_or_inf_for_valid_input(draws: list[dict[str, object]]) -> None:
    """Every numeric result is finite for valid input, feasible or not."""
    result = _run(_rows(draws))
    numbers = result.select_dtypes(include="number").to_numpy(dtype=float)
    assert np.isfinite(numbers).all()
    texts = result.select_dtypes(exclude="number")
    assert not texts.isna().any().any()


@FAST
@given(scenario_rows, st.floats(1.01, 100))
def test_more_qps_never_fewer_gpus(row: dict[str, object], factor: float) -> None:
    """Raising the peak rate never lowers the GPU count."""
    more = dict(row, peak_qps=float(row["peak_qps"]) * factor)  # type: ignore[arg-type]
    base, bigger = _run(_rows([row, more]))["gpus"]
    assert bigger >= base


@FAST
@given(scenario_rows, st.floats(1.01, 4), st.sampled_from((1, 2, 4, 8)))
def test_more_gpu_memory_never_a_smaller_kv_batch(
    row: dict[str, object], factor: float, tp: int
) -> None:
    """At a fixed tensor parallelism, more memory per GPU never lowers batch_max_kv."""
    fixed = dict(row, tp=tp, model="Llama-3.1-8B")
    checked = validated(_rows([fixed]))
    memory = float(checked.tables.gpus.loc[checked.scenarios["gpu"].iloc[0], "memory_gib"])
    bigger = dict(fixed, gpu_memory_gib=memory * factor)
    base, more = _run(_rows([fixed, bigger]))["batch_max_kv"]
    assert more >= base


@FAST
@given(scenario_rows, st.floats(1, 300), st.floats(0.1, 0.99))
def test_tighter_tpot_target_never_a_larger_batch(
    row: dict[str, object], target: float, tighten: float
) -> None:
    """Lowering the TPOT target never raises the operating batch."""
    loose = dict(row, tpot_slo_ms=target, method="roofline")
    tight = dict(loose, tpot_slo_ms=target * tighten)
    loose_batch, tight_batch = _run(_rows([loose, tight]))["batch"]
    assert tight_batch <= loose_batch


@FAST
@given(scenario_rows)
def test_operating_batch_meets_the_targets_it_names(row: dict[str, object]) -> None:
    """A feasible roofline plan's TPOT and TTFT at the operating batch meet the targets."""
    result = _run(_rows([dict(row, method="roofline")])).iloc[0]
    if result["in_plan_total"] != 1:
        return
    if row["tpot_slo_ms"] is not None:
        assert result["tpot_ms"] <= float(row["tpot_slo_ms"]) * (1 + 1e-9)  # type: ignore[arg-type]
    if row["ttft_slo_ms"] is not None:
        assert result["ttft_ms"] <= float(row["ttft_slo_ms"]) * (1 + 1e-9)  # type: ignore[arg-type]
    assert result["batch"] <= result["batch_max_kv"]


@FAST
@given(scenario_rows, st.sampled_from((1, 2, 4, 8)))
def test_pipeline_stages_add_memory_not_decode_bandwidth(row: dict[str, object], tp: int) -> None:
    """At pp 1 every pipeline term is zero (the measured, calibrated case); two stages of the
    same tp double the GPUs per replica, halve the weights per GPU, give the vLLM budget
    2·b₁ + W (one copy of the weights over twice the memory), and read the weights of a step in
    the same time (each micro-batch reads every stage's share)."""
    models = load_catalogs().models
    heads, kv_heads = models.loc[str(row["model"]), ["attention_heads", "kv_heads"]]
    assume(heads % tp == 0 and (kv_heads % tp == 0 or tp % kv_heads == 0))
    base = dict(row, method="roofline", engine="vllm", tp=tp)
    one, two = _run(_rows([dict(base, pp=1), dict(base, pp=2)])).to_dict("records")
    for name in ("pipeline_fixed_s", "pipeline_s_per_token", "prefill_bubble_fraction"):
        assert one[name] == 0
    assert one["gpus_per_instance"] == tp
    assert one["comm_s_per_token"] == one["allreduce_s_per_token"] + one["unsharded_s_per_token"]
    assert two["gpus_per_instance"] == 2 * tp and two["gpus"] == two["instances"] * 2 * tp
    assert two["weights_gib_per_gpu"] == np.float64(one["weights_gib_per_gpu"]) / 2
    expected = 2 * one["kv_budget_gib"] + one["weights_gib"]
    assert abs(two["kv_budget_gib"] - expected) <= 1e-9 * max(1.0, abs(expected))
    assert np.isclose(two["weights_read_s"], one["weights_read_s"], rtol=1e-12)
    assert 0 < two["prefill_bubble_fraction"] < 1
