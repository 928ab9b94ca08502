"""The published measurements: loading, normalising and selecting the rows the fit uses.

The shipped files hold the usable rows of the project's public reference tables, one row per
published figure with the configuration the engine needs and the figure in one unit per kind
(see :data:`UNITS`): ``data/measurements_public.csv`` those of ``measured_public.csv``
(TensorRT-LLM v0.13 offline throughput, the v0.5/0.6 tables, gpt-fast) and
``data/measurements_public_2.csv`` those of ``measured_public_2.csv`` (TensorRT-LLM v1.0
offline throughput: Blackwell FP4, Hopper FP8, Llama-4 and Qwen3 MoE, pipeline parallel).

Offline throughput of the fitted engine releases (:data:`FITTED_RELEASES`: TensorRT-LLM v0.13 and
v1.0) is fitted, the older release through the engine-release factor (release.py); a release
outside that list is scored but never fitted, to measure how far the calibration carries.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from reportgen import schema
from reportgen.catalog import (
    DATA_DIR,
    CatalogLookupError,
    Catalogs,
    load_catalogs,
    resolve_gpu,
    resolve_model,
)

MEASUREMENTS_FILE = DATA_DIR / "measurements_public.csv"
LATER_RELEASE_FILE = DATA_DIR / "measurements_public_2.csv"
MEASUREMENT_FILES = (MEASUREMENTS_FILE, LATER_RELEASE_FILE)
# The engine releases whose offline throughput the efficiency table is fitted on (the older one
# through the release factor of release.py); offline rows of any other release are scored only
# (the "later release" rows).
FITTED_RELEASES = {"TensorRT-LLM": ("0.13.0", "1.0")}

KINDS = ("offline_throughput", "static_throughput", "ttft_batch1", "decode_batch1",
         "serving_throughput", "serving_ttft", "serving_tpot")
THROUGHPUT_KINDS = ("offline_throughput", "static_throughput")
FIT_KINDS = ("offline_throughput", "ttft_batch1", "decode_batch1")
BATCH1_KINDS = ("ttft_batch1", "decode_batch1")
UNITS = {
    "offline_throughput": "output tokens/s/GPU",
    "static_throughput": "output tokens/s/GPU",
    "ttft_batch1": "ms",
    "decode_batch1": "tokens/s",
    "serving_throughput": "output tokens/s/GPU",
    "serving_ttft": "ms",
    "serving_tpot": "ms",
}
# A load test's run at a measured number of requests in flight (the batch): its throughput, mean
# first-token latency and mean time per output token (calibration/serving.py).
SERVING_KINDS = ("serving_throughput", "serving_ttft", "serving_tpot")
MEASUREMENT_COLUMNS = (
    "row_id", "kind", "source", "framework", "framework_version", "model", "gpu", "tp", "pp",
    "weight_dtype", "kv_dtype", "input_tokens", "output_tokens", "batch", "max_batch",
    "measured", "unit", "note",
)  # fmt: skip

# TensorRT-LLM v0.13 trtllm-bench (perf-overview.md, the throughput run's printout): "Max Runtime
# Batch Size: 4096", "Max Runtime Tokens: 8192", scheduler "Guaranteed No Evict" (each sequence's
# KV cache reserved for input + output, as memory.py reserves it), free-memory fraction 0.90
# (trtllm-bench default, = TRTLLM_FREE_GPU_MEMORY_FRACTION). The non-KV memory of those runs
# (activations for 8,192 tokens per step, the logits buffer of up to 4,096 sequences, the CUDA
# context) is what the shipped ACTIVATION_RESERVE_GIB was fitted on (units.py).
TRTLLM_BENCH_MAX_BATCH = 4096
# gpt-fast generate.py default --max_new_tokens (the README's batch-1 figures).
GPT_FAST_OUTPUT_TOKENS = 200
# gpt-fast's weight-only int8/int4 rows are scored but not fitted: the engine has no model of
# the dequantization cost (it treats them as bf16 compute with fewer weight bytes).
WEIGHT_ONLY = ("int8", "int4")

_VERBOSE_SOURCE = re.compile(
    r', version stating "All data in the table below was generated using version ([0-9.]+)" '
    r"\(index file id [0-9]+; commit not resolved by index\)"
)


def _dtype(label: object) -> str:
    text = str(label).lower()
    for dtype in ("int4", "int8", "fp8", "fp4", "bf16"):
        if dtype in text:
            return dtype
    return "fp16"


def _number(value: object) -> float:
    text = str(value).split("|")[0].replace(",", "").strip()
    try:
        return float(text.split()[0]) if text else math.nan
    except ValueError:
        return math.nan


def _modelopt_checkpoint(ref: Mapping[Hashable, Any]) -> bool:
    """A TensorRT-LLM v1.0-or-later row: ModelOpt FP8/FP4 checkpoints (reference README)."""
    return str(ref["source_family"]).startswith("TensorRT-LLM perf-overview v1")


def _kv_dtype(weight: str, label: Any, modelopt: bool = False) -> str:
    kv_label = "" if pd.isna(label) else str(label)
    if weight in WEIGHT_ONLY:
        return "bf16"  # gpt-fast quantizes the weights only
    if modelopt and weight in ("fp8", "fp4") and not kv_label:
        return "fp8"  # ModelOpt FP8/NVFP4 checkpoints quantize the KV cache to FP8 too
    return "fp8" if "fp8" in kv_label.lower() else "fp16"


def _kind_fields(ref: Mapping[Hashable, Any], kv: str) -> dict[str, object] | str:
    """The kind, figure and kind-specific fields of a reference row, or why it is left out."""
    family = str(ref["source_family"])
    scenario = str(ref["scenario"])
    if family.startswith("TensorRT-LLM perf-overview") and scenario.startswith("offline"):
        if _modelopt_checkpoint(ref):
            note = ("whole-group throughput / GPUs; ModelOpt checkpoint: fp8 KV cache assumed "
                    "(not stated); max batch 4096 as v0.13 (the release's tuned settings are not "
                    "tabulated)" if kv == "fp8" else "whole-group throughput / GPUs")
        else:
            note = "fp8 KV cache per the doc" if kv == "fp8" else "KV precision not stated: fp16"
        return dict(
            kind="offline_throughput", measured=_number(ref["derived_output_tok_s_per_gpu"]),
            max_batch=float(TRTLLM_BENCH_MAX_BATCH), note=note,
        )
    if family.startswith("TensorRT-LLM performance.md") and "first-token" in scenario:
        return dict(kind="ttft_batch1", measured=_number(ref["ttft_mean_ms"]), batch=1.0,
                    output_tokens=1.0, note="TTFT measured with a single output token")
    if family.startswith("TensorRT-LLM performance.md"):
        per_gpu = _number(ref["output_tok_s_per_gpu"])
        if math.isnan(per_gpu):
            return "static batching at TP > 1: per-GPU vs total throughput ambiguous in the source"
        return dict(kind="static_throughput", measured=per_gpu,
                    batch=_number(ref["batch_size_or_concurrency"]))
    if family.startswith("gpt-fast"):
        return dict(
            kind="decode_batch1", measured=_number(ref["value_as_published"]), batch=1.0,
            output_tokens=float(GPT_FAST_OUTPUT_TOKENS),
            note=f"A100 power-limited to 330 W; output length = gpt-fast default "
            f"{GPT_FAST_OUTPUT_TOKENS}",
        )
    return f"source family {family!r} is not modelled"


def _stages(value: object) -> float:
    """Pipeline stages of a reference row (blank = 1: the source states none)."""
    stages = _number(value)
    return 1.0 if math.isnan(stages) else stages


def _base_record(ref: Mapping[Hashable, Any], model: str, gpu: str, weight: str, kv: str
                 ) -> dict[str, object]:
    """The fields every kind shares."""
    return {
        "row_id": int(ref["row_id"]),
        "source": _VERBOSE_SOURCE.sub(r" (tables of version \1)", str(ref["source"])),
        "framework": str(ref["framework"]),
        "framework_version": "" if pd.isna(ref["framework_version"])
        else str(ref["framework_version"]),
        "model": model, "gpu": gpu, "tp": _number(ref["tensor_parallel"]),
        "pp": _stages(ref.get("pipeline_parallel")),
        "weight_dtype": weight, "kv_dtype": kv,
        "input_tokens": _number(ref["input_len_tokens"]),
        "output_tokens": _number(ref["output_len_tokens"]),
        "batch": math.nan, "max_batch": math.nan, "note": "",
    }  # fmt: skip


def _normalise_row(ref: Mapping[Hashable, Any], catalogs: Catalogs) -> dict[str, object] | str:
    try:
        gpu = resolve_gpu(catalogs, str(ref["gpu"]))
    except CatalogLookupError:
        return f"GPU {ref['gpu']!r} is not in the catalog"
    try:
        model = resolve_model(catalogs, str(ref["model"]))
    except CatalogLookupError:
        return f"model {ref['model']!r} is not in the catalog"
    weight = _dtype(ref["weight_precision"])
    kv = _kv_dtype(weight, ref["kv_cache_precision"], _modelopt_checkpoint(ref))
    fields = _kind_fields(ref, kv)
    if isinstance(fields, str):
        return fields
    record = _base_record(ref, model, gpu, weight, kv)
    stages = f"{_stages(ref.get('pipeline_parallel')):g}"
    if stages not in schema.BY_NAME["pp"].choices:
        return (f"{stages} pipeline stages: the engine plans "
                f"{', '.join(schema.BY_NAME['pp'].choices)}")
    record.update(fields)
    record["unit"] = UNITS[str(record["kind"])]
    return record


def normalise_reference(reference: pd.DataFrame, catalogs: Catalogs | None = None
                        ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The usable rows of the reference table ``measured_public.csv``, normalised to
    :data:`MEASUREMENT_COLUMNS`, and the rows left out with the reason."""
    catalogs = catalogs or load_catalogs()
    kept: list[dict[str, object]] = []
    left_out: list[dict[str, object]] = []
    for ref in reference.to_dict(orient="records"):
        record = _normalise_row(ref, catalogs)
        if isinstance(record, str):
            left_out.append({"row_id": int(ref["row_id"]), "reason": record})
        else:
            kept.append(record)
    return (pd.DataFrame(kept, columns=list(MEASUREMENT_COLUMNS)),
            pd.DataFrame(left_out, columns=["row_id", "reason"]))


