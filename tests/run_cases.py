#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""grove's case runner: runs the `grove` tool on the case files and checks what it does.

usage: run_cases.py [--only SUBSTRING] GROVE_BINARY CASEFILE...

Prints one FAIL line per failing case, then "N passed, N failed"; exits 1 if any case failed.
Python 3 standard library only.

Case file format
----------------
A file is a sequence of blocks. Outside a block, blank lines and lines starting with '#' are
skipped; inside one, lines starting with '#' are skipped too. Each block:

    case NAME                 starts a case (NAME: any text, for the report)
    run WORD...               the operation and options, split on white space (may be empty)
    arg TEXT                  one more command-line argument: the rest of the line, verbatim
                              (repeatable, in order; `arg` alone is an empty argument)
    arghex HEX                one more command-line argument, its bytes in hex
    in TEXT                   one line of standard input (a newline is added after each)
    inhex HEX                 bytes of standard input, in hex (white space ignored); `in` and
                              `inhex` lines append in order. Without either, stdin is empty.
    file TEXT                 one line of the case's input file (a newline is added)
    filehex HEX               bytes of the case's input file, in hex
    env NAME=VALUE            an environment variable for this run (repeatable)
    tty                       standard output is a terminal (a pseudo-terminal), not a pipe
    full                      standard output is /dev/full: every write to it fails
    out TEXT                  one expected line of standard output; all `out` lines together
                              must equal the whole output, line by line
    outhex HEX                the exact bytes expected on standard output
    has TEXT                  standard output must contain TEXT (exactly; repeatable)
    noout                     standard output must be empty
    json                      standard output must be exactly one JSON document (strict: NaN
                              and Infinity are refused), white space around it allowed
    err TEXT                  must occur in standard error + standard output, ignoring case
                              (repeatable)
    noerr TEXT                must not occur in standard error + standard output, ignoring
                              case (repeatable)
    cleanerr                  standard error is UTF-8 with no control character but newline
                              (no C0, DEL or C1: bytes from the input are escaped)
    created NAME HEX          after the run, the file $TMP/NAME holds exactly these bytes
    nofile NAME               after the run, there is no file $TMP/NAME
    exit N                    the expected exit status (default 0)
    end                       ends the case

In `run` words and `arg` lines, `$TMP` is replaced by a fresh directory made for the case and
`$FILE` by the path of its input file ($TMP/input, written from the `file`/`filehex` lines).

A case with none of out/outhex/has/noout/json accepts any standard output when its exit status is
not 0, and demands an empty one when it is 0. Whatever the case says, an exit status outside
0..2 (a crash, a signal) fails it.

This format is a superset of the one the grove conformance files use, so this runner also runs
such files by hand.
"""
import json
import os
import pty
import select
import subprocess
import sys
import tempfile

TIMEOUT = 30

SINGLE = {"run", "in", "inhex", "file", "filehex", "env", "out", "outhex", "has", "err", "noerr",
          "created", "nofile", "exit", "arg", "arghex"}
FLAGS = {"tty", "full", "cleanerr", "noout", "json", "end"}


def new_case(name, where):
    return {"name": name, "where": where, "run": None, "args": [], "stdin": None,
            "file": None, "env": {}, "tty": False, "full": False, "cleanerr": False, "out": None, "outhex": None,
            "noout": False, "json": False, "has": [], "err": [], "noerr": [], "created": [], "nofile": [],
            "exit": 0}


def unhex(text, where):
    try:
        return bytes.fromhex("".join(text.split()))
    except ValueError:
        raise SystemExit(f"{where}: bad hex {text!r}")


def parse(path):
    cases, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            where = f"{path}:{n}"
            if cur is None:
                if not line.strip() or line.startswith("#"):
                    continue
                if not line.startswith("case "):
                    raise SystemExit(f"{where}: expected 'case NAME', got {line!r}")
                cur = new_case(line[5:].strip(), where)
                continue
            if line.startswith("#"):
                continue
            word, sep, rest = line.partition(" ")
            if word in FLAGS and not rest.strip():
                if word == "end":
                    if cur["run"] is None:
                        raise SystemExit(f"{cur['where']}: case {cur['name']!r} has no 'run'")
                    cases.append(cur)
                    cur = None
                else:
                    cur[word] = True
                continue
            if word not in SINGLE:
                raise SystemExit(f"{where}: unknown line {line!r}")
            if word == "run":
                cur["run"] = rest.split()
            elif word == "arg":
                cur["args"].append(rest)
            elif word == "arghex":
                cur["args"].append(unhex(rest, where))
            elif word in ("in", "inhex"):
                data = (rest + "\n").encode() if word == "in" else unhex(rest, where)
                cur["stdin"] = (cur["stdin"] or b"") + data
            elif word in ("file", "filehex"):
                data = (rest + "\n").encode() if word == "file" else unhex(rest, where)
                cur["file"] = (cur["file"] or b"") + data
            elif word == "env":
                name, eq, value = rest.partition("=")
                if not eq or not name:
                    raise SystemExit(f"{where}: env needs NAME=VALUE")
                cur["env"][name] = value
            elif word == "out":
                cur["out"] = (cur["out"] or []) + [rest]
            elif word == "outhex":
                cur["outhex"] = (cur["outhex"] or b"") + unhex(rest, where)
            elif word in ("has", "err", "noerr", "nofile"):
                cur[word].append(rest)
            elif word == "created":
                name, _, hexdata = rest.partition(" ")
                cur["created"].append((name, unhex(hexdata, where)))
            elif word == "exit":
                try:
                    cur["exit"] = int(rest)
                except ValueError:
                    raise SystemExit(f"{where}: exit needs a number")
    if cur is not None:
        raise SystemExit(f"{path}: case {cur['name']!r} has no 'end'")
    return cases


def run_piped(cmd, stdin, env):
    p = subprocess.run(cmd, input=stdin if stdin is not None else b"",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       timeout=TIMEOUT)
    return p.returncode, p.stdout, p.stderr


def run_full(cmd, stdin, env):
    """Runs cmd with its standard output on /dev/full."""
    with open("/dev/full", "wb") as full:
        p = subprocess.run(cmd, input=stdin if stdin is not None else b"", stdout=full,
                           stderr=subprocess.PIPE, env=env, timeout=TIMEOUT)
    return p.returncode, b"", p.stderr


def clean_text(data):
    """Whether data is UTF-8 with no control character but newline."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not any((ord(ch) < 0x20 and ch != "\n") or 0x7F <= ord(ch) <= 0x9F for ch in text)


