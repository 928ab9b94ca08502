"""GPU and model catalogs: the shipped CSV data, name resolution and parameter counting.

The catalogs live in ``reportgen/data/gpus.csv`` and ``reportgen/data/models.csv``. Every row
carries its source; :func:`load_catalogs` validates them once and returns them as DataFrames
indexed by canonical name. Users may type any alias (case-insensitive, organisation prefixes and
``-Instruct``/``-chat``/``-hf``/``-it``/``-base`` suffixes ignored for models); unknown names raise
:class:`CatalogLookupError` with "did you mean" suggestions.

:func:`count_params` and :func:`read_hf_config` turn a Hugging Face ``config.json`` into a model
row, counting parameters from the architecture (dense, GQA, MoE, DeepSeek MLA, gpt-oss).
"""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import json
import math
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from reportgen.errors import CatalogError, InputFileError
from reportgen.finance.prices import (
    DEFAULT_BASIS,
    GPU_PRICE_FIELDS,
    GPU_PRICE_NUMERIC,
    PriceBook,
    price_fields,
    shipped_price_book,
)
from reportgen.inputfiles import InputFile, read_input
from reportgen.schema import DTYPES

__all__ = [
    "GPU_FIELDS",
    "MODEL_FIELDS",
    "CatalogError",
    "CatalogLookupError",
    "Catalogs",
    "ConfigError",
    "count_params",
    "load_catalogs",
    "read_config_file",
    "read_hf_config",
    "resolve_gpu",
    "resolve_model",
]

DATA_DIR = Path(__file__).parent / "data"

GPU_NUMERIC: tuple[str, ...] = (
    "memory_gib",
    "bandwidth_tbps",
    "bf16_tflops",
    "fp8_tflops",
    "fp4_tflops",
    "int8_tops",
    "tdp_w",
    "gpus_per_node",
    "link_gbps",
    "link_latency_us",
    "internode_gbps",
    "internode_latency_us",
)
# The columns of gpus.csv; the price fields come from the price book (reportgen/finance/prices).
GPU_CATALOG_FIELDS: tuple[str, ...] = (
    "aliases",
    "vendor",
    "family",
    "form_factor",
    *GPU_NUMERIC[:8],
    "link",
    "link_gbps",
    "link_latency_us",
    "internode_gbps",
    "internode_latency_us",
    "internode_source",
    "source",
    "source_date",
    "notes",
)
GPU_FIELDS: tuple[str, ...] = (*GPU_CATALOG_FIELDS, *GPU_PRICE_FIELDS)
GPU_NUMERIC_ALL: tuple[str, ...] = (*GPU_NUMERIC, *GPU_PRICE_NUMERIC)
MODEL_NUMERIC: tuple[str, ...] = (
    "params_b",
    "active_params_b",
    "layers",
    "hidden_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "mla_kv_dim",
    "mla_rope_dim",
    "experts",
    "experts_per_token",
    "expert_params_b",
    "max_context",
    "local_attention_window",
    "local_attention_layers",
)
MODEL_FIELDS: tuple[str, ...] = (
    "hf_id",
    "aliases",
    "architecture",
    *MODEL_NUMERIC,
    "weight_dtype",
    "expert_weight_dtype",
    "kv_dtype",
    "precision_source",
    "source",
    "source_date",
    "notes",
)

# "other": a GPU defined by a scenario's override columns (generic, uncalibrated efficiencies).
GPU_FAMILIES = frozenset(
    {"hopper", "ampere", "ada", "blackwell", "blackwell-rtx", "cdna3", "other"})
GPU_LINKS = frozenset({"nvlink", "pcie", "xgmi"})
# Numeric fields that must be strictly positive (the others may be 0).
# Zero means "none" for the low-precision throughputs and "not known" for TDP (a GPU defined by
# a scenario's override columns).
_GPU_POSITIVE = frozenset(GPU_NUMERIC) - {"fp8_tflops", "fp4_tflops", "int8_tops", "tdp_w"}
_MODEL_POSITIVE = frozenset(MODEL_NUMERIC) - {
    "max_context",  # 0 = not known (a model defined by override columns)
    "local_attention_window",  # 0 = every layer attends to the whole context
    "local_attention_layers",
    "mla_kv_dim",
    "mla_rope_dim",
    "experts",
    "experts_per_token",
    "expert_params_b",
}


class CatalogLookupError(LookupError):
    """A GPU or model name matched no catalog row."""

    def __init__(self, name: str, kind: str, suggestions: list[str], known: list[str]) -> None:
        self.name = name
        self.kind = kind
        self.suggestions = suggestions
        self.known = known
        label = "GPU" if kind == "gpu" else kind
        hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown {label} {name!r}.{hint} Known {label}s: {', '.join(known)}.")


# ---------------------------------------------------------------------------
# Name normalisation
# ---------------------------------------------------------------------------

_PAREN = re.compile(r"\([^)]*\)")
_SEPARATORS = re.compile(r"[\s_/]+")
_DASHES = re.compile(r"-{2,}")
_MODEL_NOISE = frozenset({"instruct", "chat", "hf", "it", "base"})
_GPU_VENDOR_PREFIXES = ("nvidia-", "amd-instinct-", "amd-", "instinct-")


def _basic_key(name: str) -> str:
    text = _PAREN.sub(" ", name).strip().lower()
    text = _SEPARATORS.sub("-", text)
    return _DASHES.sub("-", text).strip("-")


