"""Accuracy of the engine against published measurements, and the fit of its default efficiencies.

    python benchmarks/accuracy.py                 # score the shipped efficiency table (3 s)
    python benchmarks/accuracy.py --cv            # ... plus cross-validation (3-8 minutes
                                                  # on a shared 2-core machine)
    python benchmarks/accuracy.py --refit-ablations  # ... refit under each ablation (1 minute)
    python benchmarks/accuracy.py --write         # refit, cross-validate, write efficiency.csv
    python benchmarks/accuracy.py --data PATH...  # other measurements (normalised layout, or
                                                  # the reference tables measured_public*.csv;
                                                  # --save-measurements stores them normalised)

Prints, per measurement and in aggregate, predicted vs measured (offline output tokens/s per GPU;
batch-1 first-token latency and single-stream decode speed), the ratio, MdAPE and the share
within ±25 %, grouped by GPU, precision, model size and shape; the targets; the plain roofline's
figure on the same rows; the physics ablations. Offline rows of a later engine release
(TensorRT-LLM v1.0: reportgen/data/measurements_public_2.csv) are scored, never fitted, and get
their own tables per GPU family, precision, dense vs MoE, TP, PP and release (MdAPE, share within
±25 %, median signed error = predicted ÷ measured − 1). ``--cv`` holds out one model family (the
Hugging Face architecture class), one GPU, one engine release at a time. The reusable code is the
package reportgen/calibration/.
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
    "later_release": "offline throughput (TRT-LLM v1.0, not fitted), output tok/s/GPU",
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
    if table.empty:
        return
    table = table.rename(columns={"mdape_pct": "MdAPE %", "within_pct": "within25 %",
                                  "median_ratio": "ratio med", "p10_ratio": "p10",
                                  "p90_ratio": "p90", "median_signed_pct": "signed med %",
                                  "mean_signed_pct": "signed mean %"})
    print(f"-- {title}")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))


WAVE2_GROUPS: tuple[tuple[str | list[str], str], ...] = (
    ("gpu_family", "GPU family"), ("precision", "precision"), ("moe", "dense vs MoE"),
    ("tp", "tensor parallelism"), ("pp", "pipeline stages"), ("release", "engine release"),
    (["gpu", "precision"], "GPU × precision"), ("model", "model"),
)


def fitted_release(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of the releases the efficiency table is fitted on (v0.13 offline, batch-1)."""
    return rows[~rows["later_release"].to_numpy(dtype=bool)]


def wave2_tables(offline: pd.DataFrame, title: str) -> None:
    """Offline throughput per GPU family, precision, dense vs MoE, TP, PP, engine release: MdAPE,
    share within ±25 % and the signed error (predicted ÷ measured − 1; + = over-predicted)."""
    section(title)
    for by, label in WAVE2_GROUPS:
        print_groups(offline, by, f"offline by {label}")


def per_row(rows: pd.DataFrame) -> None:
    section("per measurement (ratio = measured / predicted; * = used by the fit)")
    view = rows.assign(
        fit=np.where(rows["fitted"], "*", ""),
        tp=rows["tp"].map(lambda v: f"{v:.0f}"),
        batch=rows["batch"].map(lambda v: "" if np.isnan(v) else f"{v:.0f}"),
        pp=rows["pp"].map(lambda v: f"{v:.0f}"),
        kind=np.where(rows["later_release"], "later_release", rows["kind"]),
    )[["kind", "row_id", "model", "gpu", "tp", "pp", "precision", "shape", "batch", "measured",
       "predicted", "ratio", "ape_pct", "fit"]]
    for kind in (*cal.KINDS, "later_release"):
        part = view[view["kind"] == kind].drop(columns="kind")
        if len(part):
            print(f"-- {KIND_LABEL[kind]}")
            print(part.to_string(index=False, float_format=lambda v: f"{v:.2f}"))


