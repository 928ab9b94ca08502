"""Speed of the simulator: 10,000 requests of one scenario, a day of autoscaling for one
workload, the knee of each budgeted default row, and the plain event loop against SimPy.

Targets (issue 11): 10,000 requests in ≤ 1 s; a day for one workload in ≤ 1 s; the default
`make report` under 30 s. Run: `python benchmarks/simulate_speed.py` (SimPy, if installed, is
compared on an M/D/1 queue both can run; it is not a dependency of reportgen).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportgen.pipeline import load, make_plan  # noqa: E402
from reportgen.simulate import ServerConfig, StepModel, poisson_or_bursty, serve  # noqa: E402
from reportgen.simulate.plan_latency import (  # noqa: E402
    budgeted_rows,
    day_rows,
    knee_of,
    row_values,
)
from reportgen.simulate.traffic import unit_gaps  # noqa: E402
from reportgen.simulate.workload import workload_for  # noqa: E402


def _best(run: object, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def md1_plain(n: int, load: float, service_s: float) -> tuple[float, float]:
    """Mean wait of an M/D/1 queue on the plain loop, and its seconds."""
    step = StepModel(decode_ms=np.array([service_s * 500, service_s * 500]),
                     prefill_ms_per_token=0.0)
    requests = poisson_or_bursty(load / service_s, unit_gaps(n, 1.0, np.random.default_rng(1)),
                                 np.full(n, 16.0), np.full(n, 1.0))
    config = ServerConfig(max_seqs=1, token_budget=8192, kv_blocks=10)
    start = time.perf_counter()
    served = serve(requests, config, step)
    return float((served.admitted_s - served.arrival_s).mean()), time.perf_counter() - start


def md1_simpy(n: int, load: float, service_s: float) -> tuple[float, float] | None:
    """The same queue on SimPy (a Resource of capacity 1), or None without SimPy."""
    try:
        import simpy
    except ImportError:
        return None
    gaps = unit_gaps(n, 1.0, np.random.default_rng(1)) * service_s / load
    waits: list[float] = []
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=1)

    def request(arrived: float):  # type: ignore[no-untyped-def]
        with server.request() as turn:
            yield turn
            waits.append(env.now - arrived)
            yield env.timeout(service_s)

    def source():  # type: ignore[no-untyped-def]
        for gap in gaps:
            yield env.timeout(float(gap))
            env.process(request(env.now))

    env.process(source())
    start = time.perf_counter()
    env.run()
    return float(np.mean(waits)), time.perf_counter() - start


def main() -> None:
    plan = make_plan(load(ROOT / "inputs" / "scenarios.csv"), "scenarios.csv")
    rows = budgeted_rows(plan.results)
    first = row_values(plan.scenarios, plan.results, rows[0])
    model = plan.tables.models.loc[first["model"]].to_dict()
    big = workload_for(first, model, requests=10_000)
    rate = float(first["peak_qps"]) / float(first["instances"])
    seconds = _best(lambda: big.at_rate(rate))
    print(f"10,000 requests of {first['scenario']} at {rate:.2f} req/s: {seconds:.2f} s "
          "(target ≤ 1 s)")
    knee, workload = knee_of(first, model)
    day = _best(lambda: day_rows(first, plan.scenarios.iloc[rows[0]].to_dict(), workload, knee))
    print(f"a day of four policies for {first['scenario']} (occupancy curve included): "
          f"{day:.2f} s (target ≤ 1 s)")
    total = 0.0
    for i in rows:
        values = row_values(plan.scenarios, plan.results, i)
        start = time.perf_counter()
        knee_of(values, plan.tables.models.loc[values["model"]].to_dict())
        total += time.perf_counter() - start
    print(f"knees of the {len(rows)} budgeted default rows: {total:.2f} s")
    n, load_, service = 100_000, 0.7, 0.05
    plain = md1_plain(n, load_, service)
    expected = load_ * service / (2 * (1 - load_))
    print(f"M/D/1, {n:,} requests at ρ = {load_}: exact mean wait {expected * 1000:.2f} ms; "
          f"plain loop {plain[0] * 1000:.2f} ms in {plain[1]:.2f} s")
    simpy = md1_simpy(n, load_, service)
    if simpy is None:
        print("SimPy not installed: `pip install simpy` to compare")
    else:
        print(f"  SimPy {simpy[0] * 1000:.2f} ms in {simpy[1]:.2f} s")


if __name__ == "__main__":
    main()