def normalise_gpu(name: str) -> str:
    """Return the lookup key of a GPU name (case, separators, vendor prefix and remarks removed)."""
    key = _basic_key(name)
    for prefix in _GPU_VENDOR_PREFIXES:
        if key.startswith(prefix) and len(key) > len(prefix):
            key = key[len(prefix) :]
    return key


def normalise_model(name: str) -> str:
    """Return the lookup key of a model name (org prefix and instruct/chat/hf/it/base dropped).

    A path to a config.json is its own key, exactly as written: ``a/config.json`` and
    ``b/config.json`` are two models, not two spellings of "config.json".
    """
    if name.strip().lower().endswith(".json"):
        return "file:" + name.strip()
    text = _PAREN.sub(" ", name).strip()
    text = text.rsplit("/", 1)[-1] if "/" in text else text
    parts = [p for p in _basic_key(text).split("-") if p and p not in _MODEL_NOISE]
    return "-".join(parts)


def _split_aliases(value: object) -> list[str]:
    return [a.strip() for a in str(value).split(";") if a.strip()]


def _lookup_table(frame: pd.DataFrame, norm: Callable[[str], str]) -> Mapping[str, str]:
    """Map every normalised name/alias/hf_id key to its canonical row name (built once per
    distinct catalog: every name a file resolves reads the same table)."""
    hf_ids = tuple(map(str, frame["hf_id"])) if "hf_id" in frame.columns else None
    return _lookup_table_of(tuple(map(str, frame.index)), tuple(map(str, frame["aliases"])),
                            hf_ids, norm)


@functools.lru_cache(maxsize=32)
def _lookup_table_of(names: tuple[str, ...], aliases: tuple[str, ...],
                     hf_ids: tuple[str, ...] | None,
                     norm: Callable[[str], str]) -> Mapping[str, str]:
    table: dict[str, str] = {}
    for i, name in enumerate(names):
        labels = [name, *_split_aliases(aliases[i])]
        if hf_ids is not None and hf_ids[i].strip():
            labels.append(hf_ids[i])
        for label in labels:
            key = norm(label)
            if not key:
                continue
            owner = table.setdefault(key, name)
            if owner != name:
                raise CatalogError(
                    f"name or alias {label!r} (key {key!r}) is used by both {owner!r} and {name!r}"
                )
    return types.MappingProxyType(table)


def _resolve(frame: pd.DataFrame, name: str, kind: str, norm: Callable[[str], str]) -> str:
    table = _lookup_table(frame, norm)
    key = norm(name)
    if key in table:
        return table[key]
    suggestions: list[str] = []
    for match in difflib.get_close_matches(key, list(table), n=12, cutoff=0.5):
        if table[match] not in suggestions:
            suggestions.append(table[match])
    known = sorted(str(n) for n in frame.index)
    raise CatalogLookupError(name, kind, suggestions[:3], known)


# ---------------------------------------------------------------------------
# Catalog frames
# ---------------------------------------------------------------------------


def _coerce(
    raw: pd.DataFrame, fields: tuple[str, ...], numeric: tuple[str, ...], kind: str
) -> pd.DataFrame:
    """Check columns, convert numeric columns to float64 and text columns to str."""
    expected = ["name", *fields]
    if list(raw.columns) != expected:
        raise CatalogError(
            f"{kind} catalog columns are {list(raw.columns)}; expected exactly {expected}"
        )
    frame = raw.copy()
    frame["name"] = frame["name"].astype(str).str.strip()
    if (frame["name"] == "").any():
        raise CatalogError(f"{kind} catalog has a row without a name")
    duplicated = frame["name"][frame["name"].duplicated()].tolist()
    if duplicated:
        raise CatalogError(f"{kind} catalog has duplicate names: {duplicated}")
    for column in fields:
        if column in numeric:
            values = pd.to_numeric(frame[column], errors="coerce").astype("float64")
            bad = frame["name"][values.isna()].tolist()
            if bad:
                raise CatalogError(f"{kind} catalog: missing or non-numeric {column!r} for {bad}")
            frame[column] = values
        else:
            frame[column] = frame[column].fillna("").astype(str)
    return frame.set_index("name")


def _check_gpus(frame: pd.DataFrame) -> None:
    for name, row in frame.iterrows():
        for column in GPU_NUMERIC:
            value = float(row[column])
            if value < 0 or (column in _GPU_POSITIVE and value <= 0) or math.isinf(value):
                raise CatalogError(f"gpu {name!r}: {column} = {value} is out of range")
        if row["family"] not in GPU_FAMILIES:
            raise CatalogError(
                f"gpu {name!r}: family {row['family']!r} not in {sorted(GPU_FAMILIES)}"
            )
        if row["link"] not in GPU_LINKS:
            raise CatalogError(f"gpu {name!r}: link {row['link']!r} not in {sorted(GPU_LINKS)}")
    _lookup_table(frame, normalise_gpu)


