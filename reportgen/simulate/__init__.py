"""Latency under real traffic: a continuous-batching simulation of one instance.

Requests arrive at random (traffic.py) with lengths that match a scenario's averages and maxima
(lengths.py); one instance serves them like vLLM's scheduler does (server.py: a sequence cap, a
token budget per step with chunked prefill, paged KV blocks, admission when blocks are free,
preemption when they run out); every step takes the time the engine's own registry quantities
give it (step.py); metrics.py turns the served requests into percentiles, knee.py finds the
highest request rate that meets percentile targets, and autoscale.py runs fleet policies over a
day of hourly rates.
"""

from reportgen.simulate.lengths import draw_lengths
from reportgen.simulate.metrics import Summary, summarize
from reportgen.simulate.server import Served, ServerConfig, serve
from reportgen.simulate.step import StepModel
from reportgen.simulate.traffic import Requests, poisson_or_bursty, replay

__all__ = ["Requests", "Served", "ServerConfig", "StepModel", "Summary", "draw_lengths",
           "poisson_or_bursty", "replay", "serve", "summarize"]