def aggregate(all_rows: pd.DataFrame) -> dict[str, cal.Score]:
    section("aggregate (shipped efficiency table)")
    rows = fitted_release(all_rows)
    scores = {}
    for kind in cal.KINDS:
        s = cal.kind_score(rows, kind)
        if s.n:
            scores[kind] = s
            print(score_line(KIND_LABEL[kind], s))
    later = all_rows[all_rows["later_release"].to_numpy(dtype=bool)]
    if len(later):
        print(score_line(KIND_LABEL["later_release"], cal.kind_score(later, "offline_throughput")))
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


def targets(all_rows: pd.DataFrame, scores: dict[str, cal.Score]) -> bool:
    section("targets (fitted release)")
    rows = fitted_release(all_rows)
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
    """MdAPE per kind on the fitted release, and on the later release's offline rows."""
    figures = {k: cal.kind_score(fitted_release(rows), k).mdape_pct for k in cal.KINDS}
    later = rows[rows["later_release"].to_numpy(dtype=bool)]
    figures["later_release"] = cal.kind_score(later, "offline_throughput").mdape_pct
    return figures


ABLATION_KINDS = ("offline_throughput", "ttft_batch1", "decode_batch1", "static_throughput",
                  "later_release")


def issue_targets(offline: pd.DataFrame, label: str) -> None:
    """The wave-2 targets on held-out offline rows: MdAPE ≤ 10 % overall and ≤ 15 % on MoE, no
    GPU family above 15 %, mean signed error within ±5 % at every TP."""
    overall = cal.score(offline["predicted"].to_numpy(float), offline["measured"].to_numpy(float))
    moe = offline[offline["moe"] == "MoE"]
    moe_s = cal.score(moe["predicted"].to_numpy(float), moe["measured"].to_numpy(float))
    families = cal.group_scores(offline, "gpu_family")
    tps = cal.group_scores(offline, "tp")
    worst_family = families.sort_values("mdape_pct").iloc[-1]
    worst_tp = tps.iloc[tps["mean_signed_pct"].abs().argmax()]
    checks = [
        (f"overall MdAPE {overall.mdape_pct:5.1f} % <= 10 %", overall.mdape_pct <= 10),
        (f"MoE MdAPE {moe_s.mdape_pct:5.1f} % <= 15 %", moe_s.mdape_pct <= 15),
        (f"worst GPU family {worst_family['group']} MdAPE {worst_family['mdape_pct']:5.1f} % "
         "<= 15 %", worst_family["mdape_pct"] <= 15),
        (f"worst TP {worst_tp['group']} mean signed {worst_tp['mean_signed_pct']:+5.1f} % "
         "within ±5 %", abs(worst_tp["mean_signed_pct"]) <= 5),
    ]
    print(f"-- wave-2 targets, {label}: " + "; ".join(
        f"{text} {'PASS' if ok else 'FAIL'}" for text, ok in checks))


def plain_roofline(bench: cal.Bench, table: pd.DataFrame) -> None:
    section("plain roofline (every efficiency 1.0, no step overhead) on the same rows")
    plain = bench.with_efficiency(cal.plain_roofline(table))
    all_rows = cal.scored_rows(plain, cal.predict(plain))
    rows = fitted_release(all_rows)
    for kind in cal.KINDS:
        s = cal.kind_score(rows, kind)
        if s.n:
            print(score_line(KIND_LABEL[kind], s))
    later = all_rows[all_rows["later_release"].to_numpy(dtype=bool)]
    if len(later):
        print(score_line(KIND_LABEL["later_release"], cal.kind_score(later, "offline_throughput")))


