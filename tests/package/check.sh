#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks grove as a package, the way a user or a packager meets it:
#   1. builds and installs grove twice, static and shared, each to a temporary prefix other
#      than the one configured (so grove.pc must find its prefix by itself);
#   2. checks what was installed, and that libgrove.so exports exactly the gv_ functions of
#      include/grove.h (nm -D), with the soname of CHANGELOG.md's rule; runs the installed
#      tool of both (no LD_LIBRARY_PATH: the shared one by its $ORIGIN RUNPATH, also after
#      its prefix is moved);
#   3. builds and runs tests/package/consumer.c through find_package (static, shared),
#      pkg-config (static: plain --libs and --static; shared: plain --libs) and
#      add_subdirectory (which must register none of grove's tests);
#   4. checks that find_package(grove CONFIG) without REQUIRED does not abort when mimalloc or
#      xxHash is missing (static), and that the shared package needs neither.
# usage: tests/package/check.sh   (environment: JOBS, CC, GROVE_PACKAGE_KEEP=1 keeps the work dir)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
pkg=$src/tests/package
jobs=${JOBS:-2}
cc=${CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/grove-package.XXXXXX")
if [ "${GROVE_PACKAGE_KEEP:-}" = 1 ]; then
  echo "work dir: $work"
else
  trap 'rm -rf "$work"' EXIT
fi
gen=()
if command -v ninja >/dev/null; then gen=(-G Ninja); fi
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
quiet() { # runs a command, shows its output only when it fails
  local log=$work/log.txt
  if ! "$@" >"$log" 2>&1; then cat "$log" >&2; fail "$*"; fi
}

# ---- 1. build and install ----
# The static install uses lib/, the shared one a Debian-style multiarch lib/<triplet>/.
multiarch=$("$cc" -print-multiarch 2>/dev/null || true)
static_libdir=lib
shared_libdir=lib${multiarch:+/$multiarch}
for kind in static shared; do
  step "build and install grove ($kind)"
  if [ $kind = shared ]; then shared=ON libdir=$shared_libdir; else shared=OFF libdir=$static_libdir; fi
  quiet cmake -S "$src" -B "$work/build-$kind" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DGROVE_SHARED=$shared -DGROVE_TESTS=OFF -DGROVE_EXAMPLES=OFF -DGROVE_BENCH=OFF \
    -DCMAKE_INSTALL_PREFIX=/nonexistent/configured-prefix -DCMAKE_INSTALL_LIBDIR="$libdir"
  quiet cmake --build "$work/build-$kind" -j "$jobs"
  quiet cmake --install "$work/build-$kind" --prefix "$work/prefix-$kind"
done
S=$work/prefix-static
D=$work/prefix-shared
SL=$S/$static_libdir
DL=$D/$shared_libdir

# ---- 2. what was installed ----
step "installed files"
for p in "$S:$static_libdir" "$D:$shared_libdir"; do
  l=${p#*:} p=${p%%:*}
  for f in include/grove.h include/grove_mutate.h include/grove_fuzz.h bin/grove "$l/cmake/grove/groveConfig.cmake" \
           "$l/cmake/grove/groveConfigVersion.cmake" "$l/cmake/grove/groveTargets.cmake" \
           "$l/pkgconfig/grove.pc" share/man/man1/grove.1 \
           share/bash-completion/completions/grove share/doc/grove/LICENSE; do
    [ -e "$p/$f" ] || fail "$p/$f not installed"
  done
done
[ -e "$SL/libgrove.a" ] || fail "static: no libgrove.a"
ls "$SL"/libgrove.so* >/dev/null 2>&1 && fail "static: a shared library was installed"
version=$(sed -n 's/^#define GV_VERSION_STRING "\(.*\)"/\1/p' "$src/include/grove.h")
major=${version%%.*}; rest=${version#*.}; minor=${rest%%.*}
if [ "$major" = 0 ]; then soname=libgrove.so.0.$minor; else soname=libgrove.so.$major; fi
for f in libgrove.so "$soname" "libgrove.so.$version"; do
  [ -e "$DL/$f" ] || fail "shared: no $DL/$f"
done
[ -e "$DL/libgrove.a" ] && fail "shared: a static library was installed"
got_soname=$(readelf -d "$DL/libgrove.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$got_soname" = "$soname" ] || fail "soname is '$got_soname', expected $soname"
echo "ok: $version, soname $soname"

# The installed tool runs where it was installed, with nothing set in the environment (the
# shared one finds libgrove.so through its RUNPATH, relative to itself), and moved with its
# prefix it still runs.
step "the installed tool runs"
run_tool() { # $1 what, $2 the tool
  local out
  out=$(env -u LD_LIBRARY_PATH "$2" --version 2>&1) && [ "$out" = "grove $version" ] ||
    fail "$1 grove --version: $out"
  out=$(env -u LD_LIBRARY_PATH "$2" flatten "{'b': [1, 2], 'a': None}" 2>&1) &&
    [ "$out" = $'None\n1\n2' ] || fail "$1 grove flatten: $out"
  local rc=0
  out=$(printf '[1]\n2\n' | env -u LD_LIBRARY_PATH "$2" is-nested --lines 2>&1) || rc=$?
  [ $rc = 1 ] && [ "$out" = $'True\nFalse' ] || fail "$1 grove is-nested --lines ($rc): $out"
  echo "ok: $1"
}
run_tool static "$S/bin/grove"
run_tool shared "$D/bin/grove"
# (each command's output is read whole before grep looks at it: `cmd | grep -q` under pipefail
# fails at random when grep exits at its match and cmd gets SIGPIPE)
dyn=$(readelf -d "$D/bin/grove")
grep -q 'R\(UN\)\?PATH.*\$ORIGIN/\.\./'"$shared_libdir" <<<"$dyn" ||
  fail "shared grove: no \$ORIGIN-relative RUNPATH: $(readelf -d "$D/bin/grove" | grep -i path)"
loads() { # $1 executable, $2 the libgrove.so it must load (no LD_LIBRARY_PATH)
  local got
  got=$(env -u LD_LIBRARY_PATH ldd "$1" | sed -n "s|^[[:space:]]*$soname => \(.*\) (0x.*|\1|p")
  [ -n "$got" ] && [ "$got" -ef "$2" ] || fail "$1 loads '$got', not $2"
}
loads "$D/bin/grove" "$DL/$soname"
cp -a "$D" "$work/prefix-moved"
run_tool "shared, prefix moved" "$work/prefix-moved/bin/grove"
loads "$work/prefix-moved/bin/grove" "$work/prefix-moved/$shared_libdir/$soname"

step "exported symbols of libgrove.so"
nm -D --defined-only "$DL/libgrove.so" | awk '{print $NF}' | sort >"$work/exported"
cat "$src/include/grove.h" "$src/include/grove_mutate.h" | grep -o 'gv_[a-z0-9_]*(' | tr -d '(' |
  sort -u >"$work/declared"
bad=$(grep -v '^gv_' "$work/exported" || true)
[ -z "$bad" ] || fail "libgrove.so exports names other than gv_:"$'\n'"$bad"
private=$(grep '^gv__' "$work/exported" || true)
[ -z "$private" ] || fail "libgrove.so exports private gv__ names:"$'\n'"$private"
# every exported name is a function of the header, and every function of the header is exported
# (the header's other gv_ words followed by '(' are function-pointer typedefs)
extra=$(comm -23 "$work/exported" "$work/declared")
[ -z "$extra" ] || fail "exported but not in grove.h or grove_mutate.h: $extra"
missing=$(comm -13 "$work/exported" "$work/declared" | grep -v -x -e gv_write_fn -e gv_path_fn \
  -e gv_traverse_fn -e gv_map_fn -e gv_mutate_leaf_fn || true)
[ -z "$missing" ] || fail "declared in the headers but not exported: $missing"
echo "ok: $(wc -l <"$work/exported") symbols, all gv_ and public"

# ---- 3. consumers ----
run_consumer() { # $1 what, then the command
  local what=$1; shift
  local out
  out=$("$@") || fail "$what: the consumer failed: $out"
  case $out in "consumer: grove $version, 3 leaves, "*) ;; *) fail "$what: got '$out'" ;; esac
  echo "ok: $what"
}
uses_shared() { # $1 executable: must load libgrove.so from the shared prefix
  local libs
  libs=$(LD_LIBRARY_PATH=$DL ldd "$1")
  grep -q "$soname => $DL/" <<<"$libs" || fail "$1 does not load $DL/$soname"
}

step "find_package(grove CONFIG REQUIRED)"
for kind in static shared; do
  quiet cmake -S "$pkg/find_package" -B "$work/fp-$kind" "${gen[@]}" \
    -DCMAKE_PREFIX_PATH="$work/prefix-$kind"
  quiet cmake --build "$work/fp-$kind"
  run_consumer "find_package, $kind" "$work/fp-$kind/consumer"
done
uses_shared "$work/fp-shared/consumer"
dyn=$(readelf -d "$work/fp-static/consumer")
grep -q "$soname" <<<"$dyn" && fail "static consumer needs libgrove.so"

step "pkg-config"
pc() { PKG_CONFIG_PATH=$1/pkgconfig pkg-config "${@:2}" grove; }
[ "$(pc "$SL" --variable=prefix)" -ef "$S" ] || fail "grove.pc: prefix $(pc "$SL" --variable=prefix)"
[ "$(pc "$DL" --variable=prefix)" -ef "$D" ] || fail "grove.pc: prefix $(pc "$DL" --variable=prefix)"
[ "$(pc "$DL" --variable=libdir)" -ef "$DL" ] || fail "grove.pc: libdir $(pc "$DL" --variable=libdir)"
[ "$(pc "$SL" --modversion)" = "$version" ] || fail "grove.pc: version"
# shellcheck disable=SC2046
quiet "$cc" "$pkg/consumer.c" -o "$work/pc-static" $(pc "$SL" --cflags) $(pc "$SL" --libs)
run_consumer "pkg-config --libs, static" "$work/pc-static"
# shellcheck disable=SC2046
quiet "$cc" "$pkg/consumer.c" -o "$work/pc-static2" $(pc "$SL" --cflags --static) $(pc "$SL" --libs --static)
run_consumer "pkg-config --static --libs, static" "$work/pc-static2"
# shellcheck disable=SC2046
quiet "$cc" "$pkg/consumer.c" -o "$work/pc-shared" $(pc "$DL" --cflags) $(pc "$DL" --libs)
run_consumer "pkg-config --libs, shared" env LD_LIBRARY_PATH="$DL" "$work/pc-shared"
uses_shared "$work/pc-shared"
case " $(pc "$DL" --libs) " in *mimalloc*) fail "shared grove.pc: --libs names mimalloc" ;; esac

