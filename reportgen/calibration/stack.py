"""The serving stack behind each load-test run: what the result files do not say (GPU, tensor
parallelism, precisions, engine and its version, replicas behind the endpoint), from command-line
flags, a small stack file, or the labels a file carries; the model and date where the file does.

Precedence: a flag applies to every file and wins; then the stack file's row for the result file
(its ``file`` cell: the path as given or its name), then its row with a blank ``file``; then what
the result file itself says (``--metadata gpu=…`` in vLLM, ``--label gpu=…`` in GuideLLM).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from reportgen import schema
from reportgen.catalog import (
    CatalogError,
    CatalogLookupError,
    Catalogs,
    read_hf_config,
    resolve_gpu,
    resolve_model,
)
from reportgen.loadtest.files import ResultFileError
from reportgen.loadtest.run import Run
from reportgen.readers import read_table

FIELDS = ("model", "gpu", "tp", "weight_dtype", "kv_dtype", "engine", "engine_version",
          "instances", "max_batch", "date")
REQUIRED = ("gpu", "tp", "weight_dtype", "engine", "engine_version")
HELP = {
    "model": "the model served (catalog name, Hugging Face id or config.json)",
    "gpu": "the GPU (e.g. H100)", "tp": "tensor parallelism per replica (1, 2, 4 or 8)",
    "weight_dtype": f"weight precision ({', '.join(schema.DTYPES)})",
    "kv_dtype": "KV-cache precision (default bf16)",
    "engine": f"serving engine ({', '.join(schema.ENGINES)})",
    "engine_version": "the engine's version (e.g. 0.11.0)",
    "instances": "replicas behind the tested endpoint (default 1)",
    "max_batch": "the engine's cap on running sequences (vLLM --max-num-seqs), if known",
    "date": "the date of the load test (YYYY-MM-DD)",
}  # fmt: skip


@dataclass(frozen=True)
class Stack:
    """The stack a run measured, every fact checked."""

    model: str  # catalog name
    gpu: str  # catalog name
    tp: int
    weight_dtype: str
    kv_dtype: str
    engine: str
    engine_version: str
    instances: int
    max_batch: float  # NaN: not given
    date: str  # ISO date of the load test
    date_source: str  # where the date came from


Facts = Mapping[str, str]


def read_stack_file(path: Path) -> dict[str, dict[str, str]]:
    """The stack file's rows by their ``file`` cell ("" = every file)."""
    table = read_table(path)
    header = [h.strip().lower() for h in table.header]
    unknown = [h for h in header if h and h not in (*FIELDS, "file")]
    if unknown:
        raise ResultFileError([f"{table.source}: unknown column{'s' if len(unknown) > 1 else ''} "
                               f"{', '.join(unknown)}; expected file, {', '.join(FIELDS)}. "
                               "Rename or delete them."])
    rows: dict[str, dict[str, str]] = {}
    for number, cells in table.rows:
        record = {h: "" if c is None else str(c).strip() for h, c in zip(header, cells,
                                                                          strict=False) if h}
        name = record.pop("file", "")
        if name in rows:
            raise ResultFileError([f"{table.source}, row {number}: a second row for "
                                   f"{name or 'every file'}; expected one row per result file. "
                                   "Merge the rows."])
        rows[name] = {k: v for k, v in record.items() if v}
    return rows


def _merged(run: Run, flags: Facts, stack_rows: Mapping[str, Facts]) -> dict[str, str]:
    facts: dict[str, str] = {}
    if run.model:
        facts["model"] = run.model
    if run.date:
        facts["date"] = run.date
    facts.update(run.facts)
    facts.update(stack_rows.get("", {}))
    facts.update(stack_rows.get(Path(run.source).name, {}))
    facts.update(stack_rows.get(run.source, {}))
    facts.update({k: v for k, v in flags.items() if v})
    return facts


def _model_candidates(text: str) -> list[str]:
    """The model as written, then (for a local path) its last two and last parts."""
    parts = [p for p in text.replace("\\", "/").split("/") if p]
    return list(dict.fromkeys([text, "/".join(parts[-2:]), parts[-1] if parts else text]))


