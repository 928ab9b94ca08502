"""Physics ablations: one physical effect switched off or swapped at a time, to measure how much
each moves the error against the measurements."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reportgen.calibration.fit import moe_rows
from reportgen.calibration.release import REFERENCE_RELEASE
from reportgen.calibration.scenarios import Bench, Constants, FloatArray, Pin


@dataclass(frozen=True)
class Ablation:
    """One physical effect switched off or swapped, to measure how much it moves the error."""

    name: str
    description: str
    bench: Callable[[Bench], Bench] = lambda b: b
    constants: Mapping[str, float | str] = dataclasses.field(default_factory=dict)
    pin: Pin | None = None
    refit_moe: bool = True  # False: a refit keeps the ablation's MoE GEMM efficiencies


def _links(latency_us: float | None = None, gbps_factor: float = 1.0,
           only: Sequence[str] = ()) -> Callable[[Bench], Bench]:
    """A bench whose GPUs (``only`` these, if given) have another all-reduce latency and/or
    link bandwidth."""

    def apply(bench: Bench) -> Bench:
        gpus = bench.tables.gpus.copy()
        rows = gpus.index if not only else gpus.index.intersection(list(only))
        if latency_us is not None:
            gpus.loc[rows, "link_latency_us"] = latency_us
        gpus.loc[rows, "link_gbps"] = gpus.loc[rows, "link_gbps"] * gbps_factor
        return bench.with_gpus(gpus)

    return apply


def _no_attention(results: pd.DataFrame) -> dict[str, Any]:
    zero = np.zeros(len(results))
    return {"attention_flops_per_token_pair": zero, "decode_attention_flops_per_token_pair": zero,
            "decode_attention_s_per_seq": zero}


def _single_roofline(results: pd.DataFrame) -> dict[str, Any]:
    r = results
    ctx = r["decode_attended_tokens"]
    compute = (2 * r["gemm_params_b"] * 1e9
               + r["decode_attention_flops_per_token_pair"] * ctx) / r["instance_flops_decode"]
    reads = ctx * r["kv_bytes_per_token"] * r["kv_copies"] / r["instance_bandwidth"]
    return {"decode_compute_s_per_seq": compute.to_numpy(dtype=float),
            "decode_kv_read_s_per_seq": reads.to_numpy(dtype=float)}


def _old_lone_prefill_ms(r: pd.DataFrame) -> FloatArray:
    def col(name: str) -> FloatArray:
        return r[name].to_numpy(dtype=np.float64)

    roofline = np.maximum(col("prefill_flops") / col("instance_flops_prefill"),
                          col("weights_read_s"))
    comm = col("allreduce_fixed_s") + col("allreduce_s_per_token") * col("prefill_tokens")
    return np.asarray(1000 * (roofline + comm), dtype=np.float64)


def _prefill_pays_weight_read(results: pd.DataFrame) -> dict[str, Any]:
    return {"prefill_in_batch_ms": _old_lone_prefill_ms(results)}


def _lone_prefill_max(results: pd.DataFrame) -> dict[str, Any]:
    return {"prefill_ms": _old_lone_prefill_ms(results)}


def _moe_reads_all_experts(results: pd.DataFrame) -> dict[str, Any]:
    return {"weights_read_gib_per_step": results["weights_gib"].to_numpy(dtype=float)}


def _one_kv_copy(results: pd.DataFrame) -> dict[str, Any]:
    return {"kv_copies": np.ones(len(results))}


def _no_release_factor(bench: Bench) -> Bench:
    from reportgen.calibration.release import with_release_scale

    return with_release_scale(bench, factors={})


def _moe_gemm(value: float) -> Callable[[Bench], Bench]:
    """A bench whose every efficiency row has this MoE GEMM efficiency."""

    def apply(bench: Bench) -> Bench:
        return bench.with_efficiency(bench.tables.efficiency.assign(moe_gemm_efficiency=value))

    return apply


def _rtx_in_blackwell(bench: Bench) -> Bench:
    gpus = bench.tables.gpus.copy()
    gpus.loc[gpus["family"] == "blackwell-rtx", "family"] = "blackwell"
    return bench.with_gpus(gpus)


def _full_attention(bench: Bench) -> Bench:
    models = bench.tables.models.assign(local_attention_window=0.0, local_attention_layers=0.0)
    return bench.with_models(models)


def _moe_runs_attention_dp(bench: Bench) -> Bench:
    """The reference release's (TensorRT-LLM v1.0) MoE rows at tp > 1 run attention
    data-parallel with expert parallelism, as that document's command for MoE models sets
    (``--ep`` and ``enable_attention_dp: true``)."""
    m = bench.measurements
    framework, version = REFERENCE_RELEASE
    reference = (m["framework"].str.startswith(framework)
                 & (m["framework_version"] == version)).to_numpy(dtype=bool)
    return bench.with_attention_dp(moe_rows(bench) & reference
                                   & (m["tp"].to_numpy(dtype=float) > 1))


NVLINK_GPUS = ("H100-SXM", "H200-SXM", "GH200", "A100-SXM-80GB")
ABLATIONS: tuple[Ablation, ...] = (
    Ablation("all-reduce latency 0", "link_latency_us 0 instead of 25", _links(latency_us=0.0)),
    Ablation("all-reduce latency 8 us", "the previous prior (NVLink)",
             _links(latency_us=8.0, only=NVLINK_GPUS)),
    Ablation("NVLink all-reduce at datasheet rate", "link_gbps × 2 on NVLink GPUs (450/300 GB/s)",
             _links(gbps_factor=2.0, only=NVLINK_GPUS)),
    Ablation("L40S all-reduce at PCIe datasheet rate", "L40S link_gbps 32 instead of 16",
             _links(gbps_factor=2.0, only=("L40S",))),
    Ablation("no tensor-parallel all-reduce", "latency 0, unlimited link bandwidth",
             _links(latency_us=0.0, gbps_factor=1e9)),
    Ablation("KV budget: vLLM definition", "engine = vllm for every row",
             lambda b: b.with_engine("vllm")),
    Ablation("KV budget: SGLang definition", "engine = sglang for every row",
             lambda b: b.with_engine("sglang")),
    Ablation("TRT-LLM free fraction 0.95", "TRTLLM_FREE_GPU_MEMORY_FRACTION 0.95 (0.90)",
             constants={"TRTLLM_FREE_GPU_MEMORY_FRACTION": 0.95}),
    Ablation("activation reserve 2 GiB (old default)",
             "ACTIVATION_RESERVE_GIB 2 (the default before it was fitted) not the shipped 4",
             constants={"ACTIVATION_RESERVE_GIB": 2.0}),
    Ablation("activation reserve 6 GiB", "ACTIVATION_RESERVE_GIB 6 not the shipped 4",
             constants={"ACTIVATION_RESERVE_GIB": 6.0}),
    Ablation("no unsharded norm traffic", "UNSHARDED_ACTIVATION_PASSES 0 (shipped 4): the "
             "norms and residual adds split over tp like the GEMMs",
             constants={"UNSHARDED_ACTIVATION_PASSES": 0.0}),
    Ablation("no local attention", "every layer attends to and keeps the whole context "
             "(Llama 4's 8,192-token chunks in 36 of 48 layers ignored)", _full_attention),
    Ablation("no attention terms", "attention FLOPs and KV-cache reads set to 0",
             pin=_no_attention),
    Ablation("single roofline per step", "max(all FLOPs, all bytes), not GEMMs + attention",
             pin=_single_roofline),
    Ablation("prefill in batch pays weight read", "each prefill in the cycle costs "
             "max(FLOPs, weight read) + all-reduce, as before", pin=_prefill_pays_weight_read),
    Ablation("lone prefill: max of roofs", "first-token prefill = max(FLOPs, weight read) + "
             "all-reduce, as before (no sum, no overhead)", pin=_lone_prefill_max),
    Ablation("MoE reads all experts", "every decode step reads all expert weights",
             pin=_moe_reads_all_experts),
    Ablation("no KV copies across TP", "kv_copies = 1: a KV head on fewer GPUs than tp (GQA "
             "with kv_heads < tp) is not replicated", pin=_one_kv_copy),
    Ablation("v1.0 MoE runs attention data-parallel", "TensorRT-LLM v1.0's MoE rows at "
             "tp > 1 read as attention_dp = 1 (the document's MoE command sets --ep and "
             "enable_attention_dp), not as tensor-parallel attention", _moe_runs_attention_dp),
    Ablation("MoE GEMM at dense speed", "moe_gemm_efficiency 1.0 on every row (no MoE term)",
             _moe_gemm(1.0), refit_moe=False),
    Ablation("one MoE GEMM efficiency (0.8)", "moe_gemm_efficiency 0.8 on every row, not "
             "fitted per GPU family and precision", _moe_gemm(0.8), refit_moe=False),
    Ablation("no engine-release factor", "TensorRT-LLM v0.13 rows predicted as v1.0 (factor 1)",
             _no_release_factor),
    Ablation("RTX PRO 6000 in the blackwell family", "the GB202 card shares B200/GB200's "
             "efficiency row", _rtx_in_blackwell),
    Ablation("RTX PRO all-reduce at half PCIe rate", "RTX PRO 6000 link_gbps 32 (shipped 64)",
             _links(gbps_factor=0.5, only=("RTX-PRO-6000-Server",))),
)


def ablation_inputs(ablation: Ablation, bench: Bench, constants: Constants | None = None
                    ) -> tuple[Bench, dict[str, float | str]]:
    """The bench and constants an ablation runs with: ``constants`` (overrides of the shipped
    constants, none by default) updated with the ablation's own."""
    merged: dict[str, float | str] = dict(constants or {})
    merged.update(ablation.constants)
    return ablation.bench(bench), merged
