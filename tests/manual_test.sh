#!/usr/bin/env bash
# The man page and the bash completion against --help, and `meson install` into a scratch
# directory: every option of --help is an entry of the man page and a word of the completion
# (and no other), the page renders without a warning (man --warnings, lexgrog), the completion
# completes options, their values, --period kinds, subcommands and file names, and the install
# puts the program, the page, the completion and the docs where they belong, with --version
# naming the release.
# Usage: tests/manual_test.sh RATEPERF MAN_PAGE COMPLETION BUILD_DIR VERSION
set -uo pipefail
rateperf=$1 page=$2 completion=$3 build=$4 version=$5
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
work=$(mktemp -d /tmp/rateperf-manual.XXXXXX)
trap 'rm -rf "$work"' EXIT

# (1) The options: --help's, the page's .TP entries, the completion's words.
"$rateperf" --help | sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}\(--[a-z-]*\).*/\2/p' | sort -u >"$work/help"
# shellcheck disable=SC1003  # roff's \- escapes
sed -n '/^\.TP$/{n;s/^\(\\fB\\-[a-zA-Z]\\fR, \)\{0,1\}\\fB\\-\\-\([a-z\\-]*\)\\fR.*/--\2/p}' "$page" |
  sed 's/\\-/-/g' | sort -u >"$work/man"
# The period kinds' entries are not options.
if diff "$work/help" "$work/man" >"$work/diff"; then
  ok "the man page has an entry for each of the $(wc -l <"$work/help") options of --help, and no other"
else
  bad "--help and the man page differ (< --help, > man):"; cat "$work/diff"
fi
# shellcheck source=/dev/null
. "$completion"
complete_words() {  # complete_words WORD...: COMPREPLY for the last word
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _rateperf
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
complete_words rateperf -- | grep '^--' | sort -u >"$work/completion"
if diff "$work/help" "$work/completion" >"$work/diff"; then
  ok "the completion offers each option of --help, and no other"
else
  bad "--help and the completion differ (< --help, > completion):"; cat "$work/diff"
fi

# (2) The page renders without a warning, and whatis reads its NAME.
if command -v man >/dev/null && command -v lexgrog >/dev/null; then
  warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  if [[ -z $warnings ]]; then ok "man --warnings -l: no warning"; else bad "man --warnings -l: $warnings"; fi
  if lexgrog "$page" | grep -q 'rateperf - open-loop, rate-controlled HTTP benchmark'; then
    ok "lexgrog: $(lexgrog "$page")"
  else
    bad "lexgrog: $(lexgrog "$page" 2>&1)"
  fi
  MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q -- '--num-conns N' &&
    ok "the rendered page shows --num-conns N" || bad "the rendered page has no '--num-conns N'"
else
  echo "SKIP (2): man or lexgrog missing (the man-db package; scripts/setup installs it)"
  fail=1
fi

# (3) Completion, a few prefixes.
check_completion() {  # check_completion WANT WORD...
  local want=$1 got
  shift
  got=$(complete_words "$@" | tr '\n' ' ')
  if [[ " $got" == *" $want "* ]]; then ok "complete '$*' offers $want"; else bad "complete '$*': '$got', no $want"; fi
}
check_completion --rate rateperf --ra
check_completion --num-conns rateperf --num-c
check_completion hybrid rateperf --timing ''
check_completion kernel rateperf --clock k
check_completion e rateperf --period ''
check_completion search rateperf se
check_completion merge rateperf m
check_completion --slo rateperf search --sl
check_completion --csv rateperf merge --c
touch "$work/calls-one.csv"
check_completion "$work/calls-one.csv" rateperf --call-log "$work/calls-"
check_completion "$work/calls-one.csv" rateperf merge "$work/calls-"
[[ $(complete -p rateperf) == 'complete -F _rateperf rateperf' ]] &&
  ok "complete -p rateperf: $(complete -p rateperf)" || bad "complete -p rateperf: $(complete -p rateperf)"

# (4) meson install into a scratch root.
if meson install -C "$build" --destdir "$work/root" --no-rebuild >"$work/install.log" 2>&1; then
  prefix=$(meson introspect "$build" --buildoptions | python3 -c '
import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
  for file in bin/rateperf share/man/man1/rateperf.1 share/bash-completion/completions/rateperf \
              share/doc/rateperf/README.md share/doc/rateperf/docs/json.md; do
    [[ -f $work/root$prefix/$file ]] && ok "installed: $prefix/$file" || bad "not installed: $prefix/$file"
  done
  installed=$("$work/root$prefix/bin/rateperf" --version)
  [[ $installed == "rateperf $version"* ]] && ok "the installed --version: $installed" ||
    bad "the installed --version: '$installed', not rateperf $version..."
else
  bad "meson install failed:"; cat "$work/install.log"
fi

exit "$fail"
