# The seed reproductions' capacity searches (sourced by seed.sh): `rateperf search` under the
# seeds' SLO, and figures read from the runs' JSON (scripts/lib/results.sh).
# shellcheck shell=bash

# seed_reply_rate_cell JSON: the replies/s of a run for a table cell: the 5-s reply-rate samples'
# average, or for a run shorter than 5 s (which has none) replies / test duration, marked *
# (seed_capacity_note explains the mark).
seed_reply_rate_cell() { result_get "$1" '{reply_rate:.1f}{reply_rate_mark}'; }

# The SLO a server keeps up under: no errors, at least 90 % of the replies 2xx (a proxy's 502s are
# not service), and 90 % of the replies within 100 ms of their intended start. Past capacity an
# open-loop queue grows all through a step, and with it the latency of most requests (the search
# also fails a step whose open connections keep growing). Throughput alone misjudges short
# steps: a few SYNs dropped from a short listen queue and retried after 1 s lengthen a step, and
# lower replies / duration, while the server keeps up with the rest.
seed_slo='errors<=0%,non2xx<=10%,p90<=100ms'

# seed_capacity_search LABEL PORT URI START SECONDS MAX [RATEPERF OPTIONS...]: the server's
# capacity from `rateperf search` (docs/search.md) under seed_slo: SECONDS-long steps doubling
# the rate from START (up to MAX), then bisection to within 25 % (two steps, as 1.5x rates
# need); each step that decides a boundary is run until 2 of 3 runs agree, so that a stall of a
# second (a server starting threads, a busy neighbour on a shared machine) in a step of two does
# not halve the capacity. Prints the capacity in req/s, rounded: the search's, or when it found
# none, the highest rate passed (a lower bound: MAX, or the client's limit, reached), or when
# even START failed the first step's 2xx reply rate (past capacity an open-loop step's reply
# rate is about the capacity itself). The search's step lines, JSON and HTML report are kept as
# LABEL-capacity.{txt,json,html}, its steps' rows appended to runs.csv. The options go to every
# step (e.g. --http-version 1.0).
seed_capacity_search() {
  local label=$1 port=$2 uri=$3 start=$4 seconds=$5 max=$6 status=0 rows i outcome capacity
  shift 6
  local base=$seed_out/$label-capacity csv=$seed_out/runs.csv
  rows=$(seed_csv_rows "$csv")
  seed_log "$label: rateperf search from $start req/s in $seconds-s steps, up to $max req/s"
  # A step past capacity ends when its last connections time out: 2 s, not the runs' 5, shortens
  # those tails, and a step whose replies take 2 s has not kept up anyway. The search ends by
  # itself (at MAX, at most 3 runs a rate); the timeout bounds a hung one.
  timeout -k 20 1200 "$rateperf" search --slo "$seed_slo" --start-rate "$start" --max-rate "$max" \
    --step "$seconds" --resolution 25 --repeat 3 --cool-down 1 --json "$base.json" --csv "$csv" \
    --report "$base.html" --server 127.0.0.1 --port "$port" --uri "$uri" --timeout 2 "$@" \
    >"$base.txt" 2>"$base.err" || status=$?
  # runs.labels: a line per row of runs.csv, here one per step.
  for ((i = rows + 1; i <= $(seed_csv_rows "$csv"); i++)); do
    echo "$label-capacity-step$((i - rows))" >>"$seed_out/runs.labels"
  done
  outcome=$(result_get "$base.json" '{/result/outcome}')
  case $outcome in
    found) capacity=$(result_get "$base.json" '{/result/capacity_per_s:.0f}') ;;
    max-rate | client-limited) capacity=$(result_get "$base.json" '{/result/passed_per_s:.0f}') ;;
    *) capacity=? ;;
  esac
  if [[ $capacity == "?" && $outcome != interrupted ]]; then
    capacity=$(result_get "$base.json#/steps/0/run" '{ok_reply_rate:.0f}')
  fi
  if [[ $capacity == "?" || $capacity == 0 ]]; then
    tail -n 3 "$base.err" >&2
    seed_die "$label: rateperf search exited with status $status and no capacity (see $base.txt)"
  fi
  seed_log "$label: $(tail -n 1 "$base.txt") ($outcome): capacity about $capacity req/s"
  echo "$capacity"
}

# seed_csv_rows CSV: the rows of a CSV file under its header (0 when there is none).
seed_csv_rows() {
  local lines=0
  [[ -f $1 ]] && lines=$(wc -l <"$1")
  echo $((lines > 0 ? lines - 1 : 0))
}

# seed_capacity_note STEP_SECONDS: the sentence under a table that says how capacities and short
# runs' reply rates were measured, and where.
seed_capacity_note() {
  echo "Capacity: \`rateperf search --slo '$seed_slo'\` (no errors, at least 90 % of replies 2xx, p90 latency from the intended start at most 100 ms, open connections not growing) in $1-s steps doubling the rate, then bisection to within 25 %, each deciding rate run until 2 of 3 runs agree: the midpoint of the highest rate passed and the lowest failed; a lower bound (the highest passed) when the search reached its highest rate or the client's limit. Each search's steps, JSON and HTML report: SET-UP-capacity.{txt,json,html}. * a run shorter than 5 s has no 5-s reply-rate sample: replies / test duration. Client and servers in $netns_where."
}
