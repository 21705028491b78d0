#!/bin/sh
# SPDX-License-Identifier: MIT
# cjson-source.sh DIR -- puts the source of Debian's cJSON package (the version this machine's
# libcjson-dev is, patches applied) into DIR, so the fuzz preset compiles cJSON.c with
# coverage instrumentation for fuzz_cjson and fuzz_cjson_grove. Uses apt-get with a private
# source list and state under DIR (the system's apt configuration is not touched) and
# dpkg-source. Nothing of it is kept in the repository. Does nothing when DIR/cJSON.c exists.
# DIR gets cJSON.c and include/cjson/cJSON.h.
set -eu
dir=$1
[ -f "$dir/cJSON.c" ] && exit 0
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/dl"
dir=$(cd "$dir" && pwd)
. /etc/os-release
cat >"$dir/apt/sources.list" <<EOS
deb-src http://deb.debian.org/debian $VERSION_CODENAME main
deb-src http://deb.debian.org/debian $VERSION_CODENAME-updates main
deb-src http://deb.debian.org/debian-security $VERSION_CODENAME-security main
EOS
apt="apt-get -q -o Dir::Etc::SourceList=$dir/apt/sources.list -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists=$dir/apt/lists -o Dir::Cache=$dir/apt/cache -o APT::Sandbox::User=root"
$apt update >/dev/null
version=$(dpkg-query -W -f '${Version}' libcjson-dev 2>/dev/null || true)
cd "$dir/dl"
$apt source --download-only "cjson${version:+=$version}" >/dev/null
dpkg-source -x --no-check ./*.dsc src >/dev/null
mkdir -p "$dir/include/cjson"
cp src/cJSON.c src/cJSON.h "$dir/"
cp src/cJSON.h "$dir/include/cjson/"
echo "cjson-source.sh: cJSON ${version:-(newest)} from Debian's source package in $dir"
