"""The TensorRT-LLM v1.0 offline-throughput rows (measured_public_2.csv): normalised per GPU and
fitted with the v0.13 rows, which enter the fit through the engine-release factor."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reportgen import calibration as cal
from reportgen.efficiency import load_efficiency


@pytest.fixture(scope="module")
def later() -> pd.DataFrame:
    return cal.load_measurements(cal.LATER_RELEASE_FILE)


def test_later_release_file_holds_the_v1_offline_rows(later: pd.DataFrame) -> None:
    """328 v1.0 offline rows in the reference table; the 16 at 8 pipeline stages are left out
    (the engine plans pp 1, 2 or 4): 312 on B200, GB200, RTX PRO 6000 (FP4) and H100, H200
    (FP8)."""
    assert len(later) == 312 and later["row_id"].is_unique
    assert set(later["kind"]) == {"offline_throughput"}
    assert set(later["framework_version"]) == {"1.0"}
    assert later.groupby("gpu").size().to_dict() == {
        "B200": 58, "GB200": 40, "H100-SXM": 52, "H200-SXM": 60, "RTX-PRO-6000-Server": 102,
    }
    assert set(later["pp"]) == {1.0, 2.0, 4.0}
    assert later["source"].str.contains("perf-overview.md \\(v1.0 doc\\)").all()


def _reference_table() -> pd.DataFrame:
    root = Path(__file__).resolve().parents[2]
    for base in (root, root.parent, root.parent.parent):
        candidate = base / "shared" / "reference" / "measured_public_2.csv"
        if candidate.is_file():
            return pd.read_csv(candidate, dtype={"framework_version": str})
    pytest.skip("shared/reference is not available next to the repository")


def test_whole_group_throughput_is_divided_per_gpu(later: pd.DataFrame) -> None:
    """perf-overview v1.0 reports output tokens/s of the whole TP x PP group: each shipped
    figure is the published total divided by the group's GPUs."""
    reference = _reference_table().set_index("row_id")
    published = reference.loc[later["row_id"]]
    gpus = (later["tp"] * later["pp"]).to_numpy()
    assert (published["num_gpus"].to_numpy() == gpus).all()
    per_gpu = published["output_tok_s_total"].to_numpy() / gpus
    # the reference's derived per-GPU column is rounded to 0.01 tok/s
    assert later["measured"].to_numpy() == pytest.approx(per_gpu, abs=0.006)
    assert (later["unit"] == "output tokens/s/GPU").all()


def test_both_releases_are_fitted() -> None:
    """The shipped set holds both releases; the offline rows of both (and the batch-1 rows) are
    fit rows, so no offline row is left as a later release."""
    both = cal.load_measurements()
    later = cal.later_release(both)
    fitted = cal.fit_rows(both)
    assert later.sum() == 0
    for version in ("0.13.0", "1.0"):
        assert fitted[(both["framework_version"] == version).to_numpy()].all()


def test_fp4_and_fp8_rows_keep_their_precision(later: pd.DataFrame) -> None:
    """FP4 Blackwell rows are planned as fp4 weights, FP8 Hopper rows as fp8; ModelOpt
    checkpoints' KV cache as fp8."""
    blackwell = later["gpu"].isin(["B200", "GB200", "RTX-PRO-6000-Server"])
    assert set(later.loc[blackwell, "weight_dtype"]) == {"fp4"}
    assert set(later.loc[~blackwell, "weight_dtype"]) == {"fp8"}
    assert set(later["kv_dtype"]) == {"fp8"}


def test_every_later_row_is_predicted() -> None:
    """Each v1.0 row validates as a scenario (TP, PP, Llama-4, Blackwell) and gets a finite
    prediction with the shipped efficiencies."""
    bench = cal.build_bench(cal.load_measurements(cal.LATER_RELEASE_FILE),
                            efficiency=load_efficiency())
    rows = cal.scored_rows(bench, cal.predict(bench))
    assert rows["predicted"].notna().all() and (rows["predicted"] > 0).all()
    assert rows["fitted"].all()


def test_signed_error_is_positive_when_the_engine_over_predicts() -> None:
    """Signed error = predicted ÷ measured − 1: 120 predicted for 100 measured is +20 %, 80 is
    −20 %; their median is 0 and the MdAPE 20 %."""
    predicted = np.array([120.0, 80.0, 100.0])
    measured = np.array([100.0, 100.0, 100.0])
    assert cal.signed_pct(predicted, measured) == pytest.approx([20.0, -20.0, 0.0])
    s = cal.score(predicted, measured)
    assert s.median_signed_pct == pytest.approx(0.0)
    assert s.mean_signed_pct == pytest.approx(0.0)
    assert s.mdape_pct == pytest.approx(20.0)
    over = cal.score(np.array([130.0, 125.0]), np.array([100.0, 100.0]))
    assert over.median_signed_pct == pytest.approx(27.5) and over.median_ratio < 1


