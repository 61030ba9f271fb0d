#!/usr/bin/env bash
# rateperf search as a user runs it: one short search of the demo server (2 workers x 10 ms, a
# capacity of 200/s) finds it within 10 %, with its JSON, CSV and HTML report; then the bad
# inputs: an SLO that does not parse, a first step that fails, a report path that cannot be
# written (refused before any step), an input of `rateperf report` that is not a result.
#   tests/search_test.sh RATEPERF_BIN DEMO_SERVER_BIN
set -uo pipefail
(($# == 2)) || { echo "usage: tests/search_test.sh RATEPERF_BIN DEMO_SERVER_BIN" >&2; exit 2; }
rateperf=$1
demo_server=$2
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT

fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1" >&2; fail=1; fi; }

# start_server ARGS...: a demo server on a free loopback port; sets port.
start_server() {
  local try
  for try in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 20000))
    "$demo_server" --host 127.0.0.1 --port "$port" "$@" >/dev/null 2>&1 &
    pids+=($!)
    sleep 0.3
    kill -0 "${pids[-1]}" 2>/dev/null && return 0
  done
  echo "FAIL: the demo server did not start" >&2
  exit 1
}

start_server
# Short steps keep this near a minute; scripts/bench runs the default search.
timeout 240 "$rateperf" search --step 2 --start-rate 50 --cool-down 1 --resolution 5 \
  --json "$work/search.json" --csv "$work/search.csv" -o "$work/search.html" \
  "http://127.0.0.1:$port/" >"$work/out" 2>"$work/err"
status=$?
cat "$work/out"
last=$(tail -n 1 "$work/out")
capacity=$(sed -n 's/^Capacity \[conn\/s\]: \([0-9.]*\) +- \([0-9.]*\)$/\1/p' <<<"$last")
check "exit status 0 (got $status)" "((status == 0))"
check "the last line gives the capacity with its uncertainty ('$last')" "[[ -n '$capacity' ]]"
check "the capacity is within 10 % of 200/s ($capacity)" \
  "awk -v c='${capacity:-0}' 'BEGIN { exit !(c >= 180 && c <= 220) }'"
check "steps doubled from 50/s: 50, 100, 200" \
  "grep -q '^step 1: 50 conn/s' '$work/out' && grep -q '^step 2: 100 conn/s' '$work/out'"
check "a step past capacity failed with the open connections growing" \
  "grep -q 'fail: .*open connections grew' '$work/out'"
steps=$(grep -c '^step ' "$work/out")
check "one CSV row per step ($steps steps)" "(( $(wc -l <"$work/search.csv") == steps + 1 ))"
check "the JSON has every step and the capacity" \
  "jq -e --argjson n $steps '(.steps | length) == \$n and .result.outcome == \"found\" and (.result.capacity_per_s > 0) and (.steps[0].run.series.points | length) > 0' '$work/search.json' >/dev/null"
check "the HTML report marks the capacity" "grep -q 'data-marker=\"capacity\"' '$work/search.html'"
check "rateperf report reads the search's JSON" \
  "'$rateperf' report -o '$work/again.html' '$work/search.json' && grep -q 'data-marker=\"capacity\"' '$work/again.html'"

# Bad input.
"$rateperf" search --slo 'p99<=100ms,latency<5ms' "http://127.0.0.1:$port/" >/dev/null 2>"$work/err"
status=$?
check "an SLO that does not parse: exit 2 naming the token ($(head -n 1 "$work/err"))" \
  "((status == 2)) && grep -q \"'latency<5ms'\" '$work/err'"
start_server --workers 1 --service-ms 100  # 10/s
slow_port=$port
"$rateperf" search --step 1 --start-rate 40 --repeat 1 "http://127.0.0.1:$slow_port/" \
  >"$work/out" 2>"$work/err"
status=$?
check "a first step that fails: exit 1, 'below the start rate' ($(tail -n 1 "$work/out"))" \
  "((status == 1)) && grep -q 'below the start rate' '$work/err' && tail -n 1 '$work/out' | grep -q '^Capacity \[conn/s\]: < 40'"
started=$SECONDS
"$rateperf" search -o /nonexistent-dir/report.html "http://127.0.0.1:$port/" >"$work/out" 2>"$work/err"
status=$?
check "an unwritable report path: exit 1 before any step ($(head -n 1 "$work/err"))" \
  "((status == 1)) && grep -q '/nonexistent-dir/report.html' '$work/err' && ! grep -q '^step' '$work/out' && ((SECONDS - started < 3))"
echo "not a result" >"$work/notes.txt"
"$rateperf" report -o "$work/x.html" "$work/notes.txt" 2>"$work/err"
status=$?
check "rateperf report of a file that is not a result: exit 2 with its path" \
  "((status == 2)) && grep -q 'notes.txt' '$work/err'"
exit "$fail"
