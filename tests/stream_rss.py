#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Long streams through `grove OP --lines`: memory stays flat, bad lines are reported.

usage: stream_rss.py [--no-rss] GROVE_BINARY WORK_DIR [LINES]

Writes a stream of LINES records (default 1,000,000; one JSON dict per line, keys in a few
orders, with bad lines at known places) and its first 100,000 lines, then runs
`grove order --lines` (one thread) and `grove fingerprint --lines --jobs 2` on both. Checks:
  - peak RSS (grove's VmHWM, else wait4's ru_maxrss) at LINES and at 100,000 lines differ by at most SLACK_KIB;
  - exit status 1, and exactly the bad lines reported as "grove: error: line N, column C: ..." on
    standard error, in order;
  - one result per good line: `order` outputs checked against Python's own sorted dicts on a
    sample, fingerprints equal exactly where the lines are equal;
  - the stream built shared parents with keyset templates (GROVE_LINES_STATS).
--no-rss skips the memory check (sanitizer builds, whose allocators keep freed memory).
Python 3 standard library only.
"""
import json
import os
import re
import subprocess
import sys
import time

SLACK_KIB = 4 * 1024
SMALL = 100_000
ORDERS = [
    ["id", "name", "kind", "tags", "score", "pos"],
    ["name", "id", "pos", "score", "kind", "tags"],
    ["tags", "pos", "score", "kind", "name", "id"],
    ["pos", "kind", "id", "tags", "name", "score"],
]
KINDS = ["alpha", "beta", "gamma"]


def bad_lines(n):
    """1-based numbers of the bad lines of a stream of n lines."""
    cand = [3, 50_000, 654_321, n]
    return sorted({x for x in cand if x <= n})


def record(i):
    vals = {
        "id": i,
        "name": "user%d" % (i % 1000),
        "kind": KINDS[i % 3],
        "tags": ["t%d" % (i % 7), "u%d" % (i % 5)],
        "score": (i % 4096) / 8,
        "pos": {"y": i % 89, "x": i % 97},
    }
    return "{" + ", ".join('"%s": %s' % (k, json.dumps(vals[k])) for k in ORDERS[i % 4]) + "}\n"


def write_stream(path, n):
    bad = set(bad_lines(n))
    with open(path, "w", encoding="ascii") as f:
        chunk = []
        for i in range(1, n + 1):
            if i in bad:
                chunk.append('{"id": %d, "broken": [1, 2}\n' % i)
            else:
                chunk.append(record(i))
            if len(chunk) == 20000:
                f.write("".join(chunk))
                chunk = []
        f.write("".join(chunk))


def run(grove, args, path, out_path):
    """Runs grove; returns (exit status, stderr text, peak RSS in KiB, seconds)."""
    env = dict(os.environ, GROVE_LINES_STATS="1")
    t0 = time.monotonic()
    with open(out_path, "wb") as out, open(out_path + ".err", "wb") as err:
        p = subprocess.Popen([grove] + args + ["@" + path], stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
    secs = time.monotonic() - t0
    with open(out_path + ".err", encoding="utf-8") as f:
        err_text = f.read()
    # grove's own peak (VmHWM): wait4's ru_maxrss also counts this script's pages, which the
    # child holds between fork and exec
    m = re.search(r"peak RSS (\d+) KiB", err_text)
    kib = int(m.group(1)) if m and int(m.group(1)) > 0 else usage.ru_maxrss
    return os.waitstatus_to_exitcode(status), err_text, kib, secs


def sorted_repr(v):
    """Python's repr of v with every dict in sorted key order (what grove order prints)."""
    if isinstance(v, dict):
        return "{" + ", ".join("%r: %s" % (k, sorted_repr(v[k])) for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(sorted_repr(x) for x in v) + "]"
    return repr(v)


def check(problems, what, n, status, err, out_path):
    bad = bad_lines(n)
    if status != 1:
        problems.append(f"{what}: exit status {status}, wanted 1")
    reported = [int(m) for m in re.findall(r"^grove: error: line (\d+), column \d+: ", err, re.M)]
    if reported != bad:
        problems.append(f"{what}: reported bad lines {reported[:10]}, wanted {bad}")
    stats = re.search(r"^grove: lines (\d+), bad (\d+), parents (\d+), templates (\d+)", err, re.M)
    if not stats:
        problems.append(f"{what}: no GROVE_LINES_STATS line")
    elif int(stats.group(3)) < 2 or int(stats.group(4)) < 1:
        problems.append(f"{what}: no shared parent with templates was made: {stats.group(0)}")
    bad_set = set(bad)
    good = [i for i in range(1, n + 1) if i not in bad_set]
    results = 0
    by_order = {}
    with open(out_path, encoding="utf-8") as f:
        for k, line in enumerate(f):
            results += 1
            if k >= len(good):
                continue
            i = good[k]
            line = line.rstrip("\n")
            if what.startswith("order"):
                if i % 997 == 1 and line != sorted_repr(json.loads(record(i))):
                    problems.append(f"{what}: line {i}: {line!r}")
            else:
                if not re.fullmatch(r"[0-9a-f]{32}", line):
                    problems.append(f"{what}: line {i}: {line!r}")
                if i <= 2000:
                    by_order.setdefault(record(i), set()).add(line)
            if len(problems) > 20:
                return
    if results != len(good):
        problems.append(f"{what}: {results} results for {len(good)} good lines")
    if by_order:
        fps = [next(iter(v)) for v in by_order.values() if len(v) == 1]
        if len(fps) != len(by_order) or len(set(fps)) != len(fps):
            problems.append(f"{what}: fingerprints differ for equal lines or agree for unequal ones")


def main(argv):
    check_rss = "--no-rss" not in argv
    argv = [a for a in argv if a != "--no-rss"]
    if len(argv) not in (2, 3):
        raise SystemExit(__doc__)
    grove, work = argv[0], argv[1]
    n = int(argv[2]) if len(argv) == 3 else 1_000_000
    os.makedirs(work, exist_ok=True)
    big = os.path.join(work, "stream-big.jsonl")
    small = os.path.join(work, "stream-small.jsonl")
    stamp = os.path.join(work, "stream-big.lines")
    if (not os.path.exists(big) or not os.path.exists(stamp)
            or open(stamp, encoding="ascii").read() != str(n)):
        write_stream(big + ".tmp", n)
        os.replace(big + ".tmp", big)
        with open(stamp, "w", encoding="ascii") as f:
            f.write(str(n))
    write_stream(small, min(SMALL, n))
    problems = []
    for op, args in (("order", ["order", "--lines"]),
                     ("fingerprint", ["fingerprint", "--lines", "--jobs", "2"])):
        rss = {}
        for size, path in (("small", small), ("big", big)):
            count = min(SMALL, n) if size == "small" else n
            out = os.path.join(work, f"stream-{op}-{size}.out")
            status, err, kib, secs = run(grove, args, path, out)
            rss[size] = kib
            print(f"{op} --lines{' --jobs 2' if '--jobs' in args else ''}: {count} lines in "
                  f"{secs:.2f} s ({count / secs:,.0f} lines/s), peak RSS {kib / 1024:.1f} MiB")
            check(problems, f"{op} {size}", count, status, err, out)
            os.remove(out)
        if check_rss and rss["big"] - rss["small"] > SLACK_KIB:
            problems.append(f"{op}: peak RSS grew from {rss['small']} KiB ({SMALL} lines) to "
                            f"{rss['big']} KiB ({n} lines)")
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