def _check_models(frame: pd.DataFrame) -> None:
    for name, row in frame.iterrows():
        for column in MODEL_NUMERIC:
            value = float(row[column])
            if value < 0 or (column in _MODEL_POSITIVE and value <= 0) or math.isinf(value):
                raise CatalogError(f"model {name!r}: {column} = {value} is out of range")
        if row["active_params_b"] > row["params_b"] * (1 + 1e-9):
            raise CatalogError(f"model {name!r}: active_params_b exceeds params_b")
        if row["attention_heads"] % row["kv_heads"] != 0:
            raise CatalogError(f"model {name!r}: attention_heads is not a multiple of kv_heads")
        moe = (row["experts"] > 0, row["experts_per_token"] > 0, row["expert_params_b"] > 0)
        if any(moe) and not all(moe):
            raise CatalogError(
                f"model {name!r}: experts, experts_per_token and expert_params_b must all be 0 "
                "(dense) or all be positive (MoE)"
            )
        if row["experts_per_token"] > row["experts"] or row["expert_params_b"] >= row["params_b"]:
            raise CatalogError(f"model {name!r}: inconsistent MoE fields")
        local = (row["local_attention_window"], row["local_attention_layers"])
        if (local[0] > 0) != (local[1] > 0) or local[1] > row["layers"]:
            raise CatalogError(f"model {name!r}: local_attention_window and "
                               "local_attention_layers must both be 0 (every layer attends to "
                               "the whole context) or both positive, with no more local layers "
                               "than layers")
        mla = (row["mla_kv_dim"], row["mla_rope_dim"])
        if (mla[0] > 0) != (mla[1] > 0) or mla[1] >= max(mla[0], 1):
            raise CatalogError(f"model {name!r}: mla_rope_dim must be 0 (no MLA) or positive and "
                               "below mla_kv_dim")
        for column in ("weight_dtype", "expert_weight_dtype", "kv_dtype"):
            # "" = not known (a config.json whose quantization reportgen cannot read): the
            # scenario must then type the precision (validate.py says so)
            if row[column] not in (*DTYPES, ""):
                raise CatalogError(f"model {name!r}: {column} {row[column]!r} is not one of "
                                   f"{', '.join(DTYPES)}")
    _lookup_table(frame, normalise_model)


def _upsert(
    frame: pd.DataFrame,
    name: str,
    fields: Mapping[str, object],
    columns: tuple[str, ...],
    numeric: tuple[str, ...],
    kind: str,
    norm: Callable[[str], str],
) -> pd.DataFrame:
    unknown = sorted(set(fields) - set(columns))
    if unknown:
        raise CatalogError(f"unknown {kind} field(s) {unknown}; allowed: {list(columns)}")
    if not name.strip():
        raise CatalogError(f"a {kind} override needs a non-empty name")
    existing = _lookup_table(frame, norm).get(norm(name))
    canonical = existing if existing is not None else name.strip()
    if existing is not None:
        row: dict[str, object] = {c: frame.at[existing, c] for c in columns}
        # Blank text (e.g. the empty aliases of read_hf_config) keeps the existing value.
        fields = {k: v for k, v in fields.items() if k in numeric or str(v).strip()}
    else:
        row = {c: (math.nan if c in numeric else "") for c in columns}
    row.update(fields)
    rest = frame.drop(index=canonical, errors="ignore").reset_index()
    new = pd.DataFrame([{"name": canonical, **row}])
    combined = pd.concat([rest.astype(object), new.astype(object)], ignore_index=True)
    return _coerce(combined, columns, numeric, kind)


def _priced(hardware: pd.DataFrame, book: PriceBook, basis: str, as_of: dt.date
            ) -> pd.DataFrame:
    """The GPU catalog rows with the price fields of ``basis`` from ``book``."""
    hardware = hardware[list(GPU_CATALOG_FIELDS)]
    return pd.concat([hardware, price_fields(hardware.index, book, basis, as_of)], axis=1)


@dataclass(frozen=True, eq=False)
class Catalogs:
    """The GPU and model catalogs, indexed by canonical name (treat the frames as read-only)."""

    gpus: pd.DataFrame
    models: pd.DataFrame

    def with_model(self, name: str, fields: Mapping[str, object]) -> Catalogs:
        """Return a copy with model ``name`` added, or its row updated with ``fields``.

        If ``name`` resolves to an existing model (name, alias or HF id), that row is updated
        and keeps its canonical name (blank text fields keep their old value); otherwise a new
        row is created and every numeric field must be given. Raises :class:`CatalogError` if
        the result is inconsistent (missing numbers, an alias already used by another row).
        """
        models = _upsert(
            self.models, name, fields, MODEL_FIELDS, MODEL_NUMERIC, "model", normalise_model
        )
        _check_models(models)
        return replace(self, models=models)

    def with_prices(self, book: PriceBook, basis: str, as_of: dt.date) -> Catalogs:
        """Return a copy whose GPUs are priced from ``book`` at ``basis`` (staleness judged at
        ``as_of``)."""
        return replace(self, gpus=_priced(self.gpus, book, basis, as_of))

    def with_gpu(self, name: str, fields: Mapping[str, object]) -> Catalogs:
        """Return a copy with GPU ``name`` added, or its row updated with ``fields``.

        Same rules as :meth:`with_model`.
        """
        gpus = _upsert(self.gpus, name, fields, GPU_FIELDS, GPU_NUMERIC_ALL, "gpu",
                       normalise_gpu)
        _check_gpus(gpus)
        return replace(self, gpus=gpus)


