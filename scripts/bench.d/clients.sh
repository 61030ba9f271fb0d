# scripts/bench: running the clients; sourced. Every run is bounded: a fixed number of
# connections, a --timeout, and a hard `timeout` around the process; every run targets 127.0.0.1
# only. The tools are rateperf, baseline (the --baseline binary) and httperf; wrk has one run of
# its own in (a).
# shellcheck shell=bash

# client_cmd TOOL RATE CONNS TARGET_PORT TIMEOUT_S [JSON]: the command line of one run (into
# array cmd); rateperf and the baseline write their figures to JSON when it is given. A RATE
# that starts with d, e or u is a --period (e0.001: Poisson arrivals, 1000/s on average).
client_cmd() {
  local tool=$1 rate=$2 conns=$3 target_port=$4 timeout_s=$5 json=${6:-}
  case $tool in
    rateperf) cmd=("$rateperf" -q) ;;
    baseline) cmd=("$baseline" -q) ;;
    httperf) cmd=(httperf) ;;
    *) echo "bench: unknown tool $tool" >&2; exit 1 ;;
  esac
  if [[ $rate == [deu]* ]]; then cmd+=(--period="$rate"); else cmd+=(--rate "$rate"); fi
  cmd+=(--server 127.0.0.1 --port "$target_port" --uri /ok.txt --num-conns "$conns"
        --timeout "$timeout_s")
  [[ -n $json && $tool != httperf ]] && cmd+=(--json "$json")
  return 0
}

# run_limit RATE CONNS T [S]: a bound on the wall time of a run of CONNS at RATE (or a
# --period, at its mean rate) with the inactivity timeout T, plus slack S (default 10).
run_limit() {
  awk -v n="$2" -v r="$1" -v t="$3" -v s="${4:-10}" 'BEGIN {
    if (r ~ /^[deu]/) { split(substr(r, 2), g, ","); r = (r ~ /^u/) ? 2 / (g[1] + g[2]) : 1 / g[1] }
    printf "%d", n / r + t + s }'
}

# run TOOL RATE CONNS BASE [ARG...]: run_here on nginx's next port (next_port).
run() { next_port; run_here "$@"; }

# run_here TOOL RATE CONNS BASE [ARG...]: a run against nginx on $port, client on CPU 0, with the
# ARGs added to its command line, in the namespace in_netns names when set (netns.sh): the report
# in BASE.txt, the figures in BASE.json (httperf's read from its report: result_from_text).
run_here() {
  local tool=$1 rate=$2 conns=$3 base=$4
  shift 4
  client_cmd "$tool" "$rate" "$conns" "$port" 5 "$base.json"
  cmd+=("$@")
  timeout -k 2 "$(run_limit "$rate" "$conns" 5)" ${in_netns[@]+"${in_netns[@]}"} \
    taskset -c 0 "${cmd[@]}" >"$base.txt" 2>"$base.err" ||
    log "$tool exited with status $? ($base.txt)"
  [[ $tool != httperf ]] || result_from_text httperf "$base.txt" "$base.json"
  # A short pause lets nginx settle.
  sleep 0.5
}

# held BASE RATE CONNS: true when every connection of the run got a reply, no error, and the
# achieved connection rate (connections / test-duration, the same figure in both tools) is
# within 1 % of the offered rate.
held() {
  result_true "$1.json" \
    "{/errors/total} == 0 and {/totals/replies} == $3 and {/connection_rate/per_s} >= 0.99 * $2"
}

# order [TOOL...]: sets the array ordered to the tools (default: all of them), reversed every
# other call, so that none always runs first and rateperf and the baseline alternate run by run.
order_calls=0
order() {
  local list=("$@") i
  ((${#list[@]})) || list=("${tools[@]}")
  order_calls=$((order_calls + 1))
  ordered=()
  for ((i = 0; i < ${#list[@]}; i++)); do
    if ((order_calls % 2)); then ordered+=("${list[i]}"); else ordered=("${list[i]}" "${ordered[@]}"); fi
  done
}

# rateperfs: the rateperf binaries measured (rateperf, and baseline with --baseline).
rateperfs() { printf '%s\n' "${tools[@]}" | grep -v '^httperf$'; }