def ablations(bench: cal.Bench, mask: np.ndarray, table: pd.DataFrame, refit: bool) -> None:
    section("physics ablations: MdAPE % with the shipped efficiencies"
            + (" | after refitting the group efficiencies" if refit else ""))
    base = cal.scored_rows(bench, cal.predict(bench))
    reference = kind_mdapes(base)
    header = f"{'ablation':<38}{'offline':>9}{'Δ':>7}{'TTFT':>8}{'Δ':>7}{'decode':>8}{'Δ':>7}"
    header += f"{'static':>8}{'Δ':>7}{'v1.0':>8}{'Δ':>7}"
    if refit:
        header += f"   | refit: {'offline':>8}{'TTFT':>7}{'decode':>7}{'static':>7}"
    print(header)

    def line(name: str, figures: dict[str, float], refit_figures: dict[str, float] | None) -> str:
        text = f"{name:<38}"
        for kind in ABLATION_KINDS:
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


CV_GROUPS: tuple[tuple[str, str], ...] = (
    ("gpu_family", "GPU family"), ("precision", "precision"), ("moe", "dense vs MoE"),
    ("tp", "tensor parallelism"), ("release", "engine release"),
)


def held_out_tables(scored: pd.DataFrame, predicted: np.ndarray, held: np.ndarray,
                    label: str) -> None:
    """Scores of the out-of-fold offline predictions ``predicted`` on the ``held`` rows."""
    rows = scored.assign(predicted=predicted)
    rows["ape_pct"] = cal.ape_pct(rows["predicted"].to_numpy(float),
                                  rows["measured"].to_numpy(float))
    keep = held & (rows["kind"] == "offline_throughput").to_numpy() & np.isfinite(predicted)
    offline = rows[keep]
    s = cal.score(offline["predicted"].to_numpy(float), offline["measured"].to_numpy(float))
    print(f"  {label}: offline n={s.n} MdAPE {s.mdape_pct:5.1f} %  within ±25 % "
          f"{s.within_pct:5.1f} %  signed median {s.median_signed_pct:+5.1f} %, mean "
          f"{s.mean_signed_pct:+5.1f} %")
    issue_targets(offline, label)
    for by, title in CV_GROUPS:
        print_groups(offline, by, f"{label}, held-out offline by {title}")


def fold_lines(scored: pd.DataFrame, predicted: np.ndarray, folds: np.ndarray) -> None:
    offline = (scored["kind"] == "offline_throughput").to_numpy()
    measured = scored["measured"].to_numpy(float)
    for label in sorted({f for f in folds if f}):
        sel = (folds == label) & offline & np.isfinite(predicted)
        if sel.any():
            s = cal.score(predicted[sel], measured[sel])
            print(f"    held out {label:<40} offline n={s.n:<4} MdAPE {s.mdape_pct:5.1f} %  "
                  f"signed median {s.median_signed_pct:+6.1f} %")