def _read_csv(
    path: Path, fields: tuple[str, ...], numeric: tuple[str, ...], kind: str
) -> pd.DataFrame:
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, pd.errors.ParserError) as exc:
        raise CatalogError(f"cannot read {kind} catalog {path.name}: {exc}") from exc
    return _coerce(raw, fields, numeric, kind)


@functools.cache
def _load_shipped() -> Catalogs:
    hardware = _read_csv(DATA_DIR / "gpus.csv", GPU_CATALOG_FIELDS, GPU_NUMERIC, "gpu")
    _check_gpus(hardware)
    book = shipped_price_book(lambda name: _resolve(hardware, name, "gpu", normalise_gpu))
    gpus = _priced(hardware, book, DEFAULT_BASIS, dt.date.today())
    models = _read_csv(DATA_DIR / "models.csv", MODEL_FIELDS, MODEL_NUMERIC, "model")
    _check_models(models)
    return Catalogs(gpus=gpus, models=models)


def load_catalogs(as_of: dt.date | None = None) -> Catalogs:
    """Return the shipped, validated catalogs (files read once; each call gets fresh copies),
    GPUs priced from the shipped price book on demand, staleness judged at ``as_of`` (default
    today)."""
    shipped = _load_shipped()
    catalogs = Catalogs(gpus=shipped.gpus.copy(), models=shipped.models.copy())
    if as_of is None:
        return catalogs
    book = shipped_price_book(lambda name: _resolve(catalogs.gpus, name, "gpu", normalise_gpu))
    return catalogs.with_prices(book, DEFAULT_BASIS, as_of)


def resolve_gpu(catalogs: Catalogs, name: str) -> str:
    """Return the canonical GPU name for ``name`` or raise :class:`CatalogLookupError`."""
    return _resolve(catalogs.gpus, name, "gpu", normalise_gpu)


def resolve_model(catalogs: Catalogs, name: str) -> str:
    """Return the canonical model name for ``name`` or raise :class:`CatalogLookupError`."""
    return _resolve(catalogs.models, name, "model", normalise_model)


# ---------------------------------------------------------------------------
# Parameter counting from a Hugging Face config
# ---------------------------------------------------------------------------

_LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")
_HIDDEN_KEYS = ("hidden_size", "n_embd", "d_model")
_HEAD_KEYS = ("num_attention_heads", "n_head", "n_heads")
_KV_KEYS = ("num_key_value_heads", "num_kv_heads", "n_kv_heads")
_FFN_KEYS = ("intermediate_size", "n_inner", "ffn_hidden_size")
_CONTEXT_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length")
_EXPERT_KEYS = ("num_local_experts", "num_experts", "n_routed_experts")
_TOPK_KEYS = ("num_experts_per_tok", "experts_per_token", "num_experts_per_token")
# Plain (non-gated) MLPs with LayerNorm (weight + bias); everything else is gated with RMSNorm.
_NON_GATED = frozenset({"gptj", "falcon", "gpt_neox", "gpt2"})
_TIED_BY_DEFAULT = frozenset({"gemma", "gemma2", "falcon"})


# Bounds of the config.json fields reportgen reads (first key of each group): a value outside
# them is a typo or a hostile file, and would make the arithmetic overflow or run long.
_CONFIG_BOUNDS: dict[str, tuple[int, int]] = {
    "num_hidden_layers": (1, 10_000),
    "hidden_size": (1, 1_000_000),
    "num_attention_heads": (1, 10_000),
    "num_key_value_heads": (1, 10_000),
    "head_dim": (1, 100_000),
    "vocab_size": (1, 10_000_000),
    "max_position_embeddings": (1, 100_000_000),
    "intermediate_size": (1, 10_000_000),
    "moe_intermediate_size": (0, 10_000_000),
    "num_local_experts": (0, 100_000),
    "num_experts_per_tok": (1, 100_000),
    "kv_lora_rank": (0, 1_000_000),
    "q_lora_rank": (0, 1_000_000),
    "qk_rope_head_dim": (1, 100_000),
    "qk_nope_head_dim": (0, 100_000),
    "v_head_dim": (1, 100_000),
    "first_k_dense_replace": (0, 10_000),
    "moe_layer_freq": (1, 10_000),
    "decoder_sparse_step": (1, 10_000),
    "interleave_moe_layer_step": (1, 10_000),
    "intermediate_size_mlp": (1, 10_000_000),
    "n_shared_experts": (0, 100_000),
    "shared_expert_intermediate_size": (0, 10_000_000),
    "mlp_only_layers": (0, 10_000),
    "sliding_window": (1, 100_000_000),
    "attention_chunk_size": (1, 100_000_000),
    "sliding_window_pattern": (1, 10_000),
    "no_rope_layer_interval": (1, 10_000),
}
MAX_CONFIG_BYTES = 10 * 1024 * 1024  # a config.json is a few KiB; the largest hold label maps
MAX_CONFIG_PARAMS_B = 100_000.0  # the bound of the params_b override column
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class ConfigError(ValueError):
    """A config.json cannot be used: ``found`` names the field (and the file, once known) and
    what it holds, ``expected`` what would do."""

    def __init__(self, found: str, expected: str = "") -> None:
        self.found = found
        self.expected = expected
        super().__init__(f"{found}; expected {expected}" if expected else found)

    def in_file(self, shown: str) -> ConfigError:
        """The same problem, naming the file it is in."""
        return ConfigError(f"{shown}: {self.found}", self.expected)


