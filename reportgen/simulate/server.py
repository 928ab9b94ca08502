"""One instance serving requests with continuous batching, as vLLM's scheduler does.

Every step the scheduler

1. admits waiting requests in arrival order (first come, first served) while fewer than
   ``max_seqs`` sequences run and the KV cache has free blocks for the request's prompt
   (``block_tokens`` tokens a block, as vLLM's paged attention allocates them) beyond a
   watermark of ADMISSION_WATERMARK of the blocks, kept for running sequences to grow into;
2. gives each decoding sequence one token, then spends what is left of the step's token budget
   (``token_budget``, vLLM's max_num_batched_tokens) on the prompts of admitted requests in
   order (chunked prefill: a long prompt takes several steps);
3. grows each decoding sequence's KV by one token, taking a new block when it crosses a block
   boundary; when no block is free it preempts the most recently admitted sequence (its blocks
   are freed and it waits at the head of the queue to recompute its prompt and the tokens it
   had generated, vLLM's recompute preemption).

A step lasts StepModel.step_ms(decoding sequences, prefill tokens). A request's first token is
produced by its first decode step after its prompt is computed (the closed form's TTFT:
prefill plus one step); its last by its ``output_tokens``-th. Between events (an arrival that
could be admitted, a sequence finishing, a prefill chunk) the batch does not change, so the loop
advances over those steps at once: its cost grows with the number of requests, not of tokens.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from reportgen.simulate.step import StepModel
from reportgen.simulate.traffic import Requests
from reportgen.xlfuncs import Array

VLLM_BLOCK_TOKENS = 16  # vLLM's default KV block size (--block-size 16)
# A run stops after this many scheduler iterations per request (a few per request in practice;
# thousands only for prompts of hundreds of chunks) and says it was cut short.
MAX_ITERATIONS_PER_REQUEST = 40
# Blocks admission leaves free for running sequences to grow into (vLLM's watermark, 1 %).
ADMISSION_WATERMARK = 0.01


@dataclass(frozen=True)
class ServerConfig:
    """The scheduler's limits on one instance."""

    max_seqs: int  # sequences running at once (vLLM max_num_seqs)
    token_budget: int  # tokens one step computes: decode tokens plus prefill chunks
    kv_blocks: int  # KV cache capacity, in blocks
    block_tokens: int = VLLM_BLOCK_TOKENS
    prefix_cache_hit_rate: float = 0.0  # share of a first prompt served from the prefix cache

    def __post_init__(self) -> None:
        if self.max_seqs < 1 or self.token_budget < 1 or self.block_tokens < 1:
            raise ValueError("max_seqs, token_budget and block_tokens must be at least 1")


@dataclass(frozen=True)
class Served:
    """What happened to each request (times in s from the first arrival; NaN for a request
    too long for the KV cache, which is rejected) and to the instance."""

    arrival_s: Array
    admitted_s: Array  # first scheduled (the end of its queue wait)
    first_token_s: Array
    finished_s: Array
    output_tokens: Array
    preemptions: int
    rejected: int
    kv_occupancy: Array  # used ÷ capacity of the KV blocks, one value per stretch of steps
    kv_duration_s: Array  # how long each stretch lasted
    steps: int
    truncated: bool = False  # stopped at the iteration bound before every request finished


class _Slots:
    """Decoding sequences in fixed slots, so their KV blocks and finishing steps are arrays."""

    def __init__(self, size: int, block_tokens: int) -> None:
        self.request = np.full(size, -1, dtype=np.int64)
        self.base = np.zeros(size)  # KV tokens = base + steps taken
        self.finish = np.full(size, np.inf)  # step count at which its last token is out
        self.start = np.zeros(size)  # step count when it began decoding
        self.emitted0 = np.zeros(size)  # tokens it had generated before (after a preemption)
        self.order = np.full(size, -1, dtype=np.int64)  # admission order (newest = largest)
        self.pending_first = np.zeros(size, dtype=bool)
        self.free = list(range(size - 1, -1, -1))
        self.count = 0
        self.block_tokens = block_tokens

    def blocks(self, steps: int) -> int:
        active = self.request >= 0
        if not self.count:
            return 0
        return int(np.ceil((self.base[active] + steps) / self.block_tokens).sum())


