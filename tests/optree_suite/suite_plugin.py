# SPDX-License-Identifier: MIT
"""pytest plugin of tests/optree_suite/run.py: picks the seeded share of a test file's tests,
bounds each test's time, and appends every outcome to a JSON-lines file as it happens (so a
crash loses nothing already run).

Environment: GROVE_SUITE_SHARE (a fraction in (0, 1]; 1: every test), GROVE_SUITE_SEED,
GROVE_SUITE_OUT (the JSON-lines file), GROVE_SUITE_TIMEOUT (seconds per test).
"""

import hashlib
import json
import math
import os
import signal

import pytest

SHARE = float(os.environ.get('GROVE_SUITE_SHARE', '1'))
SEED = os.environ.get('GROVE_SUITE_SEED', '22')
OUT = os.environ.get('GROVE_SUITE_OUT')
TIMEOUT = int(os.environ.get('GROVE_SUITE_TIMEOUT', '60'))


def _rank(nodeid):
    return hashlib.sha256(f'{SEED}\0{nodeid}'.encode()).digest()


def pytest_collection_modifyitems(session, config, items):
    """Keep ceil(SHARE * n) of each file's n tests: those whose seeded hash of the test id
    ranks lowest (the same tests every run, none picked by hand)."""
    if SHARE >= 1:
        return
    by_file = {}
    for item in items:
        by_file.setdefault(item.nodeid.split('::')[0], []).append(item)
    keep = set()
    for group in by_file.values():
        count = math.ceil(SHARE * len(group))
        keep.update(id(item) for item in sorted(group, key=lambda i: _rank(i.nodeid))[:count])
    deselected = [item for item in items if id(item) not in keep]
    items[:] = [item for item in items if id(item) in keep]
    config.hook.pytest_deselected(items=deselected)


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout(f'test took over {TIMEOUT} s')


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _reason(report):
    if report.passed:
        return ''
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])[:300]
    crash = getattr(report.longrepr, 'reprcrash', None)
    if crash is not None:
        return crash.message.splitlines()[0][:300] if crash.message else ''
    return str(report.longrepr).strip().splitlines()[-1][:300] if report.longrepr else ''


def pytest_runtest_logreport(report):
    if OUT is None:
        return
    if report.when == 'call' or (report.when == 'setup' and not report.passed) or (
            report.when == 'teardown' and report.failed):
        if hasattr(report, 'wasxfail'):
            outcome = 'xpassed' if report.passed else 'xfailed'
        elif report.when != 'call' and report.failed:
            outcome = 'error'
        else:
            outcome = report.outcome
        with open(OUT, 'a', encoding='utf-8') as out:
            out.write(json.dumps({'id': report.nodeid, 'outcome': outcome,
                                  'reason': _reason(report)}) + '\n')


def pytest_collectreport(report):
    if OUT is None or not report.failed:
        return
    with open(OUT, 'a', encoding='utf-8') as out:
        out.write(json.dumps({'id': report.nodeid, 'outcome': 'collect-error',
                              'reason': _reason(report)}) + '\n')