def _json_value(value: object) -> str:
    """A config value as the file writes it, shortened: 1e+29, Infinity, "32", true."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "Infinity" if value == math.inf else "-Infinity" if value == -math.inf else (
            "NaN" if math.isnan(value) else repr(value))
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, int) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _find(cfg: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[str, Any]:
    """The first of ``keys`` the config sets (not null) and its value; ("", None) if none."""
    for key in keys:
        value = cfg.get(key)
        if value is not None:
            return key, value
    return "", None


def _whole(key: str, value: Any, bounds: tuple[int, int]) -> int:
    """``value`` as a whole number within ``bounds``, or ConfigError naming the field."""
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, int | float):
        problem = "not a number"
    elif isinstance(value, float) and not math.isfinite(value):
        problem = "not a finite number"
    elif value != int(value):
        problem = "not a whole number"
    elif not low <= value <= high:
        problem = "out of range"
    else:
        return int(value)
    raise ConfigError(f'field "{key}" is {_json_value(value)} ({problem})',
                      f"a whole number from {low:,} to {high:,}")


def _need_int(cfg: Mapping[str, Any], keys: tuple[str, ...],
              bounds: tuple[int, int] | None = None) -> int:
    key, value = _find(cfg, keys)
    if value is None:
        alternatives = f" (or {', '.join(keys[1:])})" if len(keys) > 1 else ""
        raise ConfigError(f'field "{keys[0]}"{alternatives} is missing',
                          "every field that describes the architecture")
    return _whole(key, value, bounds or _CONFIG_BOUNDS.get(keys[0], (0, 10_000_000)))


def _opt_int(cfg: Mapping[str, Any], keys: tuple[str, ...], default: int,
             bounds: tuple[int, int] | None = None) -> int:
    """The field if the config sets it to anything but null or 0-like absence, else default."""
    return _need_int(cfg, keys, bounds) if _find(cfg, keys)[1] is not None else default


def _flag_int(cfg: Mapping[str, Any], key: str, default: int) -> int:
    """An optional field where null, false and 0 all mean "not set"."""
    value = cfg.get(key)
    return default if value is None or value is False or value == 0 else _need_int(cfg, (key,))


def _flatten(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Merge a nested ``text_config`` (multimodal wrappers) over the top level."""
    flat = dict(cfg)
    text = cfg.get("text_config")
    if isinstance(text, Mapping) and "hidden_size" not in cfg:
        flat.update(text)
    return flat


@dataclass(frozen=True)
class _Arch:
    model_type: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    mla_kv_dim: int
    mla_rope_dim: int
    experts: int
    top_k: int
    max_context: int
    local_window: int
    local_layers: int
    total: float
    active: float
    expert: float


def _local_attention(c: Mapping[str, Any], mt: str, n_layers: int) -> tuple[int, int]:
    """The window of the layers that attend locally and how many layers do: (0, 0) when every
    layer attends to the whole context.

    Llama-4 attends within chunks of ``attention_chunk_size`` in its RoPE layers (all but every
    ``no_rope_layer_interval``-th, or those ``no_rope_layers`` marks 1); the others slide a
    ``sliding_window``: the layers ``layer_types`` marks "sliding_attention" (gpt-oss, newer
    configs), all but every ``sliding_window_pattern``-th (Gemma 3), every other one from the
    first (Gemma 2, gpt-oss without layer_types). Qwen's ``use_sliding_window: false`` switches
    its window off. A window on every layer (Mistral 7B v0.1, Phi-3), or on none, is not
    applied: TensorRT-LLM's published Mistral 7B v0.1 runs at 5,000- and 20,000-token prompts
    are as fast as full attention predicts, two to four times slower than its 4,096-token
    window would make them."""
    chunk = _flag_int(c, "attention_chunk_size", 0)
    if chunk:
        marks = c.get("no_rope_layers")
        if isinstance(marks, list) and len(marks) == n_layers:
            local = sum(1 for m in marks if m)
        else:
            local = n_layers - n_layers // _flag_int(c, "no_rope_layer_interval", 4)
        return (chunk, local) if 0 < local < n_layers else (0, 0)
    window = _flag_int(c, "sliding_window", 0)
    if not window or c.get("use_sliding_window") is False:
        return 0, 0
    types = c.get("layer_types")
    pattern = _flag_int(c, "sliding_window_pattern", 0)
    if isinstance(types, list) and len(types) == n_layers:
        local = sum(1 for t in types if t == "sliding_attention")
    elif pattern:
        local = n_layers - n_layers // pattern
    elif mt.startswith("gemma2") or mt == "gpt_oss":
        local = (n_layers + 1) // 2
    else:
        local = n_layers
    return (window, local) if 0 < local < n_layers else (0, 0)


