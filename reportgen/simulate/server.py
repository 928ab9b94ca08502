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
    """Decoding sequences in fixed slots, so their finishing steps are an array, with their KV
    blocks counted in O(block_tokens) however many run.

    A sequence holding ``base + S`` tokens after S steps holds ⌈(base + S)/bt⌉ blocks. With
    a = base + bt − 1 = bt·Q + c (0 ≤ c < bt) and S = bt·P + s, that is Q + P + [c + s ≥ bt],
    so the total is ΣQ + n·P + (sequences with c ≥ bt − s): kept as ΣQ and a count per c.
    """

    def __init__(self, size: int, block_tokens: int) -> None:
        self.request = np.full(size, -1, dtype=np.int64)
        self.finish = np.full(size, np.inf)  # step count at which its last token is out
        self.start = [0] * size  # step count when it began decoding
        self.emitted0 = [0] * size  # tokens it had generated before (after a preemption)
        self.order = np.full(size, -1, dtype=np.int64)  # admission order (newest = largest)
        self.quotient = [0] * size
        self.residue = [0] * size
        self.pending_first: list[int] = []  # slots whose first token the next step produces
        self.free = list(range(size - 1, -1, -1))
        self.count = 0
        self.changed = True  # a slot was filled or freed since the next finish was found
        self.block_tokens = block_tokens
        self.sum_quotient = 0
        self.per_residue = [0] * block_tokens

    def add(self, request: int, tokens: int, steps: int, remaining: int, emitted: int,
            order: int) -> None:
        """Start decoding ``request`` holding ``tokens`` after ``steps`` steps."""
        s = self.free.pop()
        bt = self.block_tokens
        a = tokens - steps + bt - 1
        self.quotient[s], self.residue[s] = a // bt, a % bt
        self.sum_quotient += self.quotient[s]
        self.per_residue[self.residue[s]] += 1
        self.request[s] = request
        self.start[s] = steps
        self.emitted0[s] = emitted
        self.finish[s] = steps + remaining
        self.order[s] = order
        if emitted == 0:
            self.pending_first.append(s)
        self.count += 1
        self.changed = True

    def remove(self, s: int) -> None:
        """Free slot ``s``."""
        self.sum_quotient -= self.quotient[s]
        self.per_residue[self.residue[s]] -= 1
        self.request[s] = -1
        self.finish[s] = np.inf
        self.order[s] = -1
        if s in self.pending_first:
            self.pending_first.remove(s)
        self.free.append(s)
        self.count -= 1
        self.changed = True

    def blocks(self, steps: int) -> int:
        """KV blocks the decoding sequences hold after ``steps`` steps."""
        if not self.count:
            return 0
        bt = self.block_tokens
        within = steps % bt
        crossed = sum(self.per_residue[bt - within:]) if within else 0
        return self.sum_quotient + self.count * (steps // bt) + crossed


def serve(requests: Requests, config: ServerConfig, step: StepModel) -> Served:
    """Serve ``requests`` on one instance; deterministic (no randomness inside)."""
    n = len(requests)
    arrival_s = np.asarray(requests.arrival_s, dtype=float)
    # Python lists in the loop: indexing them is several times faster than numpy scalars.
    arrival: list[float] = arrival_s.tolist()
    prompt_tokens = np.asarray(requests.prompt_tokens, dtype=np.int64)
    prompt: list[int] = prompt_tokens.tolist()
    output_tokens = np.asarray(requests.output_tokens, dtype=np.int64)
    output: list[int] = output_tokens.tolist()
    first_work: list[int] = np.maximum(
        1, np.ceil(prompt_tokens * (1 - config.prefix_cache_hit_rate))).astype(np.int64).tolist()
    admitted = [math.nan] * n
    first = np.full(n, np.nan)
    finished = np.full(n, np.nan)
    emitted = [0] * n
    bt, capacity = config.block_tokens, config.kv_blocks
    slots = _Slots(config.max_seqs, bt)
    waiting: deque[int] = deque()
    prefilling: list[list[int]] = []  # [request, prompt tokens left, blocks held, order]
    prefill_blocks = 0
    occupancy: list[float] = []
    durations: list[float] = []
    nxt = done = preemptions = rejected = admissions = 0
    steps, t = 0, 0.0
    next_finish = 1 << 62
    watermark = int(ADMISSION_WATERMARK * capacity)
    just_preempted = False  # a step that preempted admits nobody (as vLLM's scheduler)
    decode_s: list[float] = (step.decode_ms / 1000).tolist()
    prefill_s_per_token = step.prefill_ms_per_token / 1000
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
            if admitted[r] != admitted[r]:  # NaN: first time scheduled
                admitted[r] = t
        if not prefilling and not slots.count:
            if nxt >= n:
                break
            t = max(t, arrival[nxt])
            continue
        if slots.changed:
            next_finish = int(slots.finish.min()) if slots.count else 1 << 62
            slots.changed = False
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
            k = next_finish - steps
            if not waiting and nxt < n and slots.count < config.max_seqs:
                gap = arrival[nxt] - t
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
        dt = decode_s[slots.count] + chunk * prefill_s_per_token  # StepModel.step_ms / 1000
        occupancy.append(used / capacity)
        durations.append(k * dt)
        start_t = t
        t += k * dt
        steps += k
        if slots.pending_first:
            first[slots.request[slots.pending_first]] = start_t + dt
            slots.pending_first.clear()
        if steps >= next_finish:
            ending = np.flatnonzero(slots.finish == steps)
            ids = slots.request[ending]
            finished[ids] = t
            for i in ids.tolist():
                emitted[i] = output[i]
            done += len(ids)
            for ended in ending:
                slots.remove(int(ended))
        for item, take in takes:
            item[1] -= take
            if item[1]:
                continue
            prefilling.remove(item)
            prefill_blocks -= item[2]
            r = item[0]
            slots.add(r, prompt[r] + emitted[r], steps, output[r] - emitted[r], emitted[r],
                      item[3])
    return Served(arrival_s, np.asarray(admitted), first, finished,
                  output_tokens.astype(float), preemptions,
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


def _preempt(slots: _Slots, prefilling: list[list[int]], waiting: deque[int],
             emitted: list[int], steps: int) -> int:
    """Preempt the most recently admitted sequence; returns the prefill blocks it freed."""
    newest_decoding = int(slots.order.max()) if slots.count else -1
    if prefilling and prefilling[-1][3] > newest_decoding:
        item = prefilling.pop()
        waiting.appendleft(item[0])
        return item[2]
    s = int(np.argmax(slots.order))
    r = int(slots.request[s])
    emitted[r] = slots.emitted0[s] + steps - slots.start[s]
    waiting.appendleft(r)
    slots.remove(s)
    return 0
