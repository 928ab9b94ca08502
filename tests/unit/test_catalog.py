"""Tests of the GPU/model catalogs, name resolution and parameter counting."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest

from reportgen.catalog import (
    GPU_CATALOG_FIELDS,
    GPU_FIELDS,
    MODEL_FIELDS,
    CatalogError,
    CatalogLookupError,
    Catalogs,
    count_params,
    load_catalogs,
    read_hf_config,
    resolve_gpu,
    resolve_model,
)

REQUIRED_GPUS = [
    "H100-SXM", "H100-PCIe", "H100-NVL", "H200-SXM", "H200-NVL", "GH200", "A100-SXM-80GB",
    "A100-SXM-40GB", "A100-PCIe-80GB", "L40S", "L4", "A10G", "A10", "B200", "B300", "GB200",
    "GB300", "RTX-PRO-6000-Server", "MI300X", "MI325X",
]  # fmt: skip
REQUIRED_MODELS = [
    "Llama-3.1-8B", "Llama-3.1-70B", "Llama-3.1-405B", "Llama-3.3-70B", "Llama-3-8B",
    "Llama-3-70B", "Llama-2-7B", "Llama-2-13B", "Llama-2-70B", "Mistral-7B-v0.1", "Qwen2.5-7B",
    "Qwen2.5-14B", "Qwen2.5-32B", "Qwen2.5-72B", "Qwen3-8B", "Qwen3-14B", "Qwen3-32B",
    "Qwen3-30B-A3B", "Qwen3-235B-A22B", "Mixtral-8x7B", "Mixtral-8x22B", "DeepSeek-V3",
    "gemma-2-9b", "gemma-2-27b", "Phi-3-mini-4k", "gpt-oss-20b", "gpt-oss-120b", "GPT-J-6B",
    "Falcon-180B", "Llama-4-Scout-17B-16E", "Llama-4-Maverick-17B-128E", "DeepSeek-R1",
]  # fmt: skip
# measured_public.csv GPU labels deliberately not in the catalog: MI250X has no complete spec row
# in gpu_specs.csv (it is a single gpt-fast batch-1 row measured on one GCD).
UNSUPPORTED_GPU_LABELS = {"MI250X (1 GCD)", "MI250X (one GCD)"}
UNSUPPORTED_MODEL_LABELS: set[str] = set()


def _reference_dir() -> Path | None:
    root = Path(__file__).resolve().parents[2]
    for base in (root, root.parent):
        candidate = base / "shared" / "reference"
        if (candidate / "measured_public.csv").is_file():
            return candidate
    return None


def _reference_rows(name: str) -> list[dict[str, str]]:
    ref = _reference_dir()
    if ref is None:
        pytest.skip("shared/reference is not available next to the repository")
    with (ref / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def cat() -> Catalogs:
    """The shipped catalogs."""
    return load_catalogs()


# Architecture fields copied from HF config.json transcriptions.
LLAMA_31_8B: dict[str, Any] = {
    "model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096,
    "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
    "vocab_size": 128256, "max_position_embeddings": 131072, "tie_word_embeddings": False,
}  # fmt: skip
LLAMA_31_70B: dict[str, Any] = {
    **LLAMA_31_8B, "num_hidden_layers": 80, "hidden_size": 8192, "num_attention_heads": 64,
    "head_dim": 128, "intermediate_size": 28672,
}  # fmt: skip
MIXTRAL_8X7B: dict[str, Any] = {
    "model_type": "mixtral", "num_hidden_layers": 32, "hidden_size": 4096,
    "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
    "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000,
    "max_position_embeddings": 32768, "tie_word_embeddings": False,
}  # fmt: skip
QWEN3_30B_A3B: dict[str, Any] = {
    "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
    "num_hidden_layers": 48, "hidden_size": 2048, "num_attention_heads": 32,
    "num_key_value_heads": 4, "head_dim": 128, "intermediate_size": 6144,
    "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8,
    "decoder_sparse_step": 1, "mlp_only_layers": [], "vocab_size": 151936,
    "max_position_embeddings": 40960, "tie_word_embeddings": False,
}  # fmt: skip
DEEPSEEK_V3: dict[str, Any] = {
    "model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168,
    "num_attention_heads": 128, "num_key_value_heads": 128, "intermediate_size": 18432,
    "moe_intermediate_size": 2048, "n_routed_experts": 256, "num_experts_per_tok": 8,
    "n_shared_experts": 1, "first_k_dense_replace": 3, "moe_layer_freq": 1,
    "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
    "v_head_dim": 128, "vocab_size": 129280, "max_position_embeddings": 163840,
    "tie_word_embeddings": False,
}  # fmt: skip

# Llama-4 text_config fields (Scout: stored transcriptions of meta-llama/Llama-4-Scout-17B-16E
# config.json; Maverick: NVIDIA/TensorRT-LLM test_modeling_llama_min_latency.py, 48 layers).
LLAMA4_SCOUT: dict[str, Any] = {
    "model_type": "llama4", "architectures": ["Llama4ForConditionalGeneration"],
    "text_config": {
        "model_type": "llama4_text", "hidden_size": 5120, "num_hidden_layers": 48,
        "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
        "intermediate_size": 8192, "intermediate_size_mlp": 16384, "num_local_experts": 16,
        "num_experts_per_tok": 1, "interleave_moe_layer_step": 1, "vocab_size": 202048,
        "max_position_embeddings": 10485760, "tie_word_embeddings": False,
        "attention_chunk_size": 8192,
    },
}  # fmt: skip
LLAMA4_MAVERICK: dict[str, Any] = {
    **LLAMA4_SCOUT,
    "text_config": {**LLAMA4_SCOUT["text_config"], "num_local_experts": 128,
                    "interleave_moe_layer_step": 2, "max_position_embeddings": 1048576},
}  # fmt: skip


def test_required_gpus_present(cat: Catalogs) -> None:
    """Every GPU the planner promises is in the catalog under its canonical name."""
    missing = [g for g in REQUIRED_GPUS if g not in cat.gpus.index]
    assert not missing


def test_required_models_present(cat: Catalogs) -> None:
    """Every model of model_configs.csv and of measured_public.csv has a catalog row."""
    missing = [m for m in REQUIRED_MODELS if m not in cat.models.index]
    assert not missing


def test_reference_model_configs_resolve(cat: Catalogs) -> None:
    """Every model and plain HF id listed in the reference model_configs.csv resolves."""
    for row in _reference_rows("model_configs.csv"):
        canonical = resolve_model(cat, row["model"])
        if " " not in row["hf_id"]:  # the Qwen3-235B cell describes a variant, not one repo id
            assert resolve_model(cat, row["hf_id"]) == canonical


def test_columns_and_dtypes(cat: Catalogs) -> None:
    """Both frames have exactly the documented columns, numeric ones as float64."""
    assert tuple(cat.gpus.columns) == GPU_FIELDS
    assert tuple(cat.models.columns) == MODEL_FIELDS
    for column in (
        "memory_gib",
        "bandwidth_tbps",
        "bf16_tflops",
        "link_gbps",
        "price_per_gpu_hour",
    ):
        assert cat.gpus[column].dtype == "float64"
    for column in ("params_b", "layers", "kv_heads", "head_dim", "max_context"):
        assert cat.models[column].dtype == "float64"


def test_shipped_csv_header_order() -> None:
    """The shipped CSV files start with the exact header the brief fixes."""
    data = Path(__file__).resolve().parents[2] / "reportgen" / "data"
    gpu_header = (data / "gpus.csv").read_text(encoding="utf-8").splitlines()[0]
    model_header = (data / "models.csv").read_text(encoding="utf-8").splitlines()[0]
    assert gpu_header == ",".join(("name", *GPU_CATALOG_FIELDS))
    assert model_header == ",".join(("name", *MODEL_FIELDS))


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("H100", "H100-SXM"),
        ("h100-sxm", "H100-SXM"),
        ("h100 sxm5 80gb", "H100-SXM"),
        ("NVIDIA H100 80GB HBM3", "H100-SXM"),
        ("H200", "H200-SXM"),
        ("A100", "A100-SXM-80GB"),
        ("A100-80GB", "A100-SXM-80GB"),
        ("a100 80gb", "A100-SXM-80GB"),
        ("A100-40GB", "A100-SXM-40GB"),
        ("GH200 120GB", "GH200"),
        ("amd instinct mi300x", "MI300X"),
        ("  l40s  ", "L40S"),
    ],
)
def test_resolve_gpu_names(cat: Catalogs, label: str, expected: str) -> None:
    """Short names and aliases resolve case-insensitively to the canonical GPU."""
    assert resolve_gpu(cat, label) == expected


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("meta-llama/Llama-3.1-70B-Instruct", "Llama-3.1-70B"),
        ("llama-3.1-70b", "Llama-3.1-70B"),
        ("LLAMA_3.1_70B", "Llama-3.1-70B"),
        ("meta-llama/Meta-Llama-3-8B-Instruct", "Llama-3-8B"),
        ("meta-llama/Llama-2-70b-chat-hf", "Llama-2-70B"),
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", "Mixtral-8x7B"),
        ("google/gemma-2-9b-it", "gemma-2-9b"),
        ("Qwen/Qwen3-30B-A3B", "Qwen3-30B-A3B"),
        ("deepseek-ai/DeepSeek-V3", "DeepSeek-V3"),
        ("openai/gpt-oss-120b", "gpt-oss-120b"),
        ("Mistral-7B", "Mistral-7B-v0.1"),
    ],
)
def test_resolve_model_names(cat: Catalogs, label: str, expected: str) -> None:
    """HF ids and short names resolve, ignoring org prefixes and instruct/chat/hf/it suffixes."""
    assert resolve_model(cat, label) == expected


def test_unknown_gpu_suggests_close_names(cat: Catalogs) -> None:
    """An unknown GPU raises CatalogLookupError whose suggestions start with the closest GPU."""
    with pytest.raises(CatalogLookupError) as info:
        resolve_gpu(cat, "A100-40")
    error = info.value
    assert error.kind == "gpu" and error.name == "A100-40"
    assert error.suggestions[0] == "A100-SXM-40GB" and len(error.suggestions) <= 3
    assert "H100-SXM" in error.known and "A100-SXM-40GB" in str(error)


def test_unknown_model_suggests_close_names(cat: Catalogs) -> None:
    """An unknown model raises CatalogLookupError with up to three sensible suggestions."""
    with pytest.raises(CatalogLookupError) as info:
        resolve_model(cat, "llama-3.1-7b")
    assert info.value.kind == "model"
    assert "Llama-3.1-8B" in info.value.suggestions and len(info.value.suggestions) <= 3
    with pytest.raises(CatalogLookupError) as empty:
        resolve_model(cat, "   ")
    assert empty.value.suggestions == []


def test_measured_gpu_labels_resolve(cat: Catalogs) -> None:
    """Every GPU label of measured_public.csv resolves, except the listed unsupported ones."""
    labels: set[str] = set()
    for row in _reference_rows("measured_public.csv"):
        labels.update({row["gpu"], row["gpu_normalized"]})
        match = re.search(r"GPU column label in doc: ([^;,]+)", row["notes"])
        if match:
            labels.add(match.group(1).strip())
    unresolved = []
    for label in sorted(labels - UNSUPPORTED_GPU_LABELS):
        try:
            resolve_gpu(cat, label)
        except CatalogLookupError:
            unresolved.append(label)
    assert not unresolved
    assert resolve_gpu(cat, "H200 SXM 141GB") == "H200-SXM"
    assert resolve_gpu(cat, "A100 SXM 80GB") == "A100-SXM-80GB"


def test_measured_model_labels_resolve(cat: Catalogs) -> None:
    """Every model value of measured_public.csv resolves to a catalog row."""
    labels = {row["model"] for row in _reference_rows("measured_public.csv")}
    unresolved = []
    for label in sorted(labels - UNSUPPORTED_MODEL_LABELS):
        try:
            resolve_model(cat, label)
        except CatalogLookupError:
            unresolved.append(label)
    assert not unresolved
    assert resolve_model(cat, "Llama-2-70B (per doc methodology: Llama2-70b)") == "Llama-2-70B"


def test_count_params_llama_31_8b() -> None:
    """Llama-3.1-8B (config.json copy, citsjtu2020/LLM-Prof sglang/Model_Config.md) has 8.03e9."""
    total, active, expert = count_params(LLAMA_31_8B)
    assert total == pytest.approx(8.03e9, rel=0.02)
    assert total == 8_030_261_248 and active == total and expert == 0


def test_count_params_llama_31_70b() -> None:
    """Llama-3.1-70B (AI-Hypercomputer/maxtext hf_model_configs.py llama31_70b_config): 70.55e9."""
    total, active, _ = count_params(LLAMA_31_70B)
    assert total == pytest.approx(70.55e9, rel=0.02) and active == total


def test_count_params_mixtral() -> None:
    """Mixtral-8x7B (maxtext hf_model_configs.py mixtral_8x7b_dict): 46.7e9 total, 12.9e9 active."""
    total, active, expert = count_params(MIXTRAL_8X7B)
    assert total == pytest.approx(46.7e9, rel=0.02)
    assert active == pytest.approx(12.9e9, rel=0.02)
    assert expert == 32 * 8 * 3 * 4096 * 14336


def test_count_params_qwen3_moe() -> None:
    """Qwen3-30B-A3B (config.json copy in citsjtu2020/LLM-Prof Model_Config.md) has 30.5e9/3.3e9."""
    total, active, _ = count_params(QWEN3_30B_A3B)
    assert total == pytest.approx(30.5e9, rel=0.02)
    assert active == pytest.approx(3.3e9, rel=0.02)


def test_count_params_deepseek_v3() -> None:
    """DeepSeek-V3 (maxtext deepseek3_671b_dict, from HF config.json): 671e9 total, 37e9 active."""
    total, active, expert = count_params(DEEPSEEK_V3)
    assert total == pytest.approx(671e9, rel=0.02)
    assert active == pytest.approx(37e9, rel=0.02)
    assert expert == 58 * 256 * 3 * 7168 * 2048


def test_count_params_llama4_scout() -> None:
    """Llama-4 Scout, counted from its text architecture: every layer MoE with 16 routed experts
    (top-1) and one shared expert; Meta publishes 109B total (with the vision encoder) and 17B
    active, so the text model is a little under 109B."""
    total, active, expert = count_params(LLAMA4_SCOUT)
    h, per_expert = 5120, 3 * 5120 * 8192
    assert expert == 48 * 16 * per_expert
    attention = h * 5120 + 2 * h * 1024 + 5120 * h
    embeddings = 2 * 202048 * h
    router, norms = h * 16, 2 * h
    assert total == embeddings + h + 48 * (attention + norms + router + per_expert) + expert
    assert active == total - expert + 48 * per_expert
    assert 105e9 < total < 109e9
    assert active == pytest.approx(17e9, rel=0.02)


def test_count_params_llama4_maverick_interleaves_dense_and_moe_layers() -> None:
    """Llama-4 Maverick: MoE in every second layer (24 of 48, 128 experts, top-1, one shared
    expert), dense FFN of intermediate_size_mlp 16384 in the others: published 400B / 17B."""
    total, active, expert = count_params(LLAMA4_MAVERICK)
    assert expert == 24 * 128 * 3 * 5120 * 8192
    assert total == pytest.approx(400e9, rel=0.01)
    assert active == pytest.approx(17e9, rel=0.02)
    every_layer = count_params({**LLAMA4_MAVERICK, "text_config": {
        **LLAMA4_MAVERICK["text_config"], "interleave_moe_layer_step": 1}})
    assert every_layer[2] == 2 * expert


def test_catalog_llama4_rows_match_the_count(cat: Catalogs) -> None:
    """The shipped Llama-4 rows hold the counted architecture."""
    for name, config in (("Llama-4-Scout-17B-16E", LLAMA4_SCOUT),
                         ("Llama-4-Maverick-17B-128E", LLAMA4_MAVERICK)):
        total, active, expert = count_params(config)
        row = cat.models.loc[name]
        assert row["params_b"] == pytest.approx(total / 1e9, abs=1e-4)
        assert row["active_params_b"] == pytest.approx(active / 1e9, abs=1e-4)
        assert row["expert_params_b"] == pytest.approx(expert / 1e9, abs=1e-4)
        assert (row["experts"], row["experts_per_token"]) == (
            config["text_config"]["num_local_experts"], 1)


def test_blackwell_dense_peaks_per_gpu(cat: Catalogs) -> None:
    """Dense tensor peaks per GPU: NVIDIA's 'without sparsity' FP4 figure where it gives one
    (HGX B300 108 PF / 8, GB300 NVL72 1,080 PF / 72), else half the sparse datasheet figure
    (HGX B200 144 PF FP4 / 8, GB200 superchip 40 PF / 2, RTX PRO 6000 4,000 TFLOPS). The RTX
    PRO 6000 is a GB202 die (sm_120, GDDR7, PCIe), so it has its own family and efficiencies."""
    expected = {  # fp4, fp8, bf16 TFLOPS
        "B200": (9000, 4500, 2250), "B300": (13500, 4500, 2250), "GB200": (10000, 5000, 2500),
        "GB300": (15000, 5000, 2500), "RTX-PRO-6000-Server": (2000, 1000, 500),
    }
    for name, (fp4, fp8, bf16) in expected.items():
        row = cat.gpus.loc[name]
        assert (row["fp4_tflops"], row["fp8_tflops"], row["bf16_tflops"]) == (fp4, fp8, bf16)
        assert row["family"] == ("blackwell-rtx" if name.startswith("RTX") else "blackwell")
    for name in ("GB200", "GB300"):
        assert cat.gpus.at[name, "gpus_per_node"] == 4
        assert "NVL72" in cat.gpus.at[name, "internode_source"]


@pytest.mark.parametrize(
    ("label", "expected"),
    [("B200 180GB (DGX B200)", "B200"), ("GB200 192GB (GB200 NVL72)", "GB200"),
     ("RTX PRO 6000 Blackwell Server Edition", "RTX-PRO-6000-Server"),
     ("B300 288GB (DGX B300)", "B300"), ("GB300 288 GB (GB300 NVL72)", "GB300"),
     ("H200 SXM 141GB (DGX H200)", "H200-SXM"), ("H100 SXM 80GB (DGX H100)", "H100-SXM")],
)
def test_newer_measurement_gpu_labels_resolve(cat: Catalogs, label: str, expected: str) -> None:
    """The GPU labels of TensorRT-LLM's v1.0 and release/1.2 performance overviews resolve."""
    assert resolve_gpu(cat, label) == expected


