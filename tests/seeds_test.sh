#!/usr/bin/env bash
# Runs the seed reproductions of issue 7 in quick mode, as a user runs them, and checks what a
# user should see: the table with one row per set-up and rate; overload at 1.5x or 2x the
# measured capacity (reply rate well below the offered rate, or errors, or reply times far above
# those at the set-up's lowest rate); runs.csv with a header and one row per rateperf run.
#   seed 002 --only paste and seed 003 --only nginx always run (as root the scripts install
#   their packages); seed 000 and seed 001 run only when their packages are installed, and are
#   otherwise skipped with a message naming the missing packages. To keep the test near 5
#   minutes, those two run one set-up each (000: single, 001: wsgi) unless SEEDS_TEST_ALL=1,
#   which runs their whole quick mode (about 4 minutes more). Seeds 000, 001 and 003 also
#   print their own closed loop (ab's, siege's shapes) in ab's terms: a row per run without
#   failure and a paragraph comparing it with the open loop.
#
# Usage: [SEEDS_TEST_ALL=1] tests/seeds_test.sh RATEPERF_BIN
# Exit status: 0 all checks passed, 1 a check failed, 77 nothing could run (says why).
set -euo pipefail
cd "$(dirname "$0")/.."

[[ $# -ge 1 ]] || { echo "usage: tests/seeds_test.sh RATEPERF_BIN" >&2; exit 2; }
RATEPERF=$1
export RATEPERF
if ! command -v "$RATEPERF" >/dev/null; then
  echo "skipped: no rateperf binary at '$RATEPERF'"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# mktemp's 0700 would keep Apache's, nginx's and lighttpd's www-data workers (as root they drop
# to it) out of the document roots the seeds write under --out.
chmod 755 "$work"
fail=0
ran=0
skips=()
last_ok=0  # set by run_seed: the last seed ran and exited 0

# missing_packages PKG...: prints the Debian packages of the list that are not installed.
missing_packages() {
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || printf '%s ' "$pkg"
  done
}

# check SEED WHAT AWK_CONDITION: records a failure unless the condition holds.
check() {
  if awk "BEGIN { exit !($3) }"; then
    echo "ok: seed $1: $2"
  else
    echo "FAIL: seed $1: $2 ($3)"
    fail=1
  fi
}

# table_rows FILE: the first Markdown table with a "reply rate" column, one line per row:
# "KEY|OFFERED|REPLY_RATE|REPLY_TIME|ERRORS|LOAD|P90". KEY names the set-up (the row's text cells
# before the rate column), so that rows of one set-up share it. LOAD is the offered rate over the
# capacity: from a cell such as "2x" or "400 (2x)", else offered / the capacity column. P90 is
# the latency p90 from the intended start where the table has that column, else -1.
table_rows() {
  awk -F'|' '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    !inside && /^\|/ && tolower($0) ~ /reply rate/ {
      inside = 1
      for (i = 2; i < NF; i++) {
        h = tolower(trim($i))
        if (!rate && h ~ /^(offered )?rate/) rate = i
        if (!replies && h ~ /reply rate/) replies = i
        if (!rtime && h ~ /reply time/) rtime = i
        if (!errors && h ~ /^errors/) errors = i
        if (!cap && h ~ /capacity/) cap = i
        if (!p90 && h ~ /latency p90/) p90 = i
      }
      next
    }
    inside && /^\|[ \t]*:?-+/ { next }
    inside && /^\|/ {
      key = ""; load = ""
      for (i = 2; i < NF; i++) {
        c = trim($i)
        if (match(c, /(^|[ (])[0-9.]+x($|[ )])/)) { load = substr(c, RSTART, RLENGTH); gsub(/[ ()x]/, "", load) }
      }
      for (i = 2; i < rate; i++) {
        c = trim($i)
        if (c ~ /^[0-9.]+x$/ || c ~ /^[0-9.*]+$/) continue
        key = key (key == "" ? "" : " ") c
      }
      if (load == "" && cap && trim($cap) + 0 > 0) load = (trim($rate) + 0) / (trim($cap) + 0)
      r = trim($replies); sub(/\*$/, "", r)
      printf "%s|%s|%s|%s|%s|%s|%s\n", key, trim($rate) + 0, r + 0, trim($rtime) + 0, trim($errors) + 0, load + 0, p90 ? trim($p90) + 0 : -1
      next
    }
    inside { exit }' "$1"
}

# check_table SEED OUT_FILE ROWS: the table of a run: ROWS rows; overload shows (next to the
# set-up's lowest-load row) in at least one row at 1.5x its capacity or more, of at least one
# set-up. Not in every row: on a two-core machine a fast server's 2x run can be the client's limit
# rather than the server's (a client that falls behind issues in bursts, and then costs less per
# connection), and a capacity measured in 2-s steps can be low after a server's stall. Each
# overload row's figures are printed either way.
check_table() {
  local seed=$1 rows key offered replies rtime errors load base_time shown setups=0
  local -A visible=()
  rows=$(table_rows "$2")
  check "$seed" "table with $3 rows" "$(grep -c . <<<"$rows" || true) == $3"
  # Each overload row, with the reply time and latency p90 of its set-up's lowest-load row appended.
  # The latency p90 counts the time a request waited for its start: at 2x a server's capacity on
  # two cores, the wait can be where the overload shows (CI's seed 003 on 0b09a01: nginx at
  # 32000 req/s, reply time 2.8 ms, latency p90 99.1 ms against 0.1 ms at half load).
  while IFS='|' read -r key offered replies rtime errors load p90 base_time base_p90; do
    [[ -v visible[$key] ]] || visible[$key]=0
    if awk "BEGIN { exit !($replies < 0.8 * $offered || $errors > 0 || ($rtime > 3 * $base_time && $rtime > $base_time + 5) || ($base_p90 >= 0 && $p90 > 3 * $base_p90 && $p90 > $base_p90 + 5)) }"; then
      shown=overloaded
      visible[$key]=1
    else
      shown="kept up"
    fi
    echo "seed $seed: $key at $offered req/s (${load}x): reply rate $replies, reply time $rtime ms (lowest load: $base_time ms), latency p90 $p90 ms (lowest load: $base_p90 ms), errors $errors: $shown"
  done < <(awk -F'|' '
      { n[$1]++; row[$1, n[$1]] = $0; if (!($1 in low) || $6 < low[$1]) { low[$1] = $6; t[$1] = $4; q[$1] = $7 } }
      END { for (k in n) for (i = 1; i <= n[k]; i++) { split(row[k, i], f, "|")
              if (f[6] >= 1.45) print row[k, i] "|" t[k] "|" q[k] } }' <<<"$rows")
  # Every set-up whose rows kept up is named; the seed fails when none of its set-ups showed
  # overload. A fast server on two cores can keep up at 2x a capacity that the search's 2-s steps
  # measured low (CI of ceb88b6: seed 003's nginx index.html searched at 8000 req/s, then kept up
  # at 12000 and 16000, while 1.jpg showed overload at 1.5x and 2x).
  local shown_by=()
  for key in "${!visible[@]}"; do
    setups=$((setups + 1))
    if ((visible[$key])); then
      shown_by+=("$key")
    else
      echo "seed $seed: note: $key kept up at 1.5x its searched capacity and more: its capacity was measured low"
    fi
  done
  check "$seed" "set-ups with rows at 1.5x capacity or more ($setups)" "$setups > 0"
  check "$seed" "overload visible at 1.5x capacity or more (in: ${shown_by[*]:-none})" "${#shown_by[@]} > 0"
}

# check_closed SEED OUT_FILE ROWS: the seed's own closed loop, in ab's terms: a table with ROWS
# rows, each with requests per second above 0 and no failed request, and a paragraph for each
# ab run (one per row, but seed 001's siege rows) comparing it with the open loop.
check_closed() {
  local rows bad
  rows=$(awk -F'|' '/^\| set-up \| closed loop/ { inside = 1; next } inside && /^\| ---/ { next }
    inside && /^\|/ { print; next } inside { exit }' "$2")
  check "$1" "closed-loop table with $3 rows" "$(grep -c . <<<"$rows" || true) == $3"
  bad=$(awk -F'|' '{ if ($4 + 0 <= 0 || $8 + 0 != 0) n++ } END { print n + 0 }' <<<"$rows")
  check "$1" "every closed-loop row served requests without failure" "$bad == 0"
  check "$1" "a paragraph comparing each closed loop with the open loop" \
    "$(grep -c '^- .*: the closed loop (ab .* The open loop at [0-9]* req/s' "$2" || true) >= 1"
}

# check_csv SEED DIR: runs.csv has the header and one row per run (runs.labels: one line per
# rateperf run), each with the header's number of fields.
check_csv() {
  local csv=$2/runs.csv runs
  runs=$(wc -l <"$2/runs.labels" 2>/dev/null || echo 0)
  check "$1" "runs.csv has a header" "$(head -n 1 "$csv" 2>/dev/null | grep -c '^start_time_utc,' || true) == 1"
  check "$1" "runs.csv has one row per run ($runs runs)" "$(($(wc -l <"$csv" 2>/dev/null || echo 1) - 1)) == $runs && $runs > 0"
  check "$1" "every runs.csv row has the header's fields" \
    "$(awk -F, 'NR == 1 { n = NF } NR > 1 && NF != n { bad++ } END { print bad + 0 }' "$csv" 2>/dev/null || echo 1) == 0"
}

# run_seed SEED ROWS "ONLY" "PACKAGES": runs examples/seedSEED/run --quick (--only ONLY if
# given) and checks its table (ROWS rows) and CSV; sets last_ok. With PACKAGES, the seed runs
# only when they are all installed; without, the script installs what it needs (exit 77: it
# could not, e.g. not root).
run_seed() {
  local seed=$1 rows=$2 only=$3 needs=$4 script=examples/seed$1/run out=$work/seed$1 missing
  local args=(--quick --out "$out") status=0 start=$SECONDS
  last_ok=0
  [[ -n $only ]] && args+=(--only "$only")
  if [[ ! -f $script ]]; then
    echo "FAIL: seed $seed: no $script"
    fail=1
    return
  fi
  # shellcheck disable=SC2086  # the package list is a word list
  missing=$(missing_packages $needs)
  if [[ -n $missing ]]; then
    echo "skipped: seed $seed needs ${missing% } (apt-get install -y ${missing% })"
    skips+=("$seed")
    return
  fi
  echo "seed $seed: $script ${args[*]}"
  timeout -k 10 300 bash "$script" "${args[@]}" >"$work/seed$seed.out" 2>"$work/seed$seed.err" ||
    status=$?
  cat "$work/seed$seed.out"
  echo "seed $seed: exit status $status after $((SECONDS - start)) s"
  if ((status == 77)); then
    echo "skipped: seed $seed: $(grep -i skipped "$work/seed$seed.err" | tail -n 1 |
      sed 's/^seed[0-9]*: //; s/^skipped: //')"
    skips+=("$seed")
    return
  fi
  ran=$((ran + 1))
  if ((status != 0)); then
    echo "FAIL: seed $seed: exit status $status; its stderr ends:"
    tail -n 20 "$work/seed$seed.err"
    fail=1
    return
  fi
  last_ok=1
  check_table "$seed" "$work/seed$seed.out" "$rows"
  check_csv "$seed" "$out"
}

# check_ab_table SETUPS: seed 000 printed ab's table once per set-up (its 0.5x runs).
check_ab_table() {
  ((last_ok)) || return 0
  check 000 "ab's table for each 0.5x run" \
    "$(grep -c '^Percentage of the requests served within a certain time (ms)$' "$work/seed000.out" || true) == $1"
}

# The two cases CI runs whatever the machine has (the scripts install their packages).
run_seed 002 3 paste ""
run_seed 003 6 nginx ""
((last_ok)) && check_closed 003 "$work/seed003.out" 2
# The others when their packages are already here: one set-up each, or all of them.
if [[ ${SEEDS_TEST_ALL:-0} == 1 ]]; then
  run_seed 000 9 "" "python3-cherrypy3"
  check_ab_table 3
  ((last_ok)) && check_closed 000 "$work/seed000.out" 3
  run_seed 001 15 "" "apache2 libapache2-mod-wsgi-py3 python3-pyramid"
  ((last_ok)) && check_closed 001 "$work/seed001.out" 6
else
  run_seed 000 3 single "python3-cherrypy3"
  check_ab_table 1
  ((last_ok)) && check_closed 000 "$work/seed000.out" 1
  run_seed 001 5 wsgi "apache2 libapache2-mod-wsgi-py3"
  ((last_ok)) && check_closed 001 "$work/seed001.out" 2
fi

if ((ran == 0)); then
  echo "skipped: no seed could run (skipped: ${skips[*]:-none}): their packages are missing and this is not root"
  exit 77
fi
echo "seeds: $ran ran, skipped: ${skips[*]:-none}; $( ((fail)) && echo FAILED || echo passed)"
exit "$fail"
