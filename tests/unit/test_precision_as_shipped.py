"""A blank precision is the checkpoint's own: the catalog's, or what a local config.json's
``torch_dtype`` and ``quantization_config`` say, part by part where the checkpoint mixes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reportgen.catalog import read_hf_config
from reportgen.errors import ScenarioValidationError
from reportgen.search import concrete, search
from tests.helpers import build_plan
from tests.scenarios import base_row, estimate_rows, validated

GIB = 2**30
# gpt-oss-120b's config.json (https://huggingface.co/openai/gpt-oss-120b/blob/main/config.json):
# architecture fields and the quantization block it ships with.
GPT_OSS_120B: dict[str, Any] = {
    "architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "num_hidden_layers": 36,
    "hidden_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
    "intermediate_size": 2880, "num_local_experts": 128, "num_experts_per_tok": 4,
    "vocab_size": 201088, "max_position_embeddings": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "quantization_config": {
        "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                   "model.embed_tokens", "lm_head"],
        "quant_method": "mxfp4",
    },
}  # fmt: skip


def _write(tmp_path: Path, config: dict[str, Any], name: str = "model") -> Path:
    path = tmp_path / name / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(config), "utf-8")
    return path


def test_gpt_oss_counts_mxfp4_experts_and_bf16_attention_part_by_part() -> None:
    """114.7016 B expert weights at 4.25 bits (MXFP4: 4-bit values, one 8-bit scale per 32) and
    2.1276 B other weights at 2 bytes: 56.75 + 3.96 = 60.71 GiB, against 217.6 GiB in bf16."""
    shipped, bf16 = estimate_rows([base_row(scenario="a", model="gpt-oss-120b"),
                                   base_row(scenario="b", model="gpt-oss-120b",
                                            weight_dtype="bf16")]).to_dict("records")
    expected = (114.7016 * 17 / 32 + (116.8292 - 114.7016) * 2) * 1e9 / GIB
    assert shipped["weights_gib"] == pytest.approx(expected)
    assert (shipped["weight_dtype"], shipped["expert_weight_dtype"]) == ("bf16", "mxfp4")
    assert shipped["compute_dtype"] == "bf16"  # the attention's precision sets the peak
    assert "routed experts in mxfp4, the other weights in bf16" in shipped["notes"]
    assert bf16["weights_gib"] == pytest.approx(116.8292e9 * 2 / GIB)
    assert bf16["expert_weight_dtype"] == "bf16" and "ships them" not in bf16["notes"]


def test_a_mixed_checkpoint_runs_at_its_higher_precision_even_with_fp4_tensor_cores() -> None:
    """On B200 (fp4 tensor cores) gpt-oss's bf16 attention still runs in bf16, so the plan uses
    the bf16 peak; typed fp4 everywhere it uses the fp4 one."""
    shipped, fp4 = estimate_rows([base_row(scenario="a", model="gpt-oss-120b", gpu="B200"),
                                  base_row(scenario="b", model="gpt-oss-120b", gpu="B200",
                                           weight_dtype="fp4")]).to_dict("records")
    assert shipped["compute_dtype"] == "bf16" and fp4["compute_dtype"] == "fp4"
    assert shipped["efficiency_key"].endswith("-bf16") and fp4["efficiency_key"].endswith("-fp4")


def test_a_searched_precision_keeps_as_shipped_as_one_of_its_candidates() -> None:
    """weight_dtype auto on gpt-oss plans as shipped (no single value states it) and fp8; the
    kept shipped candidate re-estimates to the same cost, and the plan says it ships so."""
    checked = validated([base_row(model="gpt-oss-120b", weight_dtype="auto", tp=1,
                                  tpot_slo_ms=40)])
    found = search(checked.scenarios, checked.specs, checked.tables)
    kept = found.kept
    assert set(kept["input_weight_dtype"]) == {"", "fp8"}
    shipped = kept[kept["input_weight_dtype"] == ""].iloc[[0]]
    assert (shipped["weight_dtype"].iloc[0], shipped["expert_weight_dtype"].iloc[0]) == (
        "bf16", "mxfp4")
    again = estimate_rows([base_row(model="gpt-oss-120b", tp=1, tpot_slo_ms=40)])
    assert again["monthly_cost"].iloc[0] == pytest.approx(shipped["monthly_cost"].iloc[0])
    assert concrete(checked.scenarios, shipped)["weight_dtype"].iloc[0] == ""


def test_config_json_quantization_config_gives_the_shipped_precisions(tmp_path: Path) -> None:
    """quant_method mxfp4 with attention left unconverted: MXFP4 experts, bf16 elsewhere;
    quant_method fp8 (DeepSeek-V3's block): fp8 throughout; compressed-tensors with an 8-bit
    float KV scheme: fp8 weights and KV cache; no quantization_config: torch_dtype."""
    oss = read_hf_config(_write(tmp_path, GPT_OSS_120B, "oss"))
    assert (oss["weight_dtype"], oss["expert_weight_dtype"], oss["kv_dtype"]) == (
        "bf16", "mxfp4", "bf16")
    assert "mxfp4 routed experts" in str(oss["precision_source"])
    fp8 = read_hf_config(_write(tmp_path, {**GPT_OSS_120B, "quantization_config": {
        "activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
        "weight_block_size": [128, 128]}}, "fp8"))
    assert (fp8["weight_dtype"], fp8["expert_weight_dtype"]) == ("fp8", "fp8")
    tensors = read_hf_config(_write(tmp_path, {**GPT_OSS_120B, "quantization_config": {
        "quant_method": "compressed-tensors",
        "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "float"}}},
        "kv_cache_scheme": {"num_bits": 8, "type": "float"}}}, "tensors"))
    assert (tensors["weight_dtype"], tensors["kv_dtype"]) == ("fp8", "fp8")
    plain = {k: v for k, v in GPT_OSS_120B.items() if k != "quantization_config"}
    half = read_hf_config(_write(tmp_path, {**plain, "torch_dtype": "float16"}, "half"))
    assert (half["weight_dtype"], half["expert_weight_dtype"], half["kv_dtype"]) == (
        "fp16", "fp16", "fp16")


def test_a_quantization_reportgen_cannot_read_asks_for_the_precision(tmp_path: Path) -> None:
    """An unknown quant_method leaves the shipped precision unknown: a blank weight_dtype is
    refused with what was found and what to type; a typed one plans."""
    path = _write(tmp_path, {**GPT_OSS_120B, "quantization_config": {"quant_method": "hqq"}})
    with pytest.raises(ScenarioValidationError) as err:
        validated([base_row(model=str(path))])
    [issue] = err.value.issues
    assert issue.column == "weight_dtype" and "'hqq' is not one reportgen reads" in issue.found
    assert validated([base_row(model=str(path), weight_dtype="int4")]).scenarios is not None


def test_deepseek_v3_blank_weights_are_fp8_and_typed_bf16_do_not_fit_one_node() -> None:
    """DeepSeek-V3 ships FP8 (625 GiB: one 8-GPU H200 node holds it); typed bf16 it is
    1,250 GiB, more than the node's 8 × 141 × 0.9 = 1,015 GiB, so it needs pipeline stages."""
    plan = build_plan([
        base_row(scenario="shipped", model="DeepSeek-V3", gpu="H200", peak_qps=5),
        base_row(scenario="bf16", model="DeepSeek-V3", gpu="H200", peak_qps=5,
                 weight_dtype="bf16"),
    ])
    shipped, bf16 = (plan.results.iloc[i] for i in range(2))
    assert shipped["weight_dtype"] == "fp8" and shipped["pp"] == 1  # one H200 node holds it
    assert bf16["weights_gib"] == pytest.approx(671.0264e9 * 2 / GIB)
    assert bf16["pp"] > 1 and bf16["status"] == "chosen"


def test_the_tutorials_arithmetic_has_no_pipeline_stages() -> None:
    with pytest.raises(ScenarioValidationError) as err:
        validated([base_row(method="tutorial", pp=2)])
    [issue] = err.value.issues
    assert issue.column == "pp" and "no pipeline parallelism" in issue.expected
