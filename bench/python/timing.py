# SPDX-License-Identifier: MIT
"""Interleaved timing: every engine's samples of one (workload, operation) in rounds
whose engine order rotates; the median and half the interquartile range."""

import statistics
import timeit


class Timer:
    def __init__(self, sample_s, rounds):
        self.sample_s, self.rounds = sample_s, rounds

    def calls_for(self, stmt, ns, before):
        """Calls per sample: enough for sample_s (one call is also the warm-up)."""
        if before:
            before()
        t = timeit.Timer(stmt, globals=ns).timeit(1)
        if before:
            before()
        t = min(t, timeit.Timer(stmt, globals=ns).timeit(1))
        return max(1, int(self.sample_s / max(t, 1e-9)))

    def run(self, cases, rounds=None):
        """cases: {engine: (stmt, ns, before)} -> {engine: [seconds per call, ...]}."""
        names = list(cases)
        number = {n: self.calls_for(*cases[n]) for n in names}
        timers = {n: timeit.Timer(cases[n][0], globals=cases[n][1]) for n in names}
        out = {n: [] for n in names}
        for r in range(rounds or self.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for n in order:
                before = cases[n][2]
                if before:
                    before()
                out[n].append(timers[n].timeit(number[n]) / number[n])
        return out, number


def summary(samples):
    med = statistics.median(samples)
    if len(samples) >= 4:
        q = statistics.quantiles(samples, n=4)
        spread = (q[2] - q[0]) / 2
    else:
        spread = (max(samples) - min(samples)) / 2
    return med, spread
