#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Puts the line "SPDX-License-Identifier: MIT" (as a comment) at the top of every source file
# that lacks it: C, CMake, Python, shell, the man page, the Makefile, pkg-config and fuzzer
# dictionary files. Idempotent; run it again after adding or merging files.
# usage: tools/add-spdx.sh [--check]   (--check: only list the files without it; exit 1 if any)
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && check=1
tag="SPDX-License-Identifier: MIT"
missing=0
while IFS= read -r f; do
  head -n 5 "$f" | grep -q "SPDX-License-Identifier" && continue
  missing=1
  if [ $check = 1 ]; then echo "$f"; continue; fi
  case $f in
    *.c|*.h) line="/* $tag */" ;;
    *.1) line=".\\\" $tag" ;;
    *) line="# $tag" ;;
  esac
  tmp=$(mktemp)
  if head -n 1 "$f" | grep -q '^#!'; then # after the interpreter line
    { head -n 1 "$f"; printf '%s\n' "$line"; tail -n +2 "$f"; } >"$tmp"
  else
    { printf '%s\n' "$line"; cat "$f"; } >"$tmp"
  fi
  cat "$tmp" >"$f" # keeps the file's mode
  rm -f "$tmp"
done < <(git ls-files -- '*.c' '*.h' '*.py' '*.sh' '*.bash' '*.cmake' '*.cmake.in' '*.pc.in' \
           '*.1' '*.dict' 'CMakeLists.txt' '*/CMakeLists.txt' 'Makefile' '.ci/run')
[ $check = 1 ] && exit $missing
exit 0
