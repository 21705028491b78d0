#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that the man page and the bash completion know every operation and option.

usage: check_cli_docs.py GROVE_BINARY SOURCE_DIR

The operations and options are read from `grove --help` (which the tool builds from its own
tables); each must appear in docs/grove.1 (as roff writes it: '-' as '\\-') and in
tools/grove.bash, and the completion, run in bash, must offer every operation.
"""
import os
import re
import shutil
import subprocess
import sys


def main(argv):
    if len(argv) != 2:
        raise SystemExit(__doc__)
    grove, src = argv
    help_text = subprocess.run([grove, "--help"], capture_output=True, text=True,
                               check=True).stdout
    ops, opts, section = [], [], None
    for line in help_text.splitlines():
        if line in ("operations:", "options:"):
            section = line
            continue
        if not line.startswith("  "):
            section = None if not line else section
            continue
        if section == "operations:":
            ops.append(line.split()[0])
        elif section == "options:":
            opts += re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", line.split("  ")[1])
    problems = []
    if len(ops) < 10 or len(opts) < 10:
        problems.append(f"could not read the help: {ops} {opts}")
    with open(os.path.join(src, "docs", "grove.1"), encoding="utf-8") as f:
        man = f.read()
    with open(os.path.join(src, "tools", "grove.bash"), encoding="utf-8") as f:
        bash = f.read()
    for word in ops + opts:
        if word.replace("-", "\\-") not in man:
            problems.append(f"docs/grove.1 does not mention {word}")
        if not re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", bash):
            problems.append(f"tools/grove.bash does not mention {word}")
    if shutil.which("bash"):
        script = ('source "$1"; COMP_WORDS=(grove ""); COMP_CWORD=1; _grove; '
                  'printf "%s\\n" "${COMPREPLY[@]}"')
        got = subprocess.run(["bash", "-c", script, "x", os.path.join(src, "tools", "grove.bash")],
                             capture_output=True, text=True).stdout.split()
        missing = [op for op in ops if op not in got]
        if missing:
            problems.append(f"bash completion does not offer {missing}")
    for p in problems:
        print(p)
    print(f"{len(ops)} operations, {len(opts)} options checked: "
          f"{'ok' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