def run_tty(cmd, stdin, env):
    """Runs cmd with its standard output on a pseudo-terminal."""
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=slave, stderr=subprocess.PIPE,
                             env=env)
    finally:
        os.close(slave)
    out = bytearray()
    try:
        if stdin:
            p.stdin.write(stdin)
        p.stdin.close()
        while True:
            ready, _, _ = select.select([master], [], [], TIMEOUT)
            if not ready:
                p.kill()
                raise subprocess.TimeoutExpired(cmd, TIMEOUT)
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        err = p.stderr.read()
        p.wait(TIMEOUT)
    finally:
        os.close(master)
    # the terminal turns "\n" into "\r\n"
    return p.returncode, bytes(out).replace(b"\r\n", b"\n"), err


def strict_json(text):
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def check(grove, c):
    with tempfile.TemporaryDirectory(prefix="grove-case-") as tmp:
        path = os.path.join(tmp, "input")
        if c["file"] is not None:
            with open(path, "wb") as f:
                f.write(c["file"])

        def subst(s):
            return s.replace("$FILE", path).replace("$TMP", tmp)

        cmd = [grove] + [subst(w) for w in c["run"]] + [
            subst(a) if isinstance(a, str) else a for a in c["args"]]
        env = dict(os.environ)
        env.update(c["env"])
        try:
            if c["tty"]:
                code, out, err = run_tty(cmd, c["stdin"], env)
            elif c["full"]:
                code, out, err = run_full(cmd, c["stdin"], env)
            else:
                code, out, err = run_piped(cmd, c["stdin"], env)
        except subprocess.TimeoutExpired:
            return "timed out"
        except OSError as e:
            return f"could not run: {e}"

        problems = []
        if code != c["exit"]:
            problems.append(f"exit {code}, expected {c['exit']}")
        if code < 0 or code > 2:
            problems.append(f"abnormal exit {code}")
        text = out.decode("utf-8", "replace")
        etext = err.decode("utf-8", "replace")
        if c["out"] is not None and text.splitlines() != c["out"]:
            problems.append(f"stdout {text.splitlines()!r}, expected {c['out']!r}")
        if c["outhex"] is not None and out != c["outhex"]:
            problems.append(f"stdout {out.hex()}, expected {c['outhex'].hex()}")
        for s in c["has"]:
            if s not in text:
                problems.append(f"stdout lacks {s!r}")
        if c["noout"] and out:
            problems.append(f"stdout {text!r}, expected nothing")
        if c["json"]:
            try:
                strict_json(text)
            except ValueError as e:
                problems.append(f"stdout is not one JSON document ({e}): {text!r}")
        checked = (c["out"] is not None or c["outhex"] is not None or c["has"] or c["noout"]
                   or c["json"])
        if not checked and c["exit"] == 0 and out:
            problems.append(f"stdout {text!r}, expected nothing")
        if c["cleanerr"] and not clean_text(err):
            problems.append(f"standard error holds raw bytes: {err!r}")
        both = (etext + text).lower()
        for s in c["err"]:
            if s.lower() not in both:
                problems.append(f"message lacks {s!r}: {etext.strip()!r}")
        for s in c["noerr"]:
            if s.lower() in both:
                problems.append(f"message has {s!r}: {etext.strip()!r}")
        for name in c["nofile"]:
            if os.path.exists(os.path.join(tmp, name)):
                problems.append(f"{name} exists")
        for name, want in c["created"]:
            try:
                with open(os.path.join(tmp, name), "rb") as f:
                    got = f.read()
            except OSError as e:
                problems.append(f"{name} not created: {e}")
                continue
            if got != want:
                problems.append(f"{name} holds {got.hex()}, expected {want.hex()}")
        return "; ".join(problems)


def main(argv):
    only = None
    if len(argv) >= 2 and argv[0] == "--only":
        only, argv = argv[1], argv[2:]
    if len(argv) < 2:
        raise SystemExit(__doc__.split("\n\n")[1])
    grove, passed, failed = os.path.abspath(argv[0]), 0, 0
    for path in argv[1:]:
        for c in parse(path):
            if only is not None and only not in c["name"]:
                continue
            why = check(grove, c)
            if why:
                failed += 1
                print(f"FAIL {c['name']} ({c['where']}): {why}")
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
