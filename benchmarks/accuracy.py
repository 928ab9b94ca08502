"""Accuracy of the engine against published measurements, and the fit of its default efficiencies.

    python benchmarks/accuracy.py                 # score the shipped efficiency table (1 s)
    python benchmarks/accuracy.py --cv            # ... plus cross-validation (about 1 minute)
    python benchmarks/accuracy.py --refit-ablations  # ... refit under each ablation (1 minute)
    python benchmarks/accuracy.py --write         # refit, cross-validate, write efficiency.csv
    python benchmarks/accuracy.py --data PATH     # other measurements (normalised layout, or
                                                  # the reference table measured_public.csv;
                                                  # --save-measurements stores them normalised)

Prints, per measurement and in aggregate, predicted vs measured (offline output tokens/s per GPU;
batch-1 first-token latency and single-stream decode speed), the ratio, MdAPE and the share
within ±25 %, grouped by GPU, precision, model size and shape; the targets; the plain roofline's
figure on the same rows; the physics ablations. The reusable code is the package
reportgen/calibration/.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportgen import calibration as cal  # noqa: E402
from reportgen.efficiency import EFFICIENCY_FILE, load_efficiency  # noqa: E402
from reportgen.units import CONSTANTS  # noqa: E402

pd.set_option("display.width", 200)
pd.set_option("display.max_rows", 2000)
pd.set_option("display.max_colwidth", 60)

KIND_LABEL = {
    "offline_throughput": "offline throughput (TRT-LLM v0.13), output tok/s/GPU",
    "static_throughput": "static batching (TRT-LLM v0.5/0.6), output tok/s/GPU [not fitted]",
    "ttft_batch1": "batch-1 first-token latency (TRT-LLM v0.5/0.6), ms",
    "decode_batch1": "batch-1 decode speed (gpt-fast), tok/s",
}


def section(title: str) -> None:
    print(f"\n=== {title} " + "=" * max(0, 96 - len(title)))


def score_line(label: str, s: cal.Score) -> str:
    return (f"{label:<58} n={s.n:<4} MdAPE {s.mdape_pct:5.1f} %   within ±25 % "
            f"{s.within_pct:5.1f} %   measured/predicted median {s.median_ratio:.2f} "
            f"(p10 {s.p10_ratio:.2f}, p90 {s.p90_ratio:.2f})")


def print_groups(rows: pd.DataFrame, by: str | list[str], title: str) -> None:
    table = cal.group_scores(rows, by)
    table = table.rename(columns={"mdape_pct": "MdAPE %", "within_pct": "within25 %",
                                  "median_ratio": "ratio med", "p10_ratio": "p10",
                                  "p90_ratio": "p90"})
    print(f"-- {title}")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))


def per_row(rows: pd.DataFrame) -> None:
    section("per measurement (ratio = measured / predicted; * = used by the fit)")
    view = rows.assign(
        fit=np.where(rows["fitted"], "*", ""),
        tp=rows["tp"].map(lambda v: f"{v:.0f}"),
        batch=rows["batch"].map(lambda v: "" if np.isnan(v) else f"{v:.0f}"),
    )[["kind", "row_id", "model", "gpu", "tp", "precision", "shape", "batch", "measured",
       "predicted", "ratio", "ape_pct", "fit"]]
    for kind in cal.KINDS:
        part = view[view["kind"] == kind].drop(columns="kind")
        if len(part):
            print(f"-- {KIND_LABEL[kind]}")
            print(part.to_string(index=False, float_format=lambda v: f"{v:.2f}"))


def aggregate(rows: pd.DataFrame) -> dict[str, cal.Score]:
    section("aggregate (shipped efficiency table)")
    scores = {}
    for kind in cal.KINDS:
        s = cal.kind_score(rows, kind)
        if s.n:
            scores[kind] = s
            print(score_line(KIND_LABEL[kind], s))
    offline = rows[rows["kind"] == "offline_throughput"]
    print()
    print_groups(offline, ["gpu", "precision"], "offline by GPU × precision")
    print_groups(offline, "precision", "offline by precision")
    print_groups(offline, "size", "offline by model size")
    print_groups(offline, "shape", "offline by input/output length")
    print_groups(offline, "tp", "offline by tensor parallelism")
    print_groups(offline, "model", "offline by model")
    batch1 = rows[rows["kind"].isin(cal.BATCH1_KINDS)]
    print_groups(batch1, ["kind", "gpu", "precision"], "batch-1 by GPU × precision")
    static = rows[rows["kind"] == "static_throughput"]
    if len(static):
        print_groups(static, ["gpu", "precision"], "static batching by GPU × precision")
    return scores


def targets(rows: pd.DataFrame, scores: dict[str, cal.Score]) -> bool:
    section("targets")
    ok = True
    for kind, limit in cal.TARGETS_PCT.items():
        if kind in scores:
            passed = scores[kind].mdape_pct <= limit
            ok &= passed
            print(f"{KIND_LABEL[kind]:<58} MdAPE {scores[kind].mdape_pct:5.1f} % <= {limit:.0f} %"
                  f"  {'PASS' if passed else 'FAIL'}")
    offline = rows[rows["kind"] == "offline_throughput"]
    if len(offline):
        groups = cal.group_scores(offline, ["gpu", "precision"])
        worst = groups.sort_values("mdape_pct").iloc[-1]
        worst_mdape = float(worst["mdape_pct"])
        passed = worst_mdape <= cal.GROUP_TARGET_PCT
        ok &= passed
        print(f"{'worst offline GPU × precision group: ' + str(worst['group']):<58} MdAPE "
              f"{worst_mdape:5.1f} % <= {cal.GROUP_TARGET_PCT:.0f} %  "
              f"{'PASS' if passed else 'FAIL'}")
    return ok


def kind_mdapes(rows: pd.DataFrame) -> dict[str, float]:
    return {k: cal.kind_score(rows, k).mdape_pct for k in cal.KINDS}


def plain_roofline(bench: cal.Bench, table: pd.DataFrame) -> None:
    section("plain roofline (every efficiency 1.0, no step overhead) on the same rows")
    plain = bench.with_efficiency(cal.plain_roofline(table))
    rows = cal.scored_rows(plain, cal.predict(plain))
    for kind in cal.KINDS:
        s = cal.kind_score(rows, kind)
        if s.n:
            print(score_line(KIND_LABEL[kind], s))


def ablations(bench: cal.Bench, mask: np.ndarray, table: pd.DataFrame, refit: bool) -> None:
    section("physics ablations: MdAPE % with the shipped efficiencies"
            + (" | after refitting the group efficiencies" if refit else ""))
    base = cal.scored_rows(bench, cal.predict(bench))
    reference = kind_mdapes(base)
    header = f"{'ablation':<38}{'offline':>9}{'Δ':>7}{'TTFT':>8}{'Δ':>7}{'decode':>8}{'Δ':>7}"
    header += f"{'static':>8}{'Δ':>7}"
    if refit:
        header += f"   | refit: {'offline':>8}{'TTFT':>7}{'decode':>7}{'static':>7}"
    print(header)

    def line(name: str, figures: dict[str, float], refit_figures: dict[str, float] | None) -> str:
        text = f"{name:<38}"
        for kind in ("offline_throughput", "ttft_batch1", "decode_batch1", "static_throughput"):
            value = figures[kind]
            text += f"{value:9.1f}{value - reference[kind]:+7.1f}"
        if refit_figures is not None:
            text += "   |       " + "".join(
                f"{refit_figures[k]:8.1f}" for k in
                ("offline_throughput", "ttft_batch1", "decode_batch1", "static_throughput"))
        return text

    print(line("(shipped model)", reference, reference if refit else None))
    overhead = float(table[cal.SHARED_PARAMETER].iloc[0])
    for ablation in cal.ABLATIONS:
        changed, constants = cal.ablation_inputs(ablation, bench)
        rows = cal.scored_rows(changed, cal.predict(changed, constants, ablation.pin))
        refit_figures = None
        if refit:
            fitted = cal.fit_groups(changed, table, mask, overhead, constants, ablation.pin)
            again = changed.with_efficiency(fitted.table)
            refit_figures = kind_mdapes(cal.scored_rows(
                again, cal.predict(again, constants, ablation.pin)))
        print(line(ablation.name, kind_mdapes(rows), refit_figures))
    print("(Δ = change in MdAPE points against the shipped model; descriptions:)")
    for ablation in cal.ABLATIONS:
        print(f"  {ablation.name}: {ablation.description}")


def cross_validation(bench: cal.Bench, fitted: cal.Fit, mask: np.ndarray) -> None:
    section("cross-validation (out-of-fold predictions; shared step overhead kept)")
    measured = bench.measurements["measured"].to_numpy(dtype=float)
    kind = bench.measurements["kind"].to_numpy()
    in_sample = cal.predict(bench.with_efficiency(fitted.table))

    def report(label: str, predicted: np.ndarray, rows: np.ndarray) -> None:
        for k in cal.KINDS:
            sel = rows & (kind == k) & np.isfinite(predicted)
            if sel.any():
                out = cal.score(predicted[sel], measured[sel])
                ins = cal.score(in_sample[sel], measured[sel])
                print(f"  {label:<34} {k:<19} n={out.n:<4} MdAPE {out.mdape_pct:5.1f} % "
                      f"(in-sample {ins.mdape_pct:5.1f} %)  within ±25 % {out.within_pct:5.1f} %  "
                      f"p10/p90 {out.p10_ratio:.2f}/{out.p90_ratio:.2f}")

    folds = cal.architecture_folds(bench)
    predicted = cal.cross_validate(bench, fitted, mask, folds)
    print("leave one model architecture out "
          f"({len(set(folds))} folds: {', '.join(sorted(set(folds)))})")
    report("all architectures", predicted, np.ones(len(folds), dtype=bool))
    for label in sorted(set(folds)):
        sel = (folds == label) & (kind == "offline_throughput")
        if not sel.any():
            continue
        s = cal.score(predicted[sel], measured[sel])
        print(f"    held out {label:<48} offline n={s.n:<4} MdAPE {s.mdape_pct:5.1f} %")
    keys = cal.efficiency_keys(bench)
    gpu = bench.measurements["gpu"].to_numpy(dtype=object)
    shared = {k for k in set(keys) if len({g for g, kk in zip(gpu, keys, strict=True) if kk == k})
              > 1}
    gpu_folds = np.where(np.isin(keys, list(shared)), gpu, "").astype(object)
    if shared:
        print(f"leave one GPU out (families with more than one GPU: {', '.join(sorted(shared))})")
        predicted = cal.cross_validate(bench, fitted, mask, gpu_folds)
        for label in sorted({g for g in gpu_folds if g}):
            report(f"held out {label}", predicted, gpu_folds == label)
    offline_only = mask & (kind == "offline_throughput")
    refit = cal.fit_groups(bench, fitted.table, offline_only, fitted.step_overhead_ms)
    predicted = cal.predict(bench.with_efficiency(refit.table))
    print("other sources: fit on offline throughput only, predict the rest")
    report("offline-only fit", predicted, kind != "offline_throughput")


def write(bench: cal.Bench, mask: np.ndarray, prior: pd.DataFrame, cv: bool) -> pd.DataFrame:
    section("fit (this takes about a minute)")
    fitted = cal.fit(bench, cal.start_table(prior), mask)
    table = cal.efficiency_table(bench, fitted, mask, prior)
    print(f"shared step_overhead_ms = {fitted.step_overhead_ms:.3f}; pooled loss "
          f"{fitted.loss:.4f}; batch-1 loss {fitted.batch1_loss:.4f}")
    columns = ["mfu_prefill", "mfu_decode", "mbu", "step_overhead_ms", "throughput_ratio_p10",
               "throughput_ratio_p90", "calibrated", "n_measurements", "fit_mdape_pct"]
    print(table[columns].to_string())
    cal.write_efficiency(table)
    print(f"wrote {EFFICIENCY_FILE.relative_to(ROOT)}")
    if cv:
        cross_validation(bench, fitted, mask)
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=cal.MEASUREMENTS_FILE,
                        help="measurements (default: reportgen/data/measurements_public.csv)")
    parser.add_argument("--write", action="store_true",
                        help="refit and write reportgen/data/efficiency.csv (with --cv implied)")
    parser.add_argument("--cv", action="store_true", help="print the cross-validation")
    parser.add_argument("--refit-ablations", action="store_true",
                        help="also refit the group efficiencies under each ablation")
    parser.add_argument("--save-measurements", action="store_true",
                        help="write the normalised --data rows to the shipped measurements file")
    parser.add_argument("--quiet", action="store_true", help="leave out the per-row table")
    args = parser.parse_args()

    measurements = cal.load_measurements(args.data)
    if args.save_measurements:
        cal.write_measurements(measurements)
        print(f"wrote {cal.MEASUREMENTS_FILE.relative_to(ROOT)} ({len(measurements)} rows)")
    prior = load_efficiency()
    bench = cal.build_bench(measurements, efficiency=prior)
    mask = cal.fit_rows(measurements)
    print(f"measurements: {args.data.name}, {len(measurements)} rows: "
          + ", ".join(f"{k} {n}" for k, n in measurements["kind"].value_counts().items()))
    reserve = CONSTANTS["ACTIVATION_RESERVE_GIB"]
    print(f"scenario constants: shipped (ACTIVATION_RESERVE_GIB {reserve.value:g} {reserve.unit}); "
          f"TensorRT-LLM rows: engine tensorrt-llm, max_batch {cal.TRTLLM_BENCH_MAX_BATCH}")
    table = write(bench, mask, prior, cv=True) if args.write else prior
    bench = bench.with_efficiency(table)
    rows = cal.scored_rows(bench, cal.predict(bench))
    if not args.quiet:
        per_row(rows)
    scores = aggregate(rows)
    ok = targets(rows, scores)
    plain_roofline(bench, table)
    ablations(bench, mask, table, args.refit_ablations)
    if args.cv and not args.write:
        fitted = cal.Fit(table, {}, float(table[cal.SHARED_PARAMETER].iloc[0]), np.nan, np.nan)
        cross_validation(bench, fitted, mask)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