def test_count_params_names_missing_key() -> None:
    """A config without the layer count raises ValueError naming num_hidden_layers."""
    broken = {k: v for k, v in LLAMA_31_8B.items() if k != "num_hidden_layers"}
    with pytest.raises(ValueError, match="num_hidden_layers"):
        count_params(broken)


def test_catalog_params_match_count(cat: Catalogs) -> None:
    """Catalog rows agree with count_params, and MoE rows split total into expert + rest."""
    assert cat.models.at["Llama-3.1-70B", "params_b"] == pytest.approx(70.5537, abs=1e-3)
    assert cat.models.at["DeepSeek-V3", "active_params_b"] == pytest.approx(37.55, abs=0.01)
    for name, row in cat.models.iterrows():
        if row["experts"] > 0:
            share = row["experts_per_token"] / row["experts"]
            rest = row["params_b"] - row["expert_params_b"]
            assert row["active_params_b"] == pytest.approx(
                rest + share * row["expert_params_b"], rel=1e-3
            ), name
        else:
            assert row["active_params_b"] == row["params_b"], name


def test_read_hf_config(tmp_path: Path, cat: Catalogs) -> None:
    """A config.json on disk becomes a full model row that can be added to the catalogs."""
    path = tmp_path / "my-moe" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps({**QWEN3_30B_A3B, "_name_or_path": "acme/my-moe"}), "utf-8")
    row = read_hf_config(path)
    assert set(row) == set(MODEL_FIELDS)
    assert row["hf_id"] == "" and "acme/my-moe" in str(row["notes"])
    assert row["architecture"] == "Qwen3MoeForCausalLM"
    assert row["params_b"] == pytest.approx(30.53, abs=0.01)
    assert (row["kv_heads"], row["head_dim"], row["experts"]) == (4.0, 128.0, 128.0)
    extended = cat.with_model("my-moe", row)
    assert resolve_model(extended, "my-moe") == "my-moe"
    assert "my-moe" not in cat.models.index
    replaced = cat.with_model("Qwen3-30B-A3B", {**row, "hf_id": ""})
    assert resolve_model(replaced, "Qwen3 30B A3B") == "Qwen3-30B-A3B"
    assert replaced.models.at["Qwen3-30B-A3B", "source"] == row["source"]


