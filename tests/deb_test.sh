#!/usr/bin/env bash
# The Debian package (issue 22): builds rateperf_*.deb with dpkg-buildpackage in a temporary
# clone of the source tree's HEAD (without its tests: debian/rules), checks it with lintian (no
# error), installs it, runs the installed rateperf --version, man rateperf and a short run
# against a demo server on loopback, then purges it again, also when a step failed: nothing
# stays installed. Installs debhelper and lintian as root when missing; skipped (exit 77, with
# the reason) when not root or without the packages. About 3 minutes, most of it the build.
# Usage: tests/deb_test.sh SOURCE_DIR DEMO_SERVER
set -uo pipefail
source_dir=$1 demo_server=$2
# shellcheck source=tests/demo_server_lib.sh
. "$(dirname "$0")/demo_server_lib.sh"
PATH=$PATH:/usr/sbin:/sbin
skip() { echo "SKIP: $*"; exit 77; }
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

[[ $(id -u) -eq 0 ]] || skip "installing a package needs root"
dpkg-query -W -f='${Status}' rateperf 2>/dev/null | grep -q "install ok installed" &&
  skip "a rateperf package is installed already; this test would replace and purge it"
missing=()
for package in debhelper dpkg-dev lintian man-db git; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } \
    >/tmp/rateperf-deb-apt.log 2>&1 || skip "apt-get install ${missing[*]} failed (/tmp/rateperf-deb-apt.log)"
fi

work=$(mktemp -d /tmp/rateperf-deb.XXXXXX)
demo_pid=
cleanup() {
  [[ -n $demo_pid ]] && kill "$demo_pid" 2>/dev/null
  if dpkg-query -W -f='${Status}' rateperf 2>/dev/null | grep -q installed; then
    dpkg --purge rateperf >/dev/null 2>&1 || echo "FAIL: dpkg --purge rateperf"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# (1) Build, from a clean checkout of HEAD; unoptimized and without the debug-symbol package, to
# keep the test to minutes (a user's build keeps dpkg's -O2).
git clone -q "$source_dir" "$work/rateperf" || { echo "FAIL: git clone $source_dir"; exit 1; }
if (cd "$work/rateperf" && DEB_BUILD_OPTIONS="nocheck noopt noddebs parallel=$(nproc)" \
      dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
  ok "dpkg-buildpackage -us -uc -b"
else
  echo "FAIL: dpkg-buildpackage:"; tail -n 30 "$work/build.log"; exit 1
fi
deb=$(ls "$work"/rateperf_*.deb 2>/dev/null | head -n 1)
[[ -n $deb ]] || { echo "FAIL: no rateperf_*.deb in $work"; exit 1; }
ok "built $(basename "$deb")"
echo "--- the package's files:"
dpkg-deb -c "$deb" | awk '{ print $6 }'
echo "---"
# dh_compress gzips the documentation (README.md.gz, docs/*.md.gz), as Debian policy asks.
for file in ./usr/bin/rateperf ./usr/share/man/man1/rateperf.1.gz \
            ./usr/share/bash-completion/completions/rateperf ./usr/share/doc/rateperf/README.md.gz; do
  dpkg-deb -c "$deb" | awk '{ print $6 }' | grep -qxF "$file" && ok "the package holds $file" ||
    bad "the package has no $file"
done
depends=$(dpkg-deb -f "$deb" Depends)
for library in libevent libboost-program-options libhttp-parser libssl3; do
  [[ $depends == *"$library"* ]] && ok "Depends names $library" || bad "Depends: '$depends', no $library"
done

# (2) lintian: no error.
lintian --tag-display-limit 0 "$deb" >"$work/lintian.log" 2>&1
echo "--- lintian:"; cat "$work/lintian.log"; echo "---"
if grep -q '^E:' "$work/lintian.log"; then bad "lintian reports errors"; else ok "lintian: no error"; fi

# (3) Install, use, purge.
if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$work/install.log" 2>&1; then
  ok "apt-get install $(basename "$deb")"
  version=$(/usr/bin/rateperf --version)
  [[ $version == "rateperf "* ]] && ok "/usr/bin/rateperf --version: $version" || bad "--version: '$version'"
  first=$(MANWIDTH=80 man rateperf 2>/dev/null | head -n 12)
  echo "--- man rateperf (the first screen):"; echo "$first"; echo "---"
  [[ $first == *"rateperf - open-loop, rate-controlled HTTP benchmark"* ]] && ok "man rateperf" ||
    bad "man rateperf shows no NAME line"
  demo_server_start "$demo_server" "$work"
  if [[ -n $demo_port ]] &&
     timeout 30 /usr/bin/rateperf --server 127.0.0.1 --port "$demo_port" --rate 50 \
       --num-conns 20 --timeout 5 -q >"$work/run.txt" 2>&1 &&
     grep -q '^Total: connections 20 requests 20 replies 20 ' "$work/run.txt"; then
    ok "the installed rateperf: $(grep '^Total:' "$work/run.txt")"
  else
    bad "the installed rateperf's run:"; cat "$work/run.txt"
  fi
  kill "$demo_pid" 2>/dev/null; demo_pid=
  if dpkg --purge rateperf >/dev/null 2>&1 && [[ ! -e /usr/bin/rateperf ]]; then
    ok "dpkg --purge rateperf: /usr/bin/rateperf is gone"
  else
    bad "dpkg --purge rateperf left /usr/bin/rateperf"
  fi
else
  bad "apt-get install:"; tail -n 20 "$work/install.log"
fi
exit "$fail"
