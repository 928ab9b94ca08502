"""Models and GPUs the catalog lacks: a local config.json, or the override columns."""

from __future__ import annotations

import json
from pathlib import Path

from reportgen.engine import estimate
from reportgen.pipeline import load

LLAMA_8B_CONFIG = {  # Hugging Face meta-llama/Llama-3.1-8B config.json (architecture fields)
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
    "tie_word_embeddings": False, "_name_or_path": "meta-llama/Llama-3.1-8B",
}


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "in.csv"
    path.write_text(
        "scenario,model,gpu,peak_qps,avg_prompt_tokens,avg_output_tokens," + body, "utf-8"
    )
    return path


def test_a_local_config_json_plans_like_the_catalog_model(tmp_path: Path) -> None:
    """A config.json path (relative to the scenario file) gives the same KV bytes per token and
    about the same weights as the catalog's Llama-3.1-8B."""
    (tmp_path / "llama").mkdir()
    (tmp_path / "llama" / "config.json").write_text(json.dumps(LLAMA_8B_CONFIG), "utf-8")
    path = _write(tmp_path, "x\nlocal,llama/config.json,H100,5,500,200,\n"
                            "catalog,llama-3.1-8b,H100,5,500,200,\n")
    checked = load(path)
    result = estimate(checked.scenarios, checked.tables)
    local, catalog = result.iloc[0], result.iloc[1]
    assert local["model"] == "llama/config.json"
    assert local["kv_bytes_per_token"] == catalog["kv_bytes_per_token"] == 131_072
    assert abs(local["weights_gib"] / catalog["weights_gib"] - 1) < 0.01


def test_override_columns_describe_an_unknown_model_and_gpu(tmp_path: Path) -> None:
    """A model and GPU unknown to the catalog are planned from their override columns."""
    path = _write(
        tmp_path,
        "params_b,layers,attention_heads,kv_heads,head_dim,gpu_memory_gib,gpu_tflops,"
        "gpu_bandwidth_tbps,gpu_hour_price\n"
        "custom,acme-13b,acme-x1,5,500,200,13,40,40,8,128,64,400,2.0,1.5\n",
    )
    checked = load(path)
    row = estimate(checked.scenarios, checked.tables).iloc[0]
    assert row["kv_bytes_per_token"] == 2 * 40 * 8 * 128 * 2
    assert row["gpu_memory_gib"] == 64
    assert row["gpu_hour_price"] == 1.5
    assert row["in_plan_total"] == 1
    assert "uncalibrated" in row["notes"]