def test_read_hf_config_deepseek_mla(tmp_path: Path) -> None:
    """A DeepSeek-V3 config gives head_dim 192 and an MLA KV width of 576."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(DEEPSEEK_V3), "utf-8")
    row = read_hf_config(path)
    assert (row["head_dim"], row["mla_kv_dim"], row["layers"]) == (192.0, 576.0, 61.0)


GPT_OSS_120B_ATTENTION: dict[str, Any] = {
    "model_type": "gpt_oss", "num_hidden_layers": 36, "hidden_size": 2880,
    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
    "intermediate_size": 2880, "num_local_experts": 128, "num_experts_per_tok": 4,
    "vocab_size": 201088, "max_position_embeddings": 131072, "sliding_window": 128,
    "layer_types": ["sliding_attention", "full_attention"] * 18,
}  # fmt: skip


@pytest.mark.parametrize(("config", "expected"), [
    (GPT_OSS_120B_ATTENTION, (128, 18)),
    ({**GPT_OSS_120B_ATTENTION, "layer_types": None}, (128, 18)),  # alternating by model type
    (LLAMA4_SCOUT, (8192, 36)),  # RoPE layers chunked, every 4th global
    ({**LLAMA4_SCOUT, "text_config": {**LLAMA4_SCOUT["text_config"],
                                      "no_rope_layers": [1, 1, 0] * 16}}, (8192, 32)),
    ({**LLAMA_31_8B, "model_type": "gemma2", "sliding_window": 4096, "head_dim": 128},
     (4096, 16)),
    ({**LLAMA_31_8B, "model_type": "gemma3_text", "sliding_window": 1024,
      "sliding_window_pattern": 6, "head_dim": 128}, (1024, 27)),
    ({**LLAMA_31_8B, "model_type": "mistral", "sliding_window": 4096}, (0, 0)),  # every layer
    ({**LLAMA4_SCOUT, "text_config": {**LLAMA4_SCOUT["text_config"],
                                      "no_rope_layer_interval": 1}}, (0, 0)),  # no layer
    ({**QWEN3_30B_A3B, "sliding_window": 32768, "use_sliding_window": False}, (0, 0)),
    (LLAMA_31_8B, (0, 0)),
])  # fmt: skip
def test_read_hf_config_local_attention(tmp_path: Path, config: dict[str, Any],
                                        expected: tuple[int, int]) -> None:
    """The local-attention window and the layers that use it, as the config lays them out:
    gpt-oss alternates 128-token sliding and full layers, Llama 4 attends within 8,192-token
    chunks in its RoPE layers, Gemma 2 alternates, Gemma 3 keeps one global layer in six; a
    window on every layer (Mistral 7B v0.1) or switched off (Qwen) is not applied."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), "utf-8")
    row = read_hf_config(path)
    assert (row["local_attention_window"], row["local_attention_layers"]) == expected


