"""The review's words: how each component is computed and what changed, with the numbers.

Sentences are computed from the review, never a fixed list; numbers are formatted with the same
table as the workbook (reportgen.formats).
"""

from __future__ import annotations

import math
from decimal import Decimal

from reportgen.formats import format_value
from reportgen.review.build import Review, WorkloadReview
from reportgen.review.variance import COMPONENTS, LABELS

METHOD = {
    "volume": "Total requests of all workloads ÷ planned, applied to each workload's plan cost "
              "at the plan's mix: plan cost × (R_actual ÷ R_plan − 1).",
    "mix": "Each workload's own requests ratio against the portfolio's: plan cost × "
           "(r_actual ÷ r_plan − R_actual ÷ R_plan). Sums to zero when every workload grew "
           "alike.",
    "tokens_per_request": "The engine re-estimates each workload at the measured prompt and "
                          "output tokens per request: GPU time per request at the plan's "
                          "operating point, measured lengths ÷ planned.",
    "efficiency": "Measured mean TPOT against the engine's at the batch that actually ran "
                  "(sequences per replica): GPU time scales with their ratio; a different "
                  "GPU, TP or engine than planned is counted here too.",
    "idle_capacity": "GPU-hours paid against the GPU-hours the traffic needed at the achieved "
                     "speed with the plan's own head-room (peak-to-average and safety factor), "
                     "at the plan's price.",
    "price": "Billed cost ÷ GPU-hours paid against the plan's price per GPU-hour, on the "
             "GPU-hours paid.",
}


def usd(value: float | Decimal) -> str:
    return format_value(float(value), "USD/window")


def signed_usd(value: float | Decimal) -> str:
    """"+$1,234" or "−$1,234", the sign joined to the amount (no line break between)."""
    text = usd(abs(float(value)))
    return ("+\u2060" if value > 0 else "−\u2060" if value < 0 else "") + text


def pct(value: float) -> str:
    return f"{value:+.1%}" if math.isfinite(value) else "—"


def _qty(value: float, unit: str) -> str:
    return format_value(value, unit, with_unit=True)


def millions(value: float) -> str:
    return f"{value / 1e6:,.2f} M" if value >= 1e6 else f"{value:,.0f}"


def headline(review: Review) -> str:
    """One sentence: the quarter against its plan and the biggest component."""
    v = review.variance
    total = v.total
    share = float(total) / float(v.plan) if v.plan else math.nan
    biggest = max(COMPONENTS, key=lambda c: abs(v.components[c]))
    side = "over" if total > 0 else "under" if total < 0 else "on"
    return (f"The window cost {usd(v.actual)} against a plan of {usd(v.plan)}: "
            f"{usd(abs(total))} ({pct(share)}) {side} plan. The largest component is "
            f"{LABELS[biggest].lower()} ({signed_usd(v.components[biggest])}).")


def portfolio_story(review: Review) -> dict[str, str]:
    """Per component, what happened across all workloads, with the numbers."""
    ws = list(review.workloads.values())
    planned = sum(w.drivers.plan_requests for w in ws)
    actual = sum(w.drivers.actual_requests for w in ws)
    paid = sum(w.drivers.actual_gpu_hours for w in ws)
    needed = sum(w.variance.gpu_hours[4] for w in ws)
    plan_hours = sum(w.drivers.plan_gpu_hours for w in ws)
    plan_cost = sum(w.drivers.plan_cost for w in ws)
    actual_cost = sum(w.drivers.actual_cost for w in ws)
    mix = sorted(ws, key=lambda w: -abs(w.variance.components["mix"]))[0]
    return {
        "volume": f"{millions(actual)} requests against {millions(planned)} planned "
                  f"({pct(actual / planned - 1)}).",
        "mix": f"Largest shift: {mix.name} carried {pct(_share(mix))} of its planned requests "
               f"against {pct(actual / planned - 1)} for all workloads.",
        "tokens_per_request": "; ".join(
            f"{w.name} ×{w.drivers.tokens_factor:.2f}" for w in ws) + " GPU time per request.",
        "efficiency": "; ".join(
            f"{w.name} " + (f"{w.speed.efficiency:.0%} of the engine's speed"
                            if w.speed.measured else "not measured") for w in ws) + ".",
        "idle_capacity": f"Paid {_qty(paid, 'GPU-h')}; the traffic needed "
                         f"{_qty(needed, 'GPU-h')} at the achieved speed with the plan's "
                         f"head-room (plan: {_qty(plan_hours, 'GPU-h')}).",
        "price": f"Paid {format_value(actual_cost / paid if paid else 0, 'USD/GPU-h')} per "
                 f"GPU-hour against {format_value(plan_cost / plan_hours, 'USD/GPU-h')} "
                 "planned.",
    }