def _model(text: str, catalogs: Catalogs) -> tuple[str, Catalogs]:
    if text.lower().endswith(".json"):
        try:
            fields = read_hf_config(Path(text))
        except (OSError, ValueError, RecursionError) as err:
            raise ValueError(f"cannot use the model config {text}: {err}") from None
        return text, catalogs.with_model(text, {**fields, "source": f"config.json at {text}",
                                                "aliases": ""})
    for candidate in _model_candidates(text):
        try:
            return resolve_model(catalogs, candidate), catalogs
        except CatalogLookupError:
            continue
    raise ValueError(f"model {text!r} is not in the catalog; name it with --model (a catalog "
                     "name, Hugging Face id or a config.json path; `reportgen catalog models` "
                     "lists them)")


def _whole(value: str, name: str, allowed: Sequence[int] | None = None) -> int:
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not (number == int(number) if math.isfinite(number) else False) or number < 1 or (
            allowed and int(number) not in allowed):
        expected = f"one of {', '.join(map(str, allowed))}" if allowed else "a whole number ≥ 1"
        raise ValueError(f"{name} {value!r} is not {expected}")
    return int(number)


def _choice(value: str, name: str, choices: Sequence[str]) -> str:
    text = value.strip().lower()
    if text not in choices:
        raise ValueError(f"{name} {value!r} is not one of {', '.join(choices)}")
    return text


def _date(value: str, source: str) -> tuple[str, str]:
    if value:
        try:
            return dt.date.fromisoformat(value[:10]).isoformat(), "the result file or stack"
        except ValueError:
            raise ValueError(f"date {value!r} is not a date (YYYY-MM-DD)") from None
    modified = dt.datetime.fromtimestamp(Path(source).stat().st_mtime, tz=dt.UTC).date()
    return modified.isoformat(), "the result file's modification date"


def _stack(facts: Facts, source: str, catalogs: Catalogs) -> tuple[Stack, Catalogs]:
    model, catalogs = _model(facts["model"], catalogs)
    try:
        gpu = resolve_gpu(catalogs, facts["gpu"])
    except CatalogLookupError as err:
        hint = f" (did you mean {', '.join(err.suggestions)}?)" if err.suggestions else ""
        raise ValueError(f"GPU {facts['gpu']!r} is not in the catalog{hint}") from None
    date, date_source = _date(facts.get("date", ""), source)
    max_batch = (float(_whole(facts["max_batch"], "max_batch")) if facts.get("max_batch")
                 else math.nan)
    return Stack(
        model=model, gpu=gpu, tp=_whole(facts["tp"], "tp", schema.TP_VALUES),
        weight_dtype=_choice(facts["weight_dtype"], "weight_dtype", schema.DTYPES),
        kv_dtype=_choice(facts.get("kv_dtype", "bf16"), "kv_dtype", schema.DTYPES),
        engine=_choice(facts["engine"], "engine", schema.ENGINES),
        engine_version=facts["engine_version"],
        instances=_whole(facts.get("instances", "1"), "instances"), max_batch=max_batch,
        date=date, date_source=date_source,
    ), catalogs


def _missing_message(source: str, missing: Sequence[str]) -> str:
    flags = " ".join(f"--{m.replace('_', '-')} …" for m in missing)
    listed = "; ".join(f"{m}: {HELP[m]}" for m in missing)
    return (f"{source}: the file does not say {', '.join(missing)} ({listed}); give "
            f"{'them' if len(missing) > 1 else 'it'} with {flags}, or in a stack file "
            "(--stack stack.csv with columns file," + ",".join(missing) + ").")


def resolve(runs: Sequence[Run], flags: Facts, stack_rows: Mapping[str, Facts],
            catalogs: Catalogs) -> tuple[list[Stack], Catalogs]:
    """The stack of every run, and the catalogs with any model a config.json defines; one
    ResultFileError naming every missing or wrong fact per file otherwise."""
    stacks: list[Stack] = []
    problems: dict[str, str] = {}
    for run in runs:
        facts = _merged(run, flags, stack_rows)
        missing = [f for f in ("model", *REQUIRED) if not facts.get(f)]
        if missing:
            problems.setdefault(run.source, _missing_message(run.source, missing))
            continue
        try:
            stack, catalogs = _stack(facts, run.source, catalogs)
        except (ValueError, CatalogError) as err:
            problems.setdefault(run.source, f"{run.source}: {err}.")
            continue
        stacks.append(stack)
    if problems:
        raise ResultFileError(list(problems.values()))
    return stacks, catalogs