def cross_validation(bench: cal.Bench, fitted: cal.Fit, mask: np.ndarray) -> None:
    """Out-of-fold predictions for three splits (one model family, one GPU, one engine release
    held out at a time), scored on offline throughput of both releases. Rows the fit never
    sees (the later release; GPUs or model families without fitted rows) keep the shipped
    prediction, which is out of sample for them already."""
    section("cross-validation (out-of-fold predictions; shared step overhead kept)")
    measured = bench.measurements["measured"].to_numpy(dtype=float)
    kind = bench.measurements["kind"].to_numpy()
    in_sample = cal.predict(bench.with_efficiency(fitted.table))
    scored = cal.scored_rows(bench, in_sample)
    keys = cal.efficiency_keys(bench)
    trained_key = np.isin(keys, list(set(keys[mask])))

    family = scored["model_family"].to_numpy(dtype=object)
    fitted_families = set(family[mask])
    folds = np.where(np.isin(family, list(fitted_families)), family, "").astype(object)
    predicted = cal.cross_validate(bench, fitted, mask, folds)
    predicted = np.where(folds == "", in_sample, predicted)
    print("1. leave one model family out (Hugging Face architecture class; "
          f"{len(fitted_families)} folds with fitted rows: {', '.join(sorted(fitted_families))})")
    fold_lines(scored, predicted, folds)
    held_out_tables(scored, predicted, np.ones(len(folds), dtype=bool), "model family out")

    gpu = bench.measurements["gpu"].to_numpy(dtype=object)
    shared = {k for k in set(keys[mask])
              if len({g for g, kk, m in zip(gpu, keys, mask, strict=True) if kk == k and m}) > 1}
    gpu_folds = np.where(np.isin(keys, list(shared)), gpu, "").astype(object)
    predicted = cal.cross_validate(bench, fitted, mask, gpu_folds)
    never = ~trained_key  # efficiency groups without fitted rows: the shipped prior
    predicted = np.where(never, in_sample, predicted)
    print(f"2. leave one GPU out (GPUs of groups fitted on more than one GPU: "
          f"{', '.join(sorted({g for g in gpu_folds if g}))}; groups never fitted (blackwell) "
          "scored with their prior; A100 and L40S, alone in their group, are not held out)")
    fold_lines(scored, predicted, gpu_folds)
    held_out_tables(scored, predicted, (gpu_folds != "") | never, "GPU out")

    release = scored["release"].to_numpy(dtype=object)
    weight_only = scored["weight_dtype"].isin(cal.WEIGHT_ONLY).to_numpy()
    fit_kind = np.isin(kind, cal.FIT_KINDS) & ~weight_only
    offline = kind == "offline_throughput"
    predicted = np.full(len(kind), np.nan)
    held = np.zeros(len(kind), dtype=bool)
    print("3. leave one engine release out (offline rows; fit on the other release's offline "
          "rows and the batch-1 rows)")
    for label in sorted(set(release[offline])):
        train = fit_kind & ~(offline & (release == label))
        out = offline & (release == label)
        # only efficiency groups with offline rows of another release to learn from
        learnable = np.isin(keys, list(set(keys[train & offline]))) & out
        if not learnable.any():
            print(f"    held out {label}: no efficiency group has offline rows of another "
                  "release")
            continue
        refit = cal.fit_groups(bench, fitted.table, train, fitted.step_overhead_ms)
        predicted[learnable] = cal.predict(
            bench.with_efficiency(refit.table).subset(learnable))
        held |= learnable
        s = cal.score(predicted[learnable], measured[learnable])
        print(f"    held out {label:<40} offline n={s.n:<4} MdAPE {s.mdape_pct:5.1f} %  "
              f"signed median {s.median_signed_pct:+6.1f} %  (groups: "
              f"{', '.join(sorted(set(keys[learnable])))})")
    held_out_tables(scored, predicted, held, "release out")

    offline_only = mask & offline
    refit = cal.fit_groups(bench, fitted.table, offline_only, fitted.step_overhead_ms)
    predicted = cal.predict(bench.with_efficiency(refit.table))
    print("other sources: fit on offline throughput only, predict the rest")
    for k in cal.KINDS:
        sel = (kind == k) & (kind != "offline_throughput") & np.isfinite(predicted)
        if sel.any():
            out_s = cal.score(predicted[sel], measured[sel])
            ins = cal.score(in_sample[sel], measured[sel])
            print(f"  {'offline-only fit':<34} {k:<19} n={out_s.n:<4} MdAPE "
                  f"{out_s.mdape_pct:5.1f} % (in-sample {ins.mdape_pct:5.1f} %)  within ±25 % "
                  f"{out_s.within_pct:5.1f} %  p10/p90 {out_s.p10_ratio:.2f}/{out_s.p90_ratio:.2f}")