def serve(requests: Requests, config: ServerConfig, step: StepModel) -> Served:
    """Serve ``requests`` on one instance; deterministic (no randomness inside)."""
    n = len(requests)
    arrival = np.asarray(requests.arrival_s, dtype=float)
    prompt = np.asarray(requests.prompt_tokens, dtype=np.int64)
    output = np.asarray(requests.output_tokens, dtype=np.int64)
    first_work = np.maximum(1, np.ceil(prompt * (1 - config.prefix_cache_hit_rate))).astype(
        np.int64)
    admitted = np.full(n, np.nan)
    first = np.full(n, np.nan)
    finished = np.full(n, np.nan)
    emitted = np.zeros(n, dtype=np.int64)
    bt, capacity = config.block_tokens, config.kv_blocks
    slots = _Slots(config.max_seqs, bt)
    waiting: deque[int] = deque()
    prefilling: list[list[int]] = []  # [request, prompt tokens left, blocks held, order]
    prefill_blocks = 0
    occupancy: list[float] = []
    durations: list[float] = []
    nxt = done = preemptions = rejected = admissions = 0
    steps, t = 0, 0.0
    watermark = int(ADMISSION_WATERMARK * capacity)
    just_preempted = False  # a step that preempted admits nobody (as vLLM's scheduler)
    decode_s = step.decode_ms / 1000
    budget_iterations = MAX_ITERATIONS_PER_REQUEST * n + 1000
    truncated = False
    while done < n:
        budget_iterations -= 1
        if budget_iterations < 0:
            truncated = True
            break
        while nxt < n and arrival[nxt] <= t:
            waiting.append(nxt)
            nxt += 1
        used = prefill_blocks + slots.blocks(steps)
        admit = not just_preempted
        just_preempted = False
        while admit and waiting and slots.count + len(prefilling) < config.max_seqs:
            r = waiting[0]
            if math.ceil((prompt[r] + output[r]) / bt) > capacity:
                waiting.popleft()
                rejected += 1
                done += 1
                continue
            blocks = math.ceil((prompt[r] + emitted[r]) / bt)
            if used + blocks > capacity - watermark and (used or slots.count or prefilling):
                break
            waiting.popleft()
            work = first_work[r] if emitted[r] == 0 else prompt[r] + emitted[r]
            prefilling.append([r, int(work), blocks, admissions])
            admissions += 1
            prefill_blocks += blocks
            used += blocks
            if np.isnan(admitted[r]):
                admitted[r] = t
        if not prefilling and not slots.count:
            if nxt >= n:
                break
            t = max(t, float(arrival[nxt]))
            continue
        chunk = 0
        takes: list[tuple[list[int], int]] = []
        if prefilling:
            budget = config.token_budget - slots.count
            for item in prefilling:
                if budget <= 0:
                    break
                take = min(item[1], budget)
                takes.append((item, take))
                budget -= take
                chunk += take
            k = 1
        else:
            k = int(slots.finish.min()) - steps
            if not waiting and nxt < n and slots.count < config.max_seqs:
                gap = float(arrival[nxt]) - t
                k = min(k, max(1, math.ceil(gap / decode_s[slots.count])))
        if slots.count:
            room = capacity - used
            if slots.count * math.ceil(k / bt) > room:
                k = _steps_that_fit(slots, steps, k, capacity - prefill_blocks)
                if k == 0:
                    prefill_blocks -= _preempt(slots, prefilling, waiting, emitted, steps)
                    preemptions += 1
                    just_preempted = True
                    continue
        dt = step.step_ms(slots.count, chunk) / 1000
        occupancy.append(used / capacity)
        durations.append(k * dt)
        start_t = t
        t += k * dt
        steps += k
        pending = slots.pending_first
        if pending.any():
            first[slots.request[pending]] = start_t + dt
            pending[:] = False
        ending = slots.finish == steps
        if ending.any():
            ids = slots.request[ending]
            finished[ids] = t
            emitted[ids] = output[ids]
            done += len(ids)
            for ended in np.flatnonzero(ending):
                slots.request[ended] = -1
                slots.finish[ended] = np.inf
                slots.free.append(int(ended))
            slots.count -= len(ids)
        for item, take in takes:
            item[1] -= take
            if item[1]:
                continue
            prefilling.remove(item)
            prefill_blocks -= item[2]
            r = item[0]
            s = slots.free.pop()
            slots.request[s] = r
            slots.base[s] = prompt[r] + emitted[r] - steps
            slots.start[s] = steps
            slots.emitted0[s] = emitted[r]
            slots.finish[s] = steps + output[r] - emitted[r]
            slots.order[s] = item[3]
            slots.pending_first[s] = emitted[r] == 0
            slots.count += 1
    return Served(arrival, admitted, first, finished, output.astype(float), preemptions,
                  rejected, np.asarray(occupancy), np.asarray(durations), steps, truncated)


def _steps_that_fit(slots: _Slots, steps: int, k: int, room: int) -> int:
    """The most steps ≤ k the decoding sequences can take before their blocks exceed ``room``."""
    if slots.blocks(steps + k) <= room:
        return k
    low, high = 0, k  # blocks(steps + low) fits, blocks(steps + high) does not
    if slots.blocks(steps) > room:
        return 0
    while high - low > 1:
        middle = (low + high) // 2
        if slots.blocks(steps + middle) <= room:
            low = middle
        else:
            high = middle
    return low


def _preempt(slots: _Slots, prefilling: list[list[int]], waiting: deque[int], emitted: Array,
             steps: int) -> int:
    """Preempt the most recently admitted sequence; returns the prefill blocks it freed."""
    newest_decoding = int(slots.order.max()) if slots.count else -1
    if prefilling and prefilling[-1][3] > newest_decoding:
        item = prefilling.pop()
        waiting.appendleft(item[0])
        return item[2]
    s = int(np.argmax(np.where(slots.request >= 0, slots.order, -1)))
    r = int(slots.request[s])
    emitted[r] = int(slots.emitted0[s] + steps - slots.start[s])
    waiting.appendleft(r)
    slots.request[s] = -1
    slots.finish[s] = np.inf
    slots.order[s] = -1
    slots.pending_first[s] = False
    slots.free.append(s)
    slots.count -= 1
    return 0
