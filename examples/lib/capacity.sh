# The seed reproductions' capacity searches (sourced by seed.sh): every figure read from the
# runs' JSON (scripts/lib/results.sh).
# shellcheck shell=bash

# seed_reply_rate_cell JSON: the replies/s of a run for a table cell: the 5-s reply-rate samples'
# average, or for a run shorter than 5 s (which has none) replies / test duration, marked *
# (seed_capacity_note explains the mark).
seed_reply_rate_cell() { result_get "$1" '{reply_rate:.1f}{reply_rate_mark}'; }

# seed_ok_rate JSON: the 2xx replies/s of a run: the reply rate (as seed_reply_rate_cell) times
# the share of the replies that were 2xx, so that the 502s a proxy answers in place of its back
# end do not count as served.
seed_ok_rate() { result_get "$1" '{ok_reply_rate:.1f}'; }

# seed_kept_up JSON: true when the server kept up with the run's rate: no errors, at least 90 %
# of the replies 2xx (a proxy's 502s are not service), and 90 % of the replies within 100 ms of
# their intended start. Past capacity an open-loop queue grows all through a run, and with it the
# latency of most requests. Throughput alone misjudges short runs: a few SYNs dropped from a short
# listen queue and retried after 1 s lengthen the run, and lower replies / duration, while the
# server keeps up with the rest.
seed_kept_up() {
  result_true "$1" '{/errors/total} == 0 and {/totals/replies} > 0
    and {/reply_status/2xx} >= 0.9 * {/totals/replies} and {/latency_intended/p90_ms} <= 100'
}

# seed_capacity_bisect LABEL PORT URI START SECONDS MAX [RATEPERF OPTIONS...]: a short sweep for
# the server's capacity. SECONDS-long steps double the rate from START (up to MAX) while the
# server keeps up with it (seed_kept_up; a step that fails is run once more), then two
# bisection steps between the last rate kept up with and the first one not, so that the
# capacity is known within about 25 % rather than 2x (which 1.5x rates need). Prints the
# capacity in 2xx replies/s: the highest rate kept up with, or the seed_ok_rate of a step that
# was not, if higher (past capacity an open-loop step's reply rate is about the capacity
# itself); when even MAX was kept up with, the capacity is at least MAX. The options go to every
# step's seed_run (e.g. --http-version 1.0).
seed_capacity_bisect() {
  local label=$1 port=$2 uri=$3 rate=$4 seconds=$5 max=$6 best=0 lo=0 hi=0 i served
  # A step past capacity ends when its last connections time out; 2 s, not 5, shortens those
  # tails, and a step whose replies take 2 s has not kept up anyway.
  local seed_timeout=2
  shift 6
  local options=("$@")
  # step_ RATE: a step at RATE, and once more if the server did not keep up: a stall of a
  # second (a server starting threads, a busy neighbour on a shared machine) in a step of two
  # should not halve the capacity. True when either kept up; best updated.
  step_() {
    local again
    for again in "" -again; do
      seed_run "$label-capacity-$1$again" "$port" "$uri" "$1" \
        "$(awk -v r="$1" -v s="$seconds" 'BEGIN { printf "%d", r * s }')" ${options[@]+"${options[@]}"}
      if seed_kept_up "$seed_json"; then served=$1; else served=$(seed_ok_rate "$seed_json"); fi
      best=$(awk -v a="$best" -v b="$served" 'BEGIN { print (b + 0 > a + 0) ? b + 0 : a }')
      [[ $served == "$1" ]] && return 0
    done
    return 1
  }
  while ((rate <= max)); do
    if ! step_ "$rate"; then hi=$rate; break; fi
    lo=$rate
    rate=$((rate * 2))
  done
  for ((i = 0; i < 2 && lo > 0 && hi > 0; i++)); do
    rate=$(((lo + hi) / 20 * 10))
    if step_ "$rate"; then lo=$rate; else hi=$rate; fi
  done
  local not=
  ((hi > 0)) && not=", not with $hi"
  seed_log "$label: capacity about $best 2xx replies/s (kept up with $lo req/s$not)"
  echo "$best"
}

# seed_capacity_note STEP_SECONDS: the sentence under a table that says how capacities and short
# runs' reply rates were measured, and where.
seed_capacity_note() {
  echo "Capacity: the highest rate kept up with (no errors, at least 90 % of replies 2xx, p90 latency from the intended start at most 100 ms) in a sweep of $1-s steps (a failed step run once more), doubling and then two bisection steps; or the 2xx reply rate of a step past it, if higher. * a run shorter than 5 s has no 5-s reply-rate sample: replies / test duration. Client and servers in $netns_where."
}