def test_scored_rows_carry_the_wave2_grouping_columns() -> None:
    """Each scored row names its GPU family, dense vs MoE, model family (architecture class),
    engine and engine release, so the benchmark can group by them."""
    bench = cal.build_bench(cal.load_measurements(), efficiency=load_efficiency())
    rows = cal.scored_rows(bench, cal.predict(bench))
    assert set(rows["gpu_family"]) == {"hopper", "ampere", "ada", "blackwell", "blackwell-rtx"}
    assert set(rows.loc[rows["model"] == "Qwen3-30B-A3B", "moe"]) == {"MoE"}
    assert set(rows.loc[rows["model"] == "Llama-3.3-70B", "moe"]) == {"dense"}
    assert set(rows.loc[rows["model"].str.startswith("Llama-4"), "model_family"]) == {
        "Llama4ForConditionalGeneration"}
    offline = rows["kind"] == "offline_throughput"
    assert set(rows.loc[offline, "release"]) == {"TensorRT-LLM 0.13.0", "TensorRT-LLM 1.0"}
    assert set(rows.loc[offline, "engine"]) == {"tensorrt-llm"}


def test_release_factor_is_the_geometric_mean_of_same_configuration_pairs() -> None:
    """Pairs join a v0.13 and a v1.0 offline row of one configuration (GPU, architecture,
    precision, TP, PP, lengths). TensorRT-LLM perf-overview v0.13 and v1.0, Llama-3.1-8B FP8 on
    H100 at 128/2048 tokens: 19,221.02 then 22,714 tok/s (v0.13 also measured Llama-3-8B there,
    which has the same architecture, so the older side is their geometric mean)."""
    bench = cal.build_bench(cal.load_measurements(), efficiency=load_efficiency())
    pairs = cal.release_pairs(bench)
    factors = cal.fit_release_factors(bench)
    assert set(factors) == {"0.13.0"}
    assert factors["0.13.0"].n_pairs == len(pairs) == 45
    assert factors["0.13.0"].factor == pytest.approx(np.exp(np.log(pairs["ratio"]).mean()))
    assert factors["0.13.0"].factor == pytest.approx(1.153, abs=0.001)
    assert set(pairs["gpu"]) == {"H100-SXM", "H200-SXM"}
    one = pairs[(pairs["gpu"] == "H100-SXM") & (pairs["input_tokens"] == 128)
                & (pairs["output_tokens"] == 2048) & (pairs["models_reference"] == "Llama-3.1-8B")]
    assert len(one) == 1
    assert one["measured_reference"].iloc[0] == pytest.approx(22714)
    assert one["models_older"].iloc[0] == "Llama-3-8B+Llama-3.1-8B"
    reference_ids = {i for ids in pairs["row_ids_reference"] for i in ids}
    later = cal.load_measurements(cal.LATER_RELEASE_FILE).set_index("row_id")
    assert set(later.loc[sorted(reference_ids), "model"]) <= {
        "Llama-3.1-8B", "Llama-3.3-70B", "Llama-3.1-405B"}


def test_release_scale_applies_the_factor_to_older_offline_rows_only() -> None:
    """The fit predicts an older release's offline row as the engine's figure ÷ its factor in
    the efficiency groups measured on both releases (Hopper FP8 here); the other groups' v0.13
    rows (A100, L40S, H100 FP16), the reference release's rows and the batch-1 and static rows
    keep theirs."""
    bench = cal.build_bench(cal.load_measurements(), efficiency=load_efficiency(),
                            release_factors=False)
    factor = cal.ReleaseFactor("0.13.0", 1.25, 3, 1.0, 1.5)
    scale = cal.release_scale(bench, {"0.13.0": factor})
    m = bench.measurements
    keys = cal.efficiency_keys(bench)
    older = ((m["framework_version"] == "0.13.0") & (m["kind"] == "offline_throughput")).to_numpy()
    assert set(keys[older & (scale < 1)]) == {"hopper-fp8"}
    assert scale[older & (keys == "hopper-fp8")] == pytest.approx(0.8)
    assert (scale[~(older & (keys == "hopper-fp8"))] == 1.0).all()
    plain = cal.predict(bench)
    scaled = cal.predict(cal.with_release_scale(bench, factors={"0.13.0": factor}))
    assert scaled == pytest.approx(plain * scale)
