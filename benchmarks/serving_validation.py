"""The simulator against the TensorRT-LLM serving table: mean TTFT and mean ITL by request rate.

The measurements (``reportgen/data/serving_measurements_public.csv``, copied with their source
from TensorRT-LLM's perf-overview, v0.14 data: Llama-3.1 8B/70B in BF16 on H100/H200, fixed
input and output lengths, 500 requests per rate, 2–32 req/s and saturation) are replayed: one
instance of the measured tensor parallelism with the TensorRT-LLM engine's KV budget, 500
requests of the listed lengths at the listed rate (Poisson arrivals; "inf": all at once), each
step timed by the engine's calibrated registry quantities. Printed: each row, then the median
absolute error of mean TTFT and mean ITL for each request rate. Run:
`python benchmarks/serving_validation.py`.
"""

from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportgen.pipeline import load, make_plan  # noqa: E402
from reportgen.simulate.metrics import tpot_ms_of  # noqa: E402
from reportgen.simulate.plan_latency import row_values  # noqa: E402
from reportgen.simulate.workload import workload_for  # noqa: E402

MEASUREMENTS = ROOT / "reportgen" / "data" / "serving_measurements_public.csv"
REQUESTS = 500  # as measured
ALL_AT_ONCE_RPS = 1e9  # the table's "inf" rate


def _scenarios(table: pd.DataFrame) -> pd.DataFrame:
    shapes = table.drop_duplicates(["model", "gpu", "tensor_parallel", "input_len_tokens",
                                    "output_len_tokens"]).reset_index(drop=True)
    return pd.DataFrame({
        "scenario": [f"m{i}" for i in range(len(shapes))],
        "model": shapes["model"], "gpu": shapes["gpu"].str.extract(r"^(H\d00 SXM \d+GB)")[0],
        "peak_qps": 1, "avg_prompt_tokens": shapes["input_len_tokens"],
        "avg_output_tokens": shapes["output_len_tokens"].astype(int),
        "tp": shapes["tensor_parallel"], "pp": 1, "weight_dtype": "bf16", "kv_dtype": "bf16",
        "engine": "tensorrt-llm",
        "key": list(zip(shapes["model"], shapes["gpu"], shapes["tensor_parallel"],
                        shapes["input_len_tokens"], shapes["output_len_tokens"],
                        strict=True)),
    })


def main() -> None:
    table = pd.read_csv(MEASUREMENTS)
    scenarios = _scenarios(table)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "serving.csv"
        scenarios.drop(columns="key").to_csv(path, index=False)
        plan = make_plan(load(path), path.name)
    by_key = {key: i for i, key in enumerate(scenarios["key"])}
    rows = []
    for _, m in table.iterrows():
        i = by_key[(m["model"], m["gpu"], m["tensor_parallel"], m["input_len_tokens"],
                    m["output_len_tokens"])]
        values = row_values(plan.scenarios, plan.results, i)
        model = plan.tables.models.loc[values["model"]].to_dict()
        rate = float(m["request_rate_qps"])
        workload = workload_for(values, model, requests=REQUESTS)
        served = workload.at_rate(ALL_AT_ONCE_RPS if math.isinf(rate) else rate)
        ttft = float(np.nanmean(1000 * (served.first_token_s - served.arrival_s)))
        itl = float(np.nanmean(tpot_ms_of(served)))
        rows.append({"model": m["model"], "gpu": m["gpu"][:4], "tp": m["tensor_parallel"],
                     "isl": m["input_len_tokens"], "osl": int(m["output_len_tokens"]),
                     "rate": m["request_rate_qps"], "ttft_measured_ms": m["ttft_mean_ms"],
                     "ttft_simulated_ms": ttft, "itl_measured_ms": m["itl_mean_ms"],
                     "itl_simulated_ms": itl})
    out = pd.DataFrame(rows)
    out["ttft_error"] = out["ttft_simulated_ms"] / out["ttft_measured_ms"] - 1
    out["itl_error"] = out["itl_simulated_ms"] / out["itl_measured_ms"] - 1
    pd.set_option("display.width", 200)
    print(out.to_string(index=False, float_format=lambda v: f"{v:,.2f}"))
    summary = out.groupby("rate", sort=False).agg(
        rows=("rate", "size"),
        ttft_median_abs_error=("ttft_error", lambda e: float(np.median(np.abs(e)))),
        itl_median_abs_error=("itl_error", lambda e: float(np.median(np.abs(e)))))
    print()
    print(summary.to_string(float_format=lambda v: f"{v:.1%}"))
    print(f"\nall rows: mean TTFT median |error| {np.median(np.abs(out['ttft_error'])):.1%}, "
          f"mean ITL median |error| {np.median(np.abs(out['itl_error'])):.1%}")


if __name__ == "__main__":
    main()