def test_catalog_local_attention_rows(cat: Catalogs) -> None:
    """The shipped rows with local attention hold what their configs lay out (gpt-oss 128 on
    half the layers, Gemma 2 4,096 on the even-numbered half, Llama 4 8,192-token chunks on 3
    of 4 layers) and no other row has a window."""
    expected = {"gpt-oss-20b": (128, 12), "gpt-oss-120b": (128, 18), "gemma-2-9b": (4096, 21),
                "gemma-2-27b": (4096, 23), "Llama-4-Scout-17B-16E": (8192, 36),
                "Llama-4-Maverick-17B-128E": (8192, 36)}
    for name, row in cat.models.iterrows():
        assert (row["local_attention_window"], row["local_attention_layers"]) == expected.get(
            str(name), (0, 0)), name


def test_read_hf_config_errors(tmp_path: Path) -> None:
    """Missing keys and broken JSON raise ValueError with a clear message."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "num_hidden_layers": 2}), "utf-8")
    with pytest.raises(ValueError, match="hidden_size"):
        read_hf_config(path)
    path.write_text("{not json", "utf-8")
    with pytest.raises(ValueError, match=r"config\.json"):
        read_hf_config(path)


@pytest.mark.parametrize(
    ("model", "expected"), [("Llama-3.1-70B", 327_680), ("Llama-3.1-8B", 131_072)]
)
def test_kv_bytes_per_token(cat: Catalogs, model: str, expected: int) -> None:
    """BF16 KV bytes per token 2·layers·kv_heads·head_dim·2 use the GQA KV heads."""
    row = cat.models.loc[model]
    assert 2 * row["layers"] * row["kv_heads"] * row["head_dim"] * 2 == expected


def test_with_gpu_override_and_conflicts(cat: Catalogs) -> None:
    """Overrides update a copy, keep the canonical name, and reject inconsistent rows."""
    cheaper = cat.with_gpu("h100", {"price_per_gpu_hour": 2.0})
    assert cheaper.gpus.at["H100-SXM", "price_per_gpu_hour"] == 2.0
    # the price book's p5.48xlarge on-demand rate (98.32 USD per 8-GPU instance-hour) ÷ 8
    assert cat.gpus.at["H100-SXM", "price_per_gpu_hour"] == pytest.approx(98.32 / 8)
    l4 = {str(key): value for key, value in cat.gpus.loc["L4"].items()}
    with pytest.raises(CatalogError, match="H100"):
        cat.with_gpu("My-GPU", {**l4, "aliases": "H100"})
    with pytest.raises(CatalogError, match="missing"):
        cat.with_model("new-model", {"params_b": 1.0})
    with pytest.raises(CatalogError, match="unknown"):
        cat.with_model("Llama-3.1-8B", {"parameters": 8})


def test_gpu_rows_are_sourced(cat: Catalogs) -> None:
    """Every GPU row cites a spec source; every price cites a URL, or says there is none."""
    for name, row in cat.gpus.iterrows():
        assert row["source"] and row["source_date"], name
        price_source = str(row["price_source"])
        if row["price_status"] == "no_price":
            assert row["price_usd"] == 0 and price_source.startswith("no on_demand price"), name
        else:
            assert "http" in price_source and row["price_usd"] > 0, name
    for name, row in cat.models.iterrows():
        assert row["source"] and row["hf_id"], name


def test_load_catalogs_returns_independent_copies() -> None:
    """Mutating one loaded frame does not change the next load."""
    first = load_catalogs()
    first.gpus.loc["L4", "price_per_gpu_hour"] = 99.0
    assert load_catalogs().gpus.at["L4", "price_per_gpu_hour"] != 99.0