def _load_one(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(path, dtype={"framework_version": str})
    if "source_family" in frame.columns:
        return normalise_reference(frame)[0]
    if "pp" not in frame.columns:  # files written before pipeline stages were recorded
        frame["pp"] = 1.0
    missing = [c for c in MEASUREMENT_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path.name}: missing columns {missing}")
    for column in ("note", "framework_version"):
        frame[column] = frame[column].fillna("")
    frame["pp"] = frame["pp"].fillna(1.0)
    return frame[list(MEASUREMENT_COLUMNS)].reset_index(drop=True)


def load_measurements(paths: Path | Sequence[Path] = MEASUREMENT_FILES) -> pd.DataFrame:
    """Normalised measurements: the shipped files by default; a file in the reference table's
    format (``measured_public.csv``) is normalised on the fly. Row ids must be unique across
    the files."""
    files = [paths] if isinstance(paths, Path) else list(paths)
    frame = pd.concat([_load_one(p) for p in files], ignore_index=True)
    repeated = frame["row_id"][frame["row_id"].duplicated()].tolist()
    if repeated:
        raise ValueError(f"row_id repeated across {', '.join(p.name for p in files)}: "
                         f"{repeated[:5]}")
    return frame


def write_measurements(measurements: pd.DataFrame, path: Path = MEASUREMENTS_FILE) -> None:
    """Write normalised measurements as the shipped CSV."""
    measurements[list(MEASUREMENT_COLUMNS)].to_csv(
        path, index=False, float_format="%.10g", lineterminator="\n"
    )


def later_release(measurements: pd.DataFrame) -> npt.NDArray[np.bool_]:
    """Offline-throughput rows of an engine release the efficiency table is not fitted on."""
    fitted = [
        (measurements["framework"].str.startswith(framework)
         & measurements["framework_version"].isin(versions))
        for framework, versions in FITTED_RELEASES.items()
    ]
    in_fitted = np.logical_or.reduce([f.to_numpy(dtype=bool) for f in fitted])
    offline = measurements["kind"].to_numpy() == "offline_throughput"
    return np.asarray(offline & ~in_fitted, dtype=bool)


def fit_rows(measurements: pd.DataFrame) -> npt.NDArray[np.bool_]:
    """The rows the fit uses: offline throughput of the fitted release and the batch-1 rows,
    without weight-only quantized ones."""
    kind = measurements["kind"].isin(FIT_KINDS).to_numpy(dtype=bool)
    weight_only = measurements["weight_dtype"].isin(WEIGHT_ONLY).to_numpy(dtype=bool)
    return np.asarray(kind & ~weight_only & ~later_release(measurements), dtype=bool)
