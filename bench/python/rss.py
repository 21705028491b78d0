# SPDX-License-Identifier: MIT
"""W7's peak RSS, one fresh interpreter per engine: run_rss_child starts bench.py
--rss-child NAME, which runs rss_child."""

import gc
import json
import os
import resource
import subprocess
import sys
import time

from engines import load_engine
from workloads import w1, w7

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'bench.py')


def _status(field):
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith(field + ':'):
                return int(line.split()[1])
    return -1


def rss_child(name, scale):
    e = load_engine(name)
    if isinstance(e, str):
        print(json.dumps({'engine': name, 'error': e}))
        return 0
    tree = w7(scale)
    e.mod.tree_flatten(w1(scale))  # one-time set-up (registries, first arena) is not W7's
    gc.collect()
    gc.disable()
    base = _status('VmRSS')
    maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    reset = True
    try:
        with open('/proc/self/clear_refs', 'w') as f:
            f.write('5')  # VmHWM := VmRSS
    except OSError:
        reset = False
    f = e.mod.tree_flatten
    t0 = time.perf_counter()
    for x in tree:
        f(x)
    t = time.perf_counter() - t0
    peak = _status('VmHWM')
    print(json.dumps({'engine': name, 'rss_before_kib': base, 'peak_kib': peak,
                      'delta_kib': peak - base if reset else None, 'hwm_reset': reset,
                      'maxrss_before_kib': maxrss_before,
                      'maxrss_kib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      'seconds': t}))
    return 0


def run_rss_child(name, scale, quick):
    cmd = [sys.executable, BENCH, '--rss-child', name,
           '--w7-count', str(scale['w7'])]
    if quick:
        cmd.append('--quick')
    p = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy())
    if p.returncode != 0:
        return {'engine': name, 'error': p.stderr.strip().splitlines()[-1:]}
    return json.loads(p.stdout.strip().splitlines()[-1])
