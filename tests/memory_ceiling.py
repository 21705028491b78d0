#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile inputs through the grove tool stay within its documented memory bounds.

usage: memory_ceiling.py GROVE_BINARY WORK_DIR

Each run's peak RSS (wait4's ru_maxrss of the grove process alone) is checked against the bound
docs/grove.1 states (MEMORY), and so are its exit status and message:
  - one run: peak <= --max-bytes + 2 x the input + SLACK (the reader's own scratch and the
    input's bytes beside the arena). Deep nesting, about 100 bytes of memory per input byte:
    33 MB of '[' at the default ceiling (1e9), 4 MB of '{"a":' at --max-bytes 1e8; both fail
    with "out of memory budget (--max-bytes N)", exit 2. Under an address-space limit (a real
    allocation failure), with --max-bytes 0 and with a budget the limit cuts short: "out of
    memory (allocation of N bytes failed)", the library's words, not "budget".
  - --lines: peak <= (2 x jobs + 4) x --max-bytes + SLACK (lines in flight with their text,
    arenas and results, the fixed arguments, the templates). Eight 16 MB lines under --jobs 4
    and --max-bytes 1e7 (refused as too long, never held); eight 6 MB lines that fit 3e7;
    2,400 lines of 60 KB keysets, each seen twice (1,200 templates wanted) at --max-bytes 4e6;
    300 lines of 3 KB whose results are 400 KB each (written in chunks, not held by batch);
    a 46 MB fixed argument under --lines at the same --max-bytes as without (no hidden cap).
Prints one line per run and "N passed, N failed"; exits 1 when a run broke its bound. About
20 s; the inputs are written once into WORK_DIR. Python 3 standard library only.
"""
import json
import os
import resource
import subprocess
import sys
import time

MIB = 1 << 20
SLACK = 48 * MIB  # the program, its libraries, mimalloc's own reserve, page rounding


def write_once(path, writer):
    if not os.path.exists(path):
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="ascii") as f:
            writer(f)
        os.replace(tmp, path)
    return path


def deep_list(f, n):
    f.write("[" * n + "]" * n)


def deep_dict(f, n):
    f.write('{"a":' * n + "1" + "}" * n)


def long_lines(f, count, size):
    for _ in range(count):
        f.write('["' + "x" * (size - 4) + '"]\n')


def keyset_lines(f, count, keys, key_len):
    for i in range(count):
        d = {("k%06d_%04d_" % (i // 2, j)) + "y" * (key_len - 12): j for j in range(keys)}
        f.write(json.dumps(d) + "\n")


def wide_paths(f, count, key_len, leaves):
    """Lines whose flatten-with-path repeats a long key per leaf: small lines, big results."""
    line = "{'" + "k" * key_len + "': [" + ", ".join(str(j % 10) for j in range(leaves)) + "]}\n"
    for _ in range(count):
        f.write(line)


def int_list(f, n):
    f.write("[" + ", ".join(str(i) for i in range(n)) + "]")


def run(grove, args, stdin_data=None, as_limit=None):
    """Runs grove; returns (exit status, stderr text, peak RSS in bytes, seconds)."""
    def limit():
        if as_limit:
            resource.setrlimit(resource.RLIMIT_AS, (as_limit, as_limit))
    t0 = time.monotonic()
    with open(os.devnull, "wb") as out:
        p = subprocess.Popen([grove] + args, stdin=subprocess.PIPE if stdin_data else None,
                             stdout=out, stderr=subprocess.PIPE, preexec_fn=limit)
        if stdin_data:
            p.stdin.write(stdin_data)
            p.stdin.close()
        err = p.stderr.read()
        _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, err.decode("utf-8", "replace"), usage.ru_maxrss * 1024, \
        time.monotonic() - t0


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    grove, work = os.path.abspath(argv[0]), argv[1]
    os.makedirs(work, exist_ok=True)
    passed = failed = 0

    def check(name, args, bound, want_rc, want_msg=(), avoid_msg=(), stdin_data=None,
              as_limit=None):
        nonlocal passed, failed
        rc, err, peak, secs = run(grove, args, stdin_data, as_limit)
        problems = []
        if rc != want_rc:
            problems.append("exit %d, expected %d" % (rc, want_rc))
        if bound is not None and peak > bound:
            problems.append("peak RSS %.1f MiB over the bound %.1f MiB" % (peak / MIB, bound / MIB))
        for m in want_msg:
            if m not in err:
                problems.append("no %r in %r" % (m, err[:300]))
        for m in avoid_msg:
            if m in err:
                problems.append("%r in %r" % (m, err[:300]))
        print("%s %s: peak RSS %.1f MiB%s, %.1f s, exit %d%s" % (
            "FAIL" if problems else "ok", name, peak / MIB,
            "" if bound is None else " (bound %.1f MiB)" % (bound / MIB), secs, rc,
            ": " + "; ".join(problems) if problems else ""))
        if problems:
            failed += 1
        else:
            passed += 1

    def one_run(max_bytes, path):
        return max_bytes + 2 * os.path.getsize(path) + SLACK

    def stream(max_bytes, jobs):
        return (2 * jobs + 4) * max_bytes + SLACK

    # ---- one run: deep nesting against the default ceiling and a given one ----
    deep33 = write_once(os.path.join(work, "deep-list-33mb.txt"),
                        lambda f: deep_list(f, 16_500_000))
    check("33 MB of nested lists, the default ceiling", ["stats", "@" + deep33],
          one_run(10**9, deep33), 2, ["out of memory budget (--max-bytes 1000000000)"])
    deep4 = write_once(os.path.join(work, "deep-dict-4mb.txt"), lambda f: deep_dict(f, 700_000))
    check("4 MB of nested dicts, --max-bytes 1e8", ["structure", "--max-bytes", "1e8", "@" + deep4],
          one_run(10**8, deep4), 2, ["out of memory budget (--max-bytes 100000000)"])
    check("4 MB of nested dicts, --max-bytes 0 under a 200 MB address space",
          ["structure", "--max-bytes", "0", "@" + deep4], None, 2, ["out of memory"],
          ["budget"], as_limit=200 * MIB)
    check("4 MB of nested dicts, --max-bytes 1e9 under a 200 MB address space",
          ["structure", "--max-bytes", "1e9", "@" + deep4], None, 2,
          ["out of memory (allocation of "], ["budget"], as_limit=200 * MIB)

    # ---- --lines ----
    long16 = write_once(os.path.join(work, "lines-8x16mb.txt"), lambda f: long_lines(f, 8, 16 * MIB))
    check("eight 16 MB lines, --jobs 4 --max-bytes 1e7 (too long)",
          ["structure", "--lines", "--jobs", "4", "--max-bytes", "1e7", "@" + long16],
          stream(10**7, 4), 1, ["line 8: line too long: more than --max-bytes 10000000 bytes"])
    long6 = write_once(os.path.join(work, "lines-8x6mb.txt"), lambda f: long_lines(f, 8, 6 * MIB))
    check("eight 6 MB lines, --jobs 4 --max-bytes 3e7 (they fit)",
          ["structure", "--lines", "--jobs", "4", "--max-bytes", "3e7", "@" + long6],
          stream(3 * 10**7, 4), 0, [], ["error"])
    check("eight 6 MB lines, one job, the default (5e7)",
          ["structure", "--lines", "@" + long6], stream(5 * 10**7, 1), 0, [], ["error"])
    keysets = write_once(os.path.join(work, "lines-keysets.txt"),
                         lambda f: keyset_lines(f, 2400, 300, 200))
    check("2,400 lines of 60 KB keysets, --max-bytes 4e6",
          ["fingerprint", "--lines", "--max-bytes", "4e6", "@" + keysets], stream(4 * 10**6, 1), 0,
          [], ["error"])
    check("the same, --jobs 2",
          ["fingerprint", "--lines", "--jobs", "2", "--max-bytes", "4e6", "@" + keysets],
          stream(4 * 10**6, 2), 0, [], ["error"])
    results = write_once(os.path.join(work, "lines-big-results.txt"),
                         lambda f: wide_paths(f, 300, 1000, 400))
    check("300 lines of 400 KB results, one job, --max-bytes 2e6",
          ["flatten-with-path", "--lines", "--max-bytes", "2e6", "@" + results],
          stream(2 * 10**6, 1), 0, [], ["error"])
    check("300 lines of 400 KB results, --jobs 3 --max-bytes 2e6",
          ["flatten-with-path", "--lines", "--jobs", "3", "--max-bytes", "2e6", "@" + results],
          stream(2 * 10**6, 3), 0, [], ["error"])
    fixed = write_once(os.path.join(work, "fixed-46mb.txt"), lambda f: int_list(f, 5_200_000))
    check("a 46 MB fixed argument, --max-bytes 1e9 without --lines",
          ["assert-same-structure", "--max-bytes", "1e9", "@" + fixed, "[1]"],
          one_run(10**9, fixed), 1, [], ["error"])
    check("a 46 MB fixed argument under --lines, the same --max-bytes",
          ["assert-same-structure", "--lines", "--max-bytes", "1e9", "@" + fixed],
          stream(10**9, 1), 1, [], ["error"], stdin_data=b"[1]\n[2]\n")

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