def release_factor(bench: cal.Bench, rows: pd.DataFrame) -> None:
    """The engine-release factor fitted on same-configuration pairs, and its ablation: the later
    release's offline rows scored as shipped and with the factor (pair rows are in sample for
    the factor; the others, e.g. Blackwell and MoE, out of sample)."""
    section("engine-release factor (same-configuration pairs across releases)")
    factors = cal.fit_release_factors(bench)
    if not factors:
        print("no configuration was measured on two releases")
        return
    pairs = cal.release_pairs(bench)
    for f in factors.values():
        models = sorted(set(pairs.loc[pairs["framework_version_later"] == f.release,
                                      "models_later"]))
        print(f"release {f.release} ÷ fitted release: factor {f.factor:.3f} (geometric mean of "
              f"{f.n_pairs} pairs; p10 {f.p10:.2f}, p90 {f.p90:.2f}; GPUs "
              f"{', '.join(sorted(set(pairs['gpu'])))}; models {', '.join(models)})")
    print_groups(pairs.assign(predicted=pairs["measured_fitted"], measured=pairs["measured_later"]),
                 "models_later", "the pairs: fitted-release throughput as the prediction of the "
                 "later release's")
    adjusted = cal.release_adjusted(bench, rows["predicted"].to_numpy(float), factors)
    later = rows["later_release"].to_numpy(dtype=bool)
    paired_ids = {i for ids in pairs["row_ids_later"] for i in ids}
    in_pairs = rows["row_id"].isin(paired_ids).to_numpy()
    print(f"{'later-release offline rows':<44}{'n':>5}{'shipped MdAPE':>15}{'signed':>9}"
          f"{'× factor MdAPE':>16}{'signed':>9}")
    groups = [("all", later), ("in the pairs (in sample)", later & in_pairs),
              ("not in the pairs (out of sample)", later & ~in_pairs)]
    for family in sorted(set(rows.loc[later, "gpu_family"])):
        groups.append((f"  not in pairs, {family}",
                       later & ~in_pairs & (rows["gpu_family"] == family).to_numpy()))
    for moe in ("dense", "MoE"):
        groups.append((f"  not in pairs, {moe}",
                       later & ~in_pairs & (rows["moe"] == moe).to_numpy()))
    measured = rows["measured"].to_numpy(float)
    shipped = rows["predicted"].to_numpy(float)
    for label, sel in groups:
        if sel.any():
            a, b = cal.score(shipped[sel], measured[sel]), cal.score(adjusted[sel], measured[sel])
            print(f"{label:<44}{a.n:>5}{a.mdape_pct:>13.1f} %{a.median_signed_pct:>+8.1f}%"
                  f"{b.mdape_pct:>14.1f} %{b.median_signed_pct:>+8.1f}%")


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
    parser.add_argument("--data", type=Path, nargs="+", default=list(cal.MEASUREMENT_FILES),
                        help="measurements (default: reportgen/data/measurements_public.csv and "
                             "measurements_public_2.csv)")
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
        for path in args.data:  # measured_public*.csv -> data/measurements_public*.csv
            target = cal.MEASUREMENTS_FILE.with_name(path.name.replace("measured_",
                                                                       "measurements_"))
            part = cal.load_measurements(path)
            cal.write_measurements(part, target)
            print(f"wrote {target.relative_to(ROOT)} ({len(part)} rows)")
    prior = load_efficiency()
    bench = cal.build_bench(measurements, efficiency=prior)
    mask = cal.fit_rows(measurements)
    print(f"measurements: {', '.join(p.name for p in args.data)}, {len(measurements)} rows: "
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
    offline = rows[rows["kind"] == "offline_throughput"]
    wave2_tables(fitted_release(offline), "fitted release (TRT-LLM v0.13) offline, in sample")
    later = offline[offline["later_release"].to_numpy(dtype=bool)]
    if len(later):
        wave2_tables(later, "later release (TRT-LLM v1.0) offline, scored, never fitted")
        wave2_tables(offline, "both releases, offline")
    release_factor(bench, rows)
    ok = targets(rows, scores)
    plain_roofline(bench, table)
    ablations(bench, mask, table, args.refit_ablations)
    if args.cv and not args.write:
        fitted = cal.Fit(table, {}, float(table[cal.SHARED_PARAMETER].iloc[0]), np.nan, np.nan)
        cross_validation(bench, fitted, mask)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