step "add_subdirectory"
quiet cmake -S "$pkg/subdir" -B "$work/sub" "${gen[@]}" -DGROVE_SOURCE_DIR="$src"
quiet cmake --build "$work/sub" -j "$jobs"
run_consumer "add_subdirectory" "$work/sub/consumer"
tests=$(ctest --test-dir "$work/sub" -N | sed -n 's/^Total Tests: //p')
[ "$tests" = 1 ] || fail "add_subdirectory: $tests tests registered, expected only the consumer's"
[ -e "$work/sub/grove/grove" ] && fail "add_subdirectory: the grove tool was built"
echo "ok: only the consumer's test is registered"

# ---- 4. find_package without REQUIRED, dependencies missing ----
step "find_package(grove CONFIG) without REQUIRED"
optional() { # $1 prefix, $2 build dir, rest: extra cmake arguments; prints the configure log
  cmake -S "$pkg/optional" -B "$work/$2" "${gen[@]}" -DCMAKE_PREFIX_PATH="$1" "${@:3}" 2>&1 ||
    fail "optional ($2): the configure step failed"
}
log=$(optional "$S" opt-nomimalloc -DCMAKE_DISABLE_FIND_PACKAGE_mimalloc=ON)
grep -qE "grove_FOUND=(0|FALSE|OFF)$" <<<"$log" || fail "static without mimalloc: grove was found"$'\n'"$log"
grep -q "mimalloc" <<<"$log" || fail "static without mimalloc: no message names mimalloc"
echo "ok: static, mimalloc missing: grove_FOUND=FALSE, configure goes on"
mkdir -p "$work/no-pc"
log=$(PKG_CONFIG_LIBDIR=$work/no-pc PKG_CONFIG_PATH= optional "$S" opt-noxxhash)
grep -qE "grove_FOUND=(0|FALSE|OFF)$" <<<"$log" || fail "static without xxhash: grove was found"$'\n'"$log"
grep -q "xxHash" <<<"$log" || fail "static without xxhash: no message names xxHash"
echo "ok: static, xxHash missing: grove_FOUND=FALSE, configure goes on"
log=$(PKG_CONFIG_LIBDIR=$work/no-pc PKG_CONFIG_PATH= optional "$D" opt-shared \
  -DCMAKE_DISABLE_FIND_PACKAGE_mimalloc=ON)
grep -qE "grove_FOUND=(1|TRUE|ON)" <<<"$log" || fail "shared: needs mimalloc or xxHash to be found"$'\n'"$log"
quiet cmake --build "$work/opt-shared"
run_consumer "shared, found without mimalloc and xxHash" "$work/opt-shared/consumer"

echo "package check: all ok"