def _analyse(cfg: Mapping[str, Any]) -> _Arch:
    c = _flatten(cfg)
    mt = str(c.get("model_type", "")).lower()
    n_layers = _need_int(c, _LAYER_KEYS)
    h = _need_int(c, _HIDDEN_KEYS)
    n_heads = _need_int(c, _HEAD_KEYS)
    vocab = _need_int(c, ("vocab_size",))
    max_context = _need_int(c, _CONTEXT_KEYS)
    if (
        c.get("multi_query")
        and not c.get("new_decoder_architecture")
        and _find(c, _KV_KEYS) is None
    ):
        n_kv = 1
    else:
        n_kv = _opt_int(c, _KV_KEYS, n_heads, (1, n_heads))
    if n_heads % n_kv:
        raise ConfigError(f'field "{_find(c, _HEAD_KEYS)[0]}" ({n_heads}) is not a multiple of '
                          f'"{_find(c, _KV_KEYS)[0]}" ({n_kv})',
                          "query heads shared evenly by the key/value heads")
    head_dim = _opt_int(c, ("head_dim",), max(1, h // n_heads))
    non_gated = mt in _NON_GATED
    llama4 = mt in {"llama4", "llama4_text"}
    norm_size = 2 * h if non_gated else h  # LayerNorm has a bias, RMSNorm does not
    tie = bool(c.get("tie_word_embeddings", mt in _TIED_BY_DEFAULT))

    # Embeddings, output head, final norm.
    total = float(vocab * h * (1 if tie else 2) + norm_size)
    if mt == "gptj":
        total += vocab  # lm_head bias

    # Attention (per layer).
    mla_kv_dim = mla_rope_dim = 0
    kv_lora = _flag_int(c, "kv_lora_rank", 0)
    if kv_lora:
        rope = _need_int(c, ("qk_rope_head_dim",))
        nope = _need_int(c, ("qk_nope_head_dim",))
        v_dim = _need_int(c, ("v_head_dim",))
        q_lora = _flag_int(c, "q_lora_rank", 0)
        kv_r = kv_lora
        q_out = n_heads * (nope + rope)
        q = h * q_lora + q_lora + q_lora * q_out if q_lora else h * q_out
        attn = q + h * (kv_r + rope) + kv_r + kv_r * n_heads * (nope + v_dim) + n_heads * v_dim * h
        head_dim = nope + rope
        mla_kv_dim = kv_r + rope
        mla_rope_dim = rope
    else:
        q_dim, kv_dim = n_heads * head_dim, n_kv * head_dim
        attn = h * q_dim + 2 * h * kv_dim + q_dim * h
        bias = bool(c.get("attention_bias") or c.get("bias"))
        if bias or c.get("qkv_bias") or mt in {"qwen2", "qwen2_moe"}:
            attn += q_dim + 2 * kv_dim
        if bias:
            attn += h
        if mt in {"qwen3", "qwen3_moe"}:
            attn += 2 * head_dim  # q_norm, k_norm
        if mt == "gpt_oss":
            attn += n_heads  # attention sinks
    if mt == "gptj" or (mt == "falcon" and not c.get("new_decoder_architecture")):
        norms = 1
    elif mt.startswith("gemma2") or mt.startswith("gemma3"):
        norms = 4
    else:
        norms = 2
    per_layer_common = attn + norms * norm_size

    # Feed-forward: dense layers and MoE layers.
    def dense_mlp() -> int:
        inter = _opt_int(c, _FFN_KEYS, 4 * h) if non_gated else _need_int(c, _FFN_KEYS)
        if llama4:  # Llama-4: intermediate_size is the expert's, the dense layers' is separate
            inter = _flag_int(c, "intermediate_size_mlp", inter)
        if non_gated:
            biased = mt in {"gptj", "gpt_neox", "gpt2"} or bool(c.get("bias"))
            return 2 * h * inter + ((inter + h) if biased else 0)
        return 3 * h * inter + ((2 * inter + h) if c.get("mlp_bias") else 0)

    n_experts = _opt_int(c, _EXPERT_KEYS, 0, _CONFIG_BOUNDS["num_local_experts"])
    top_k = _opt_int(c, _TOPK_KEYS, 0, (1, n_experts)) if n_experts else 0
    if n_experts and not top_k:
        raise ConfigError(f'field "{_find(c, _EXPERT_KEYS)[0]}" is {n_experts} but '
                          '"num_experts_per_tok" is missing', "both for a mixture of experts")
    if n_experts:
        first_dense = _flag_int(c, "first_k_dense_replace", 0)
        freq = _flag_int(c, "moe_layer_freq", 1)
        # Qwen's decoder_sparse_step and Llama-4's interleave_moe_layer_step: MoE in every
        # step-th layer (layers step-1, 2*step-1, ...)
        step = (_flag_int(c, "decoder_sparse_step", 0)
                or _flag_int(c, "interleave_moe_layer_step", 1))
        listed = c.get("mlp_only_layers") or []
        if not isinstance(listed, list) or len(listed) > n_layers:
            raise ConfigError(f'field "mlp_only_layers" is {_json_value(listed)}',
                              f"a list of at most {n_layers:,} layer numbers")
        mlp_only = {_whole("mlp_only_layers", i, (0, n_layers)) for i in listed}
        moe_layers = sum(
            1
            for i in range(n_layers)
            if i >= first_dense and i % freq == 0 and (i + 1) % step == 0 and i not in mlp_only
        )
    else:
        moe_layers = 0
    dense_layers = n_layers - moe_layers

    expert_total = 0.0
    active = 0.0
    if moe_layers:
        e_inter = _opt_int(c, ("moe_intermediate_size",), 0) or _need_int(c, _FFN_KEYS)
        per_expert = 3 * h * e_inter + ((2 * e_inter + h) if mt == "gpt_oss" else 0)
        router = h * n_experts + (n_experts if mt in {"gpt_oss", "deepseek_v3"} else 0)
        shared = _flag_int(c, "n_shared_experts", 0) * 3 * h * e_inter
        if llama4:
            shared += 3 * h * e_inter  # one ungated shared expert in every MoE layer
        shared_inter = _flag_int(c, "shared_expert_intermediate_size", 0)
        if shared_inter:
            shared += 3 * h * shared_inter + h  # shared expert + its sigmoid gate
        expert_total = float(moe_layers * n_experts * per_expert)
        moe_fixed = moe_layers * (router + shared)
        active_experts = float(moe_layers * top_k * per_expert)
    else:
        moe_fixed = 0
        active_experts = 0.0
    dense_ffn = dense_layers * dense_mlp() if dense_layers else 0

    non_expert = total + n_layers * per_layer_common + dense_ffn + moe_fixed
    total = non_expert + expert_total
    active = non_expert + active_experts
    local_window, local_layers = _local_attention(c, mt, n_layers)
    return _Arch(
        model_type=mt,
        layers=n_layers,
        hidden=h,
        heads=n_heads,
        kv_heads=n_kv,
        head_dim=head_dim,
        mla_kv_dim=mla_kv_dim,
        mla_rope_dim=mla_rope_dim,
        experts=n_experts if moe_layers else 0,
        top_k=top_k if moe_layers else 0,
        max_context=max_context,
        local_window=local_window,
        local_layers=local_layers,
        total=total,
        active=active,
        expert=expert_total,
    )


# ---------------------------------------------------------------------------
# The precision a checkpoint ships in (config.json torch_dtype and quantization_config)
# ---------------------------------------------------------------------------

# torch_dtype → the precision it is served in (vLLM's dtype "auto" serves float32 as fp16).
_TORCH_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp16",
                 "float": "fp16"}
_QUANT_METHODS = {"fp8": "fp8", "fbgemm_fp8": "fp8", "mxfp4": "mxfp4"}


def _bits_dtype(bits: object, kind: object) -> str:
    """A compressed-tensors / GPTQ-style weight description as a precision ("" if none fits)."""
    floating = str(kind).lower() == "float"
    if bits == 8:
        return "fp8" if floating else "int8"
    if bits == 4:
        return "fp4" if floating else "int4"
    return ""


def _quantized(q: Mapping[str, Any]) -> tuple[str, str]:
    """(weight precision, KV precision) a quantization_config states ("" where it states none
    reportgen reads)."""
    method = str(q.get("quant_method", "")).lower()
    kv = ""
    if method in _QUANT_METHODS:
        weights = _QUANT_METHODS[method]
    elif method in ("awq", "gptq", "awq_marlin", "gptq_marlin"):
        weights = _bits_dtype(q.get("bits", q.get("w_bit")), "int")
    elif method == "bitsandbytes":
        weights = "int4" if q.get("load_in_4bit") else "int8" if q.get("load_in_8bit") else ""
    elif method == "modelopt":
        algo = str(q.get("quant_algo", "")).upper()
        weights = {"FP8": "fp8", "NVFP4": "fp4", "W4A16_AWQ": "int4"}.get(algo, "")
        kv = "fp8" if str(q.get("kv_cache_quant_algo", "")).upper() == "FP8" else ""
    elif method == "compressed-tensors":
        groups = q.get("config_groups")
        first = next(iter(groups.values()), None) if isinstance(groups, Mapping) else None
        scheme = first.get("weights") if isinstance(first, Mapping) else None
        weights = (_bits_dtype(scheme.get("num_bits"), scheme.get("type"))
                   if isinstance(scheme, Mapping) else "")
        cache = q.get("kv_cache_scheme")
        if isinstance(cache, Mapping):
            kv = _bits_dtype(cache.get("num_bits"), cache.get("type"))
    else:
        weights = ""
    return weights, kv


def _precision(cfg: Mapping[str, Any], moe: bool) -> dict[str, str]:
    """The model row's shipped precisions: ``weight_dtype`` (the weights other than routed
    experts), ``expert_weight_dtype``, ``kv_dtype`` and ``precision_source``; a precision the
    config states in a way reportgen does not read is "" (the scenario must type it)."""
    c = _flatten(cfg)
    torch_key, torch_value = _find(c, ("torch_dtype", "dtype"))
    served = _TORCH_DTYPES.get(str(torch_value).lower(), "bf16") if torch_value else "bf16"
    said = (f"{torch_key} {_clean(torch_value, 40)}" if torch_value
            else "no torch_dtype (16-bit assumed)")
    q = c.get("quantization_config")
    if q is None:
        return {"weight_dtype": served, "expert_weight_dtype": served, "kv_dtype": served,
                "precision_source": f"config.json: {said}, no quantization_config"}
    weights, kv = _quantized(q) if isinstance(q, Mapping) else ("", "")
    method = _clean(q.get("quant_method", "") if isinstance(q, Mapping) else type(q).__name__, 40)
    skipped = (q.get("modules_to_not_convert") or q.get("ignore") or q.get("ignored_layers")
               if isinstance(q, Mapping) else None)
    # An MoE checkpoint that leaves attention unquantized quantizes only its experts (gpt-oss).
    experts_only = moe and isinstance(skipped, list) and any("attn" in str(m) for m in skipped)
    rest = served if experts_only else weights
    read = (f"quantization_config quant_method {method!r} gives {weights} "
            + ("routed experts, the other weights as " + served if experts_only else "weights")
            if weights else
            f"quantization_config quant_method {method!r} is not one reportgen reads "
            "(fp8, mxfp4, awq, gptq, bitsandbytes, modelopt, compressed-tensors): type "
            "weight_dtype")
    return {"weight_dtype": rest, "expert_weight_dtype": weights, "kv_dtype": kv or served,
            "precision_source": f"config.json: {said}; {read}"}


def count_params(cfg: Mapping[str, Any]) -> tuple[float, float, float]:
    """Count parameters of an HF ``config.json`` dict: (total, active per token, routed experts).

    Counts embeddings (once if tied), attention (GQA, biases, DeepSeek MLA), MLPs (gated or
    plain), MoE routers, shared and routed experts, and norms. Multi-token-prediction heads
    (DeepSeek ``num_nextn_predict_layers``) are not counted. Raises ``ValueError`` naming the
    missing key when the config lacks a needed field.
    """
    arch = _analyse(cfg)
    return arch.total, arch.active, arch.expert


def read_hf_config(path: Path) -> dict[str, float | str]:
    """Read a local Hugging Face ``config.json`` into a model row (all of ``MODEL_FIELDS``);
    see :func:`read_config_file`."""
    return read_config_file(path)[0]


def _clean(text: object, limit: int = 200) -> str:
    """Text from a config, safe in a workbook cell and a PDF: controls dropped, shortened."""
    return _UNPRINTABLE.sub("", str(text))[:limit]


def read_config_file(path: Path, shown: str | None = None
                     ) -> tuple[dict[str, float | str], InputFile]:
    """Read a local Hugging Face ``config.json`` into a model row (all of ``MODEL_FIELDS``) and
    the identity of the file read.

    The file must be a regular file of at most MAX_CONFIG_BYTES (see reportgen.inputfiles);
    every field used must be a whole number within its bound (_CONFIG_BOUNDS: NaN, Infinity,
    1e300 or true are refused by name), and the parameters counted from them at most
    MAX_CONFIG_PARAMS_B billion. Parameter counts come from :func:`count_params`; numeric
    values are floats. Raises :class:`ConfigError` naming the file (as ``shown``, default
    ``path``) and the field.
    """
    shown = shown if shown is not None else str(path)
    expected = "a readable Hugging Face config.json"
    try:
        data, origin = read_input(path, what="a Hugging Face config.json", shown=shown,
                                  limit=MAX_CONFIG_BYTES,
                                  too_big="(a config.json is a few KiB): is it the right file?")
    except InputFileError as err:
        raise ConfigError(str(err).rstrip("."), expected) from None
    try:
        # NaN and Infinity (not JSON, but Python writes them) become floats, refused by field
        cfg = json.loads(data.decode("utf-8"), parse_constant=float)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{shown} is not UTF-8 text (byte {exc.start:,})", expected) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{shown} is not valid JSON ({exc.msg}: line {exc.lineno}, column "
                          f"{exc.colno})", expected) from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number; nesting 100,000 deep
        detail = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise ConfigError(f"{shown} is not usable JSON ({detail})", expected) from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{shown} holds a JSON {type(cfg).__name__}, not an object",
                          "a Hugging Face config.json ({...} with the model's fields)")
    try:
        arch = _analyse(cfg)
    except ConfigError as err:
        raise err.in_file(shown) from None
    if arch.total / 1e9 > MAX_CONFIG_PARAMS_B:
        raise ConfigError(
            f"{shown}: the parameters counted from its fields come to "
            f"{arch.total / 1e9:,.0f} B", f"at most {MAX_CONFIG_PARAMS_B:,.0f} B; check "
            "hidden_size, intermediate_size, vocab_size and the expert counts")
    architectures = cfg.get("architectures")
    if isinstance(architectures, list) and architectures and isinstance(architectures[0], str):
        architecture = _clean(architectures[0])
    else:
        architecture = _clean(arch.model_type)
    name_or_path = _clean(cfg.get("_name_or_path") or "")
    # A local config describes its own checkpoint: it is named by its path, and the Hugging Face
    # id it was derived from is only recorded (it may be a catalog model's id).
    row: dict[str, float | str] = {
        "hf_id": "",
        "aliases": "",
        "architecture": architecture,
        "params_b": arch.total / 1e9,
        "active_params_b": arch.active / 1e9,
        "layers": float(arch.layers),
        "hidden_size": float(arch.hidden),
        "attention_heads": float(arch.heads),
        "kv_heads": float(arch.kv_heads),
        "head_dim": float(arch.head_dim),
        "mla_kv_dim": float(arch.mla_kv_dim),
        "mla_rope_dim": float(arch.mla_rope_dim),
        "experts": float(arch.experts),
        "experts_per_token": float(arch.top_k),
        "expert_params_b": arch.expert / 1e9,
        "local_attention_window": float(arch.local_window),
        "local_attention_layers": float(arch.local_layers),
        "max_context": float(arch.max_context),
        **_precision(cfg, moe=arch.experts > 0),
        "source": f"local config.json ({Path(path).parent.name}/{Path(path).name})",
        "source_date": "",
        "notes": "parameters counted from the architecture by reportgen.catalog.count_params"
        + (f"; _name_or_path {name_or_path}" if name_or_path else ""),
    }
    return row, origin