def _share(w: WorkloadReview) -> float:
    return w.drivers.actual_requests / w.drivers.plan_requests - 1


def findings(w: WorkloadReview, hours: float) -> list[str]:
    """What changed for one workload and why, largest effect first."""
    d, a, p, s = w.drivers, w.actual, w.plan, w.speed
    said: list[tuple[Decimal, str]] = []
    parts = w.variance.components
    said.append((abs(parts["volume"] + parts["mix"]),
                 f"Traffic: {millions(d.actual_requests)} requests against "
                 f"{millions(d.plan_requests)} planned ({pct(_share(w))}); "
                 f"{signed_usd(parts['volume'] + parts['mix'])} from volume and mix."))
    prompt, output = a.per_request("prompt_tokens"), a.per_request("output_tokens")
    said.append((abs(parts["tokens_per_request"]),
                 f"Tokens per request: prompt {prompt:,.0f} (plan {p.prompt_tokens:,.0f}), "
                 f"output {output:,.0f} (plan {p.output_tokens:,.0f}); the engine gives "
                 f"×{d.tokens_factor:.2f} GPU time per request: "
                 f"{signed_usd(parts['tokens_per_request'])}."))
    if s.measured:
        eff = (f"Efficiency: TPOT {s.tpot_measured_ms:,.1f} ms measured at "
               f"{s.batch_observed:,.1f} sequences per replica, where the engine gives "
               f"{s.tpot_engine_ms:,.1f} ms: {s.efficiency:.0%} of the modelled speed")
    else:
        eff = "Efficiency: not measured (no mean TPOT and running sequences)"
    stack = {k: v for k, v in a.stack.items() if v and str(v) != str(getattr(p, k))}
    if stack and not (set(stack) == {"tp"} and float(stack["tp"]) == p.tp):
        eff += "; ran on " + ", ".join(f"{k} {v}" for k, v in stack.items())
    said.append((abs(parts["efficiency"]), f"{eff}: {signed_usd(parts['efficiency'])}."))
    needed = w.variance.gpu_hours[4]
    said.append((abs(parts["idle_capacity"]),
                 f"Idle capacity: {_qty(d.actual_gpu_hours, 'GPU-h')} paid "
                 f"({d.actual_gpu_hours / hours:,.1f} GPUs on average, plan {p.gpus:,.0f}); the "
                 f"traffic needed {_qty(needed, 'GPU-h')} with the plan's head-room: "
                 f"{signed_usd(parts['idle_capacity'])}."))
    said.append((abs(parts["price"]),
                 f"Price: {format_value(w.price_paid, 'USD/GPU-h')} per GPU-hour paid against "
                 f"{format_value(p.price_per_gpu_hour, 'USD/GPU-h')} planned: "
                 f"{signed_usd(parts['price'])}."))
    said.sort(key=lambda pair: -pair[0])
    out = [text for _, text in said]
    for row in w.latency:
        if row.status in ("met", "missed"):
            measured = row.mean_ms if row.basis == "mean" else row.p50_ms
            out.append(f"{row.metric} {row.basis} {measured:,.1f} ms against a "
                       f"{row.target_ms:,.0f} ms target: {row.status}"
                       f"{'' if math.isnan(row.p99_ms) else f' (p99 {row.p99_ms:,.1f} ms)'}.")
    return out
