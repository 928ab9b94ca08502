"""vLLM metrics from a Prometheus query_range export (fixtures/vllm-query-range.json).

The fixture is the API's real response shape (status, data.resultType "matrix", result[] of
metric labels and [unix_seconds, "value"] pairs) for one day, 2026-01-01, step 3,600 s, two
vLLM servers of model_name "chat". Server 2 restarts between 10:00 and 11:00: every counter of
it drops, its first sample after the restart shows what it counted since. The time per output
token histogram has its pre-0.11 name, vllm:time_per_output_token_seconds (an inter-token
latency). Expected figures below are worked by hand from the series' first and last values.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from reportgen.errors import ActualsError
from reportgen.review.actuals.prometheus import increments, quantile, read_prometheus

FIXTURE = Path(__file__).parent / "fixtures" / "vllm-query-range.json"


def _read(tmp_path: Path, body: object, name: str = "export.json") -> object:
    path = tmp_path / name
    path.write_text(json.dumps(body))
    return read_prometheus(path)


def test_counters_are_differenced_per_series_across_the_restart() -> None:
    """Requests: server 1 stop 1,000 → 3,400 (+2,400) and length 0 → 240 (+240); server 2
    500 → 1,000 in ten hours (+500), then 30 counted after the restart, then +650 = 1,180.
    3,820 in all (summing the servers before differencing would take the drop of the sum for
    a restart of every server and miscount)."""
    row = read_prometheus(FIXTURE).periods.iloc[0]
    assert row["workload"] == "chat"
    assert row["requests"] == pytest.approx(3_820)
    assert row["prompt_tokens"] == pytest.approx(2_400_000 + 500_000 + 30_000 + 650_000)
    assert row["output_tokens"] == pytest.approx(480_000 + 100_000 + 6_000 + 130_000)


def test_histograms_give_means_and_interpolated_percentiles() -> None:
    """TTFT: 1,014 s over 3,820 requests; cumulative buckets 800 / 2,500 / 3,400 / 3,750 /
    3,820 at 0.1 / 0.25 / 0.5 / 1 / +Inf s. p50 (rank 1,910) in (0.1, 0.25]: 0.1 + 0.15 ×
    1,110 / 1,700; p99 (rank 3,781.8) falls in +Inf: the highest finite bound, 1 s. TPOT (from
    the inter-token histogram): 23,713.6 s over 712,180 gaps; p50 (rank 356,090) in
    (0.025, 0.05] with 120,000 below and 530,000 inside; p99 in (0.075, 0.1]."""
    row = read_prometheus(FIXTURE).periods.iloc[0]
    assert row["ttft_mean_ms"] == pytest.approx(1000 * 1_014 / 3_820, rel=1e-9)
    assert row["ttft_p50_ms"] == pytest.approx(1000 * (0.1 + 0.15 * 1_110 / 1_700), rel=1e-9)
    assert row["ttft_p99_ms"] == pytest.approx(1000.0)
    assert row["tpot_mean_ms"] == pytest.approx(1000 * 23_713.6 / 712_180, rel=1e-6)
    assert row["tpot_p50_ms"] == pytest.approx(1000 * (0.025 + 0.025 * 236_090 / 530_000),
                                               rel=1e-6)
    assert row["tpot_p99_ms"] == pytest.approx(1000 * (0.075 + 0.025 * 5_058.2 / 11_000),
                                               rel=1e-6)


def test_gauges_coverage_and_notes() -> None:
    """KV usage 0.4 and 0.2 on the two servers: mean 0.3, p95 0.4. Running 8 and 4: an output
    token saw (25·64 + 25·16) / (25·8 + 25·4) = 6.67 sequences on average. The hourly step is
    too coarse for a 1-minute peak, so none is reported, and the notes say why."""
    source = read_prometheus(FIXTURE)
    row = source.periods.iloc[0]
    assert row["kv_cache_usage_mean"] == pytest.approx(0.3)
    assert row["kv_cache_usage_p95"] == pytest.approx(0.4)
    assert row["running_mean"] == pytest.approx(2_000 / 300)
    assert np.isnan(row["peak_qps"])
    assert source.coverage["chat"] == (row["start"], row["end"])
    assert str(row["start"]) == "2026-01-01" and str(row["end"]) == "2026-01-02"
    notes = " ".join(source.notes)
    assert "1 server restart(s)" in notes
    assert "vllm:time_per_output_token_seconds" in notes and "before vLLM 0.11" in notes
    assert "No peak request rate" in notes
    assert "vllm:cache_config_info" in notes  # ignored, and said so


def test_a_gzipped_export_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "export.json.gz"
    path.write_bytes(gzip.compress(FIXTURE.read_bytes()))
    assert read_prometheus(path).periods.iloc[0]["requests"] == pytest.approx(3_820)


def test_reset_arithmetic() -> None:
    """A drop is a restart: the value after it is what was counted since (Prometheus's rule)."""
    inc, resets = increments(np.array([10.0, 15.0, 3.0, 7.0]))
    assert inc.tolist() == [5.0, 3.0, 4.0] and resets == 1
    bounds = np.array([1.0, 2.0, np.inf])
    assert quantile(0.5, bounds, np.array([0.0, 10.0, 10.0])) == pytest.approx(1.5)
    assert np.isnan(quantile(0.5, bounds, np.zeros(3)))


@pytest.mark.parametrize(("change", "message"), [
    (lambda b: b["data"].update(resultType="vector"), "a range query"),
    (lambda b: b.update(status="error", errorType="bad_data", error="parse error"),
     "parse error"),
    (lambda b: b["data"]["result"][0]["metric"].pop("__name__"), "without __name__"),
    (lambda b: [s["metric"].pop("model_name") for s in b["data"]["result"]],
     "neither a workload nor a model_name label"),
])
def test_exports_that_cannot_be_read_are_refused(tmp_path: Path, change: object,
                                                  message: str) -> None:
    body = json.loads(FIXTURE.read_text())
    change(body)  # type: ignore[operator]
    with pytest.raises(ActualsError, match=message):
        _read(tmp_path, body)


def test_a_day_without_samples_is_a_missing_period(tmp_path: Path) -> None:
    """Shift the last sample of every series by 30 hours: a 30-hour hole."""
    body = json.loads(FIXTURE.read_text())
    for series in body["data"]["result"]:
        series["values"][-1][0] += 30 * 3600
    with pytest.raises(ActualsError, match="no samples from 2026-01-01 23:00 UTC to "
                                           "2026-01-03 06:00 UTC"):
        _read(tmp_path, body)


def test_the_workload_label_wins_over_model_name(tmp_path: Path) -> None:
    body = json.loads(FIXTURE.read_text())
    for series in body["data"]["result"]:
        series["metric"]["workload"] = "chat-assistant"
    source = _read(tmp_path, copy.deepcopy(body))
    assert list(source.coverage) == ["chat-assistant"]
