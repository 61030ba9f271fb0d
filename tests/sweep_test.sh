#!/usr/bin/env bash
# Runs scripts/sweep against the demo server and checks what a user relies on: one CSV with one
# header and one row per rate in the order asked, a text report per rate, a table line per rate,
# one-line usage errors with status 2, and a Ctrl-C that keeps the interrupted run's row and
# exits 130.
#   tests/sweep_test.sh RATEPERF_BIN DEMO_SERVER_BIN
set -euo pipefail
(($# == 2)) || { echo "usage: tests/sweep_test.sh RATEPERF_BIN DEMO_SERVER_BIN" >&2; exit 2; }
rateperf=$(realpath "$1")
server=$(realpath "$2")
cd "$(dirname "$0")/.."
# shellcheck source=tests/demo_server_lib.sh
. tests/demo_server_lib.sh

work=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n $server_pid ]]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

fail=0
check() { if ! eval "$2"; then echo "FAIL: $1" >&2; fail=1; fi; }

# The values of the column named $2 in CSV $1, one per data row. These CSVs hold no quoted
# fields (the URI is "/"), so splitting on commas is enough here.
column() {
  awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                        c { print $c }' "$1"
}

# (1) The demo server on a free port; it prints "listening on HOST:PORT" once it accepts.
if ! demo_server_start "$server" "$work"; then
  echo "FAIL: the demo server did not start:" >&2; cat "$work/server.log" >&2; exit 1
fi
server_pid=$demo_pid port=$demo_port
target=(--server 127.0.0.1 --port "$port" --uri / --timeout 2)

# (2) A sweep of three rates below the server's capacity, 100 connections each (2 s, 1 s, 0.7 s).
csv=$work/sweep.csv
status=0
scripts/sweep --rates 50:150:50 --csv "$csv" --rateperf "$rateperf" -- "${target[@]}" \
  --num-conns 100 >"$work/table" 2>"$work/stderr" || status=$?
cat "$work/table"
if ((status != 0)); then
  echo "FAIL: scripts/sweep exited $status:" >&2
  cat "$work/stderr" >&2
  exit 1
fi
check "the CSV exists" "[[ -s '$csv' ]]"
header_count=$(grep -c '^start_time_utc,' "$csv" || true)
check "exactly one header line (got $header_count)" "((header_count == 1))"
check "the header is the first line" "head -n 1 '$csv' | grep -q '^start_time_utc,'"
rows=$(($(wc -l <"$csv") - 1))
check "three data rows (got $rows)" "((rows == 3))"
offered=$(column "$csv" offered_rate_per_s | awk '{ printf "%s%g", (NR > 1 ? "," : ""), $1 }')
check "offered rates 50,100,150 in order (got '$offered')" "[[ '$offered' == 50,100,150 ]]"
interrupted=$(column "$csv" interrupted | tr '\n' ' ')
check "no run marked interrupted (got '$interrupted')" "[[ '$interrupted' == '0 0 0 ' ]]"
for rate in 50 100 150; do
  report=$work/sweep-rate-$rate.txt
  check "a text report for $rate/s" "grep -q '^Total: connections 100 ' '$report'"
done
table_rows=$(grep -cE '^\| +[0-9.]+ \|' "$work/table" || true)
check "the table has one line per rate (got $table_rows)" "((table_rows == 3))"

# (3) Bad arguments: one line on stderr, status 2, nothing run.
for bad in "--rates 150:50:50" "--rates 50,abc" "--rates 50 --cool-down soon" \
           "--rates 50 -- --rate 10"; do
  status=0
  # shellcheck disable=SC2086  # $bad is a list of words on purpose
  scripts/sweep --csv "$work/bad.csv" --rateperf "$rateperf" $bad >/dev/null 2>"$work/bad.err" ||
    status=$?
  lines=$(wc -l <"$work/bad.err")
  check "'$bad' exits 2 (got $status)" "((status == 2))"
  check "'$bad' gives one error line (got $lines)" "((lines == 1))"
  check "'$bad' runs nothing" "[[ ! -e '$work/bad.csv' ]]"
done

# (4) Ctrl-C during the first of two runs (3 s at 20/s): the sweep lets rateperf write its row
# marked interrupted, does not start the next rate, and exits 130. A script's background job
# starts with SIGINT ignored; the subshell restores it so that the sweep can trap it.
csv=$work/stopped.csv
(trap - INT; exec scripts/sweep --rates 20,30 --csv "$csv" --rateperf "$rateperf" -- \
  "${target[@]}" --num-conns 60 >"$work/stopped.table" 2>"$work/stopped.err") &
sweep_pid=$!
sleep 1
check "the sweep is still running after 1 s" "kill -INT '$sweep_pid' 2>/dev/null"
status=0
wait "$sweep_pid" || status=$?
cat "$work/stopped.table"
check "an interrupted sweep exits 130 (got $status)" "((status == 130))"
check "the interrupted run kept its row" "[[ \$(column '$csv' interrupted | tr '\n' ' ') == '1 ' ]]"
check "the interrupted run is in the table" "grep -q 'interrupted' '$work/stopped.table'"
check "the next rate did not run" "[[ ! -e '$work/stopped-rate-30.txt' ]]"
if ((fail)); then
  echo "stderr of the interrupted sweep:" >&2
  cat "$work/stopped.err" >&2
  exit 1
fi
echo "PASS"
