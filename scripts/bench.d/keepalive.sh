# scripts/bench (j): keep-alive (issue 15). In a new network namespace with an nginx of its own
# (CPU 1; the clients on CPU 0), side by side on that nginx: wrk's closed loop on 50 persistent
# connections gives the ceiling W (requests/s) and wrk's CPU per request; then each client's
# highest held request rate, searched from 0.95 W, and its CPU per request there:
#   calls/rateperf   --num-calls 100 at a connection rate of R / 100
#   rate/rateperf    --request-rate R --connections 50 --duration S
#   piped/rateperf   the same with --burst-length 16 (pipelined)
#   calls_user/rateperf, rate_user/rateperf   calls and rate with --clock user: auto then polls
#                    while the sockets are busy, where with the kernel clock (the default) it
#                    takes batch's turns at these rates (one wake-up every 0.2 ms)
#   calls/httperf    httperf --num-calls 100 at a connection rate of R / 100
# and, since nginx's core is the limit of every client near W (where the machine's slow spells
# decide a held rate within a step or two), what nginx serves in each request mode when it cannot
# keep up: rateperf --request-rate at 2 W on 50 connections without and with pipelining, in
# alternated pairs, each one's replies/s (replies / test-duration) and nginx's CPU per reply;
# and the pairs' ladder (ka_pairs), both modes' held rates above the non-pipelined one's in
# the same spells of the machine; and pairs with wrk (ka_wrk_pairs): wrk, then --num-calls and
# --request-rate at 0.95 of the rate it just made, wrk again;
# (and the baseline's rateperf runs, with --baseline, when it has --request-rate). Held: every
# call answered, no error, a request rate (requests / test-duration) of at least 97 % of R, and
# for rateperf a lag p99 (/lag: how late the client itself issued its arrivals) of at most 1 ms;
# httperf reports no lag; sourced.
# shellcheck shell=bash

ka_conns=50 ka_calls=100 ka_burst=16
ka_start=950  # the first rate tried, in permille of W
ka_step=150   # up from it while held (down while nothing held), in permille of W
ka_resolution=50  # then bisection until the bounds are this close, in permille of W
ka_where="-"  # where (j) ran, for the table
ka_over=2000 ka_over_pairs=3  # the overload's rate [permille of W] and its pairs of runs
ka_pair_step=50  # the pairs' ladder: its step above the non-pipelined held rate [permille of W]
ka_wrk_pair_count=5 ka_wrk_pair_s=5  # wrk's pairs: how many, and wrk's runs' length [s]

# cpu_json JSON CMD...: runs CMD and writes the CPU time it and its descendants used, in JSON
# (/cpu/user_s, /cpu/system_s: what result_calc's cpu_s adds up), for a client that reports none
# (wrk). getrusage(RUSAGE_CHILDREN) counts every process waited for, timeout's child included.
cpu_json() {
  "$results_python" -c '
import json, resource, subprocess, sys
status = subprocess.call(sys.argv[2:])
used = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as out:
    json.dump({"cpu": {"user_s": used.ru_utime, "system_s": used.ru_stime}}, out)
sys.exit(status)' "$@"
}

# ka_has_request_rate TOOL: the rateperf TOOL has --request-rate (a baseline built before issue
# 15 has not, and is then left out of (j)).
ka_has_request_rate() {
  local bin=$rateperf
  [[ $1 == baseline ]] && bin=$baseline
  "$bin" --help 2>&1 | grep -q -- '--request-rate'
}

# ka_has_turns TOOL: the rateperf TOOL's auto takes batch's turns at high rates.
ka_has_turns() {
  local bin=$rateperf
  [[ $1 == baseline ]] && bin=$baseline
  "$bin" --help 2>&1 | grep -q -- "auto takes batch's turns"
}

# ka_clients: sets the array clients to the words TOOL/KIND of (j).
ka_clients() {
  local tool kind
  clients=()
  for tool in $(rateperfs); do
    if ka_has_request_rate "$tool"; then
      for kind in calls rate piped; do clients+=("$tool/$kind"); done
      if ka_has_turns "$tool"; then
        for kind in calls_user rate_user; do clients+=("$tool/$kind"); done
      fi
    else
      log "(j) $tool has no --request-rate: left out"
    fi
  done
  clients+=(httperf/calls)
}

# ka_next LO HI: the next rate [permille of W] after the highest held so far (LO, 0: none) and
# the lowest not held (HI, 0: none), or 0 when the search is over.
ka_next() {
  local lo=$1 hi=$2
  if ((hi == 0)); then echo $((lo + ka_step))
  elif ((lo == 0)); then echo $((hi > ka_step ? hi - ka_step : 0))
  elif ((hi - lo > ka_resolution)); then echo $(((lo + hi) / 2))
  else echo 0
  fi
}

# ka_rate PERMILLE W: the request rate tried, W x PERMILLE / 1000 rounded down to a multiple of
# 100, so that --num-calls 100 runs at a whole connection rate.
ka_rate() { awk -v p="$1" -v w="$2" 'BEGIN { printf "%d", int(w * p / 1000 / 100) * 100 }'; }

# ka_run WORD RATE BASE: one run of the client WORD at RATE requests/s for ka_s seconds, on the
# next port of nginx; the figures in BASE.json.
ka_run() {
  local tool=${1%/*} kind=${1#*/} rate=$2 base=$3 bin=$rateperf
  local -a timing=()
  [[ $kind == *_user ]] && timing=(--clock user)
  if [[ $kind == calls* ]]; then
    local conn_rate=$((rate / ka_calls))
    next_port
    # run_here reads httperf's figures from its text, as everywhere.
    run_here "$tool" "$conn_rate" $((conn_rate * ka_s)) "$base" --num-calls "$ka_calls" \
      ${timing[@]+"${timing[@]}"}
    return 0
  fi
  [[ $tool == baseline ]] && bin=$baseline
  cmd=("$bin" -q --server 127.0.0.1 --uri /ok.txt --timeout 5 --json "$base.json"
       --request-rate "$rate" --connections "$ka_conns" --duration "$ka_s")
  [[ $kind == piped ]] && cmd+=(--burst-length "$ka_burst")
  cmd+=(${timing[@]+"${timing[@]}"})
  next_port
  timeout -k 2 $((ka_s + 30)) ${in_netns[@]+"${in_netns[@]}"} taskset -c 0 "${cmd[@]}" \
    --port "$port" >"$base.txt" 2>"$base.err" || log "$tool exited with status $? ($base.txt)"
  sleep 0.5
}

# ka_held WORD RATE BASE: true when the run held RATE (see the top of this file).
ka_held() {
  local expression="{/errors/total} == 0 and {/request_rate/per_s} >= 0.97 * $2" conns
  if [[ $1 == */calls* ]]; then
    conns=$(($2 * ka_s / ka_calls))
    expression+=" and {/totals/replies} == $((conns * ka_calls))"
  else
    expression+=" and {/totals/calls} > 0 and {/totals/replies} == {/totals/calls}"
  fi
  [[ $1 == httperf/* ]] || expression+=" and {/lag/p99_ms} <= 1"
  result_true "$3.json" "$expression"
}

# ka_wrk REP: wrk's closed loop on ka_conns persistent connections for ka_s seconds; sets ka_w
# to its request rate W (empty if none) and records it (j_wrk), its CPU per request [us]
# (j_cpu_wrk) and nginx's CPU meanwhile [% of its core] (j_wrk_nginx).
ka_wrk() {
  local base=$out/j-wrk-r$1 ticks0 busy
  next_port
  ticks0=$(server_ticks "$nginx_pid")
  cpu_json "$base.cpu.json" timeout -k 2 $((ka_s + 15)) ${in_netns[@]+"${in_netns[@]}"} \
    taskset -c 0 wrk -t1 -c"$ka_conns" -d"${ka_s}s" "http://127.0.0.1:$port/ok.txt" \
    >"$base.txt" 2>&1 || log "wrk exited with status $? ($base.txt)"
  busy=$(awk -v t="$(($(server_ticks "$nginx_pid") - ticks0))" -v s="$ka_s" \
    -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", 100 * t / hz / s }')
  result_from_text wrk "$base.txt" "$base.json"
  ka_w=$(result_get "$base.json" '{/request_rate/per_s:.0f}')
  [[ $ka_w =~ ^[0-9]+$ ]] || ka_w=''
  record j_wrk "${ka_w:-?}"
  record j_wrk_nginx "$busy"
  record j_cpu_wrk "$(result_calc "$base.cpu.json" .2f \
    "{cpu_s} / $(result_get "$base.json" '{/totals/requests}') * 1e6")"
  log "(j) rep $1: wrk ${ka_w:-?} req/s, nginx $busy % busy ($base.txt)"
  sleep 0.5
}

# ka_overload REP: ka_over_pairs pairs of runs of rateperf --request-rate at ka_over permille of
# W, without (rate) and with pipelining (piped), the pair's order alternating; records each
# run's replies/s (j_over_KIND) and nginx's CPU per reply [us] (j_over_nginx_KIND), and each
# pair's own ratio, pipelined over non-pipelined (j_over_pair): the machine's spells move
# between the pairs more than within one, which the ratio of the two medians would mix in.
ka_overload() {
  local rep=$1 pair kind rate base ticks0 ticks
  local -A served
  rate=$(ka_rate "$ka_over" "$ka_w")
  for ((pair = 1; pair <= ka_over_pairs; pair++)); do
    served=()
    for kind in $( ((pair % 2)) && echo rate piped || echo piped rate); do
      base=$out/j-over-$kind-r$rep-$pair
      ticks0=$(server_ticks "$nginx_pid")
      ka_run "rateperf/$kind" "$rate" "$base"
      ticks=$(($(server_ticks "$nginx_pid") - ticks0))
      served[$kind]=$(result_calc "$base.json" .0f '{/totals/replies} / {/totals/duration_s}')
      record "j_over_$kind" "${served[$kind]}"
      record "j_over_nginx_$kind" "$(result_calc "$base.json" .2f \
        "$ticks / $(getconf CLK_TCK) / {/totals/replies} * 1e6")"
      log "(j) overload $kind at $rate req/s, pair $pair: $(result_get "$base.json" \
        '{/totals/replies} replies in {/totals/duration_s:.2f} s, errors {/errors/total}')"
    done
    record j_over_pair "$(awk -v p="${served[piped]}" -v r="${served[rate]}" \
      'BEGIN { if (p ~ /^[0-9.]+$/ && r ~ /^[0-9.]+$/ && r > 0) printf "%.3f\n", p / r; else print "?" }')"
  done
}

# ka_pairs REP: the pairs' ladder. From the rate --request-rate held in this repetition's search
# (without pipelining), ka_pair_steps steps of ka_pair_step permille of W up, each step a pair of
# runs back to back, without (rate) and with pipelining (piped), the order alternating: the held
# rate of one mode against the other in the same spell of the machine, which the separate
# searches (minutes apart at the top) do not give. Records, per repetition, the steps only the
# pipelined run held (j_pairs_piped_only), those only the other held (j_pairs_rate_only), and
# the highest step each held (j_pairs_top_KIND [req/s]; the start if none).
ka_pairs() {
  local rep=$1 start=$2 k kind rate base piped_only=0 rate_only=0
  ((start > 0)) || start=$ka_start
  local -A top=([rate]=$(ka_rate "$start" "$ka_w") [piped]=$(ka_rate "$start" "$ka_w")) ok=()
  for ((k = 1; k <= ka_pair_steps; k++)); do
    rate=$(ka_rate $((start + k * ka_pair_step)) "$ka_w")
    for kind in $( ((k % 2)) && echo rate piped || echo piped rate); do
      base=$out/j-pair-$kind-r$rep-$rate
      ka_run "rateperf/$kind" "$rate" "$base"
      ok[$kind]=0
      if ka_held "rateperf/$kind" "$rate" "$base"; then ok[$kind]=1 top[$kind]=$rate; fi
      log "(j) pair at $rate req/s, $kind ($( ((ok[$kind])) && echo held || echo not held)): $(result_get "$base.json" \
        '{/request_rate/per_s:.0f} req/s, errors {/errors/total}, lag p99 {/lag/p99_ms:.3f} ms, request wait p99 {/request_wait/p99_ms:.3f} ms')"
    done
    if ((ok[piped] && !ok[rate])); then piped_only=$((piped_only + 1)); fi
    if ((ok[rate] && !ok[piped])); then rate_only=$((rate_only + 1)); fi
  done
  record j_pairs_piped_only "$piped_only"
  record j_pairs_rate_only "$rate_only"
  record j_pairs_top_piped "${top[piped]}"
  record j_pairs_top_rate "${top[rate]}"
}

# ka_wrk_pairs REP: ka_wrk_pair_count pairs in one spell of the machine: wrk's closed loop for
# ka_wrk_pair_s seconds (W1), rateperf --num-calls 100 and then --request-rate on ka_conns
# connections at 0.95 W1 (ka_s-second runs), wrk again (W2). Records, for each mode, whether
# the run held (j_wpair_held_KIND, 1 or 0, the rule of the search) and its achieved request rate
# over the mean of W1 and W2 (j_wpair_ratio_KIND): the search's steps run minutes after the wrk
# run that set W, and this machine's speed moves by a fifth or more in that time.
ka_wrk_pairs() {
  local rep=$1 i kind w1 w2 rate base
  for ((i = 1; i <= ka_wrk_pair_count; i++)); do
    base=$out/j-wpair-wrk-r$rep-$i
    ka_wrk_once "$base-before"
    w1=$ka_pw
    [[ -n $w1 ]] || continue
    rate=$(ka_rate 950 "$w1")
    for kind in calls rate; do
      ka_run "rateperf/$kind" "$rate" "$out/j-wpair-$kind-r$rep-$i-$rate"
    done
    ka_wrk_once "$base-after"
    w2=$ka_pw
    [[ -n $w2 ]] || continue
    for kind in calls rate; do
      base=$out/j-wpair-$kind-r$rep-$i-$rate
      if ka_held "rateperf/$kind" "$rate" "$base"; then
        record "j_wpair_held_$kind" 1
      else
        record "j_wpair_held_$kind" 0
      fi
      record "j_wpair_ratio_$kind" "$(result_calc "$base.json" .3f \
        "{/request_rate/per_s} / (($w1 + $w2) / 2)")"
      log "(j) rep $rep wrk pair $i: wrk $w1, rateperf/$kind at $rate: $(result_get "$base.json" \
        '{/request_rate/per_s:.0f} req/s, errors {/errors/total}, lag p99 {/lag/p99_ms:.3f} ms'), wrk $w2"
    done
  done
}

# ka_wrk_once BASE: one wrk closed loop on ka_conns connections for ka_wrk_pair_s seconds; sets
# ka_pw to its request rate (empty if none).
ka_wrk_once() {
  next_port
  timeout -k 2 $((ka_wrk_pair_s + 15)) ${in_netns[@]+"${in_netns[@]}"} taskset -c 0 wrk -t1 \
    -c"$ka_conns" -d"${ka_wrk_pair_s}s" "http://127.0.0.1:$port/ok.txt" >"$1.txt" 2>&1 ||
    log "wrk exited with status $? ($1.txt)"
  result_from_text wrk "$1.txt" "$1.json"
  ka_pw=$(result_get "$1.json" '{/request_rate/per_s:.0f}' 2>/dev/null || true)
  [[ $ka_pw =~ ^[0-9]+$ && $ka_pw -gt 0 ]] || ka_pw=''
  sleep 0.5
}

measure_j() {
  local rep=$1 word key rate base more verdict nginx_pid ns_pid='' ka_w
  local port0 port  # start_nginx's and next_port's, kept apart from those of the bench's nginx
  local -a in_netns=()
  local -A lo=() hi=() next=() runs=() best=() again=()
  if netns_new; then
    ns_pid=$netns_pid
    ka_where="a new network namespace per repetition"
  else
    log "(j) no network namespace of its own: it runs in this one"
    ka_where="this network namespace (not root)"
  fi
  nginx_multi_accept=1 start_nginx "$work/nginx-j"
  nginx_pid=$server_pid
  ka_wrk "$rep"
  ka_clients
  for word in "${clients[@]}"; do lo[$word]=0 hi[$word]=0 runs[$word]=0 next[$word]=$ka_start; done
  more=1
  [[ -n $ka_w ]] || { log "(j) no request rate from wrk: nothing to search from"; more=0; }
  # The searches go in turn, run by run, so that a slow spell of the machine falls on all.
  while ((more)); do
    more=0
    order "${clients[@]}"
    for word in "${ordered[@]}"; do
      ((next[$word] > 0 && runs[$word] < ka_steps)) || continue
      more=1
      key=$(client_key "$word")
      rate=$(ka_rate "${next[$word]}" "$ka_w")
      base=$out/j-$key-r$rep-$rate
      [[ -z ${again[$word]:-} ]] || base+=-again
      ka_run "$word" "$rate" "$base"
      if ka_held "$word" "$rate" "$base"; then
        lo[$word]=${next[$word]} best[$word]=$base verdict=held
      elif ((ka_retry)) && [[ -z ${again[$word]:-} ]]; then
        verdict="not held: once more"
      else
        hi[$word]=${next[$word]} verdict="not held"
      fi
      log "(j) $word at $rate req/s ($verdict): $(result_get "$base.json" \
        '{/request_rate/per_s:.0f} req/s, errors {/errors/total}, lag p99 {/lag/p99_ms:.3f} ms, request wait p99 {/request_wait/p99_ms:.3f} ms')"
      # With ka_retry (not --quick, for time), a step that is not held is run once more, in the
      # next round, and the second run decides: at nginx's capacity one slow spell of the shared
      # machine can make a client that holds the rate fail it (its connections pile up behind a
      # stalled nginx, or a stalled wake-up of its own puts a 100-ms hole in its arrivals, 1 %
      # of a 10-s run), and a step above the start bounds how far a client goes: pipelined
      # runs that held 1.15 W by hand failed 1.1 W in the bench on such a spell (serving 0.7x
      # what they served at 2 W minutes later), and ended their search there.
      if [[ $verdict == *"once more" ]]; then again[$word]=1; continue; fi
      again[$word]=''
      runs[$word]=$((runs[$word] + 1))
      next[$word]=$(ka_next "${lo[$word]}" "${hi[$word]}")
    done
  done
  [[ -z $ka_w ]] || ka_overload "$rep"
  [[ -z $ka_w ]] || ka_pairs "$rep" "${lo[rateperf/rate]:-0}"
  [[ -z $ka_w ]] || ka_wrk_pairs "$rep"
  for word in "${clients[@]}"; do
    key=$(client_key "$word")
    if [[ -n ${best[$word]:-} ]]; then
      record "j_held_$key" "$(ka_rate "${lo[$word]}" "$ka_w")"
      record "j_cpu_$key" "$(result_calc "${best[$word]}.json" .2f '{cpu_s} / {/totals/requests} * 1e6')"
      record "j_wait_$key" "$(result_get "${best[$word]}.json" '{/request_wait/p99_ms:.3f}')"
    else
      record "j_held_$key" 0
    fi
  done
  server_stop "$nginx_pid"
  [[ -z $ns_pid ]] || server_stop "$ns_pid"
  rm -rf "$work/nginx-j"
}

rows_j() {
  local kind first what target
  local -A label=([calls]="--num-calls $ka_calls (at a connection rate of R / $ka_calls)"
                  [rate]="--request-rate on $ka_conns connections"
                  [piped]="--request-rate on $ka_conns connections, --burst-length $ka_burst"
                  [calls_user]="--num-calls $ka_calls, --clock user (auto polls)"
                  [rate_user]="--request-rate on $ka_conns connections, --clock user (auto polls)")
  if ! wants j; then
    row "(j) keep-alive" "not measured" "not measured" "not measured" "not measured" "" "" "" ""
    return 0
  fi
  local again=''
  # (not in the assignment below: a false (( )) there would end the bench under set -e)
  ((ka_retry == 0)) || again=", a step not held run once more"
  first="(j) keep-alive: highest held request rate R [req/s] (${ka_s}-s runs searched from 0.95x wrk, at most $ka_steps steps$again; held: every call answered, 0 errors, >= 97 % of R, lag p99 <= 1 ms (httperf: no lag); 0: no step held; $ka_where)"
  for kind in calls rate piped calls_user rate_user; do
    what="(j) the same"
    [[ $kind == calls ]] && what=$first
    target=">= 0.95x wrk"
    [[ $kind == piped ]] &&
      target="> non-pipelined (pipelined/non-pipelined: $(ratio j_held_piped_rateperf j_held_rate_rateperf))"
    row "$what, ${label[$kind]}" \
      "$(median "j_held_${kind}_rateperf" 0)" "$(median "j_held_${kind}_baseline" 0)" \
      "$([[ $kind == calls ]] && median j_held_calls_httperf 0 || echo -)" \
      "$(median j_wrk 0) (wrk -t1 -c$ka_conns, closed loop; nginx $(median j_wrk_nginx 0) % busy)" \
      "$(ratio "j_held_${kind}_rateperf" "j_held_${kind}_baseline")" \
      "$([[ $kind == calls ]] && ratio j_held_calls_rateperf j_held_calls_httperf || echo -)" \
      "$(ratio "j_held_${kind}_rateperf" j_wrk)" "$target"
  done
  for kind in calls rate piped calls_user rate_user; do
    what="(j) keep-alive: CPU per request [us] at the held rate (wrk: user + system over its run)"
    [[ $kind == calls ]] || what="(j) the same"
    target=''
    [[ $kind == piped ]] || target="<= wrk's"
    row "$what, ${label[$kind]}" \
      "$(median "j_cpu_${kind}_rateperf" 2)" "$(median "j_cpu_${kind}_baseline" 2)" \
      "$([[ $kind == calls ]] && median j_cpu_calls_httperf 2 || echo -)" "$(median j_cpu_wrk 2)" \
      "$(ratio "j_cpu_${kind}_rateperf" "j_cpu_${kind}_baseline")" \
      "$([[ $kind == calls ]] && ratio j_cpu_calls_rateperf j_cpu_calls_httperf || echo -)" \
      "$(ratio "j_cpu_${kind}_rateperf" j_cpu_wrk)" "$target"
  done
  row "(j) keep-alive: what nginx answers at $(awk -v p=$ka_over 'BEGIN { print p / 1000 }')x wrk's rate offered, --request-rate on $ka_conns connections ($ka_over_pairs alternated pairs of ${ka_s}-s runs): replies/s (replies / test-duration) ; nginx's CPU per reply [us]" \
    "$(median j_over_rate 0) ; $(median j_over_nginx_rate 2)" "-" "-" "-" "" "-" "-" ""
  row "(j) the same, --burst-length $ka_burst" \
    "$(median j_over_piped 0) ; $(median j_over_nginx_piped 2)" "-" "-" "-" "" "-" "-" \
    "> non-pipelined (pipelined/non-pipelined: $(ratio j_over_piped j_over_rate); pair by pair: $(median j_over_pair 2))"
  row "(j) keep-alive: pipelined against non-pipelined in pairs of ${ka_s}-s runs back to back, at $ka_pair_steps steps of $(awk -v p=$ka_pair_step 'BEGIN { print p / 10 }') % of wrk's rate above the rate --request-rate held in the search (each repetition): steps only the pipelined run held ; steps only the other held ; the highest rate each held there [req/s] (the start if none)" \
    "$(sum_of j_pairs_piped_only) ; $(sum_of j_pairs_rate_only) ; $(median j_pairs_top_piped 0) against $(median j_pairs_top_rate 0)" \
    "-" "-" "-" "" "-" "-" "pipelined > non-pipelined (pipelined/non-pipelined: $(ratio j_pairs_top_piped j_pairs_top_rate))"
  for kind in calls rate; do
    row "(j) keep-alive: rateperf at 0.95x the rate wrk made right before it, ${label[$kind]} ($ka_wrk_pair_count pairs a repetition, wrk ${ka_wrk_pair_s} s before and after, rateperf ${ka_s} s): pairs held ; achieved request rate / the mean of the two wrk rates around it" \
      "$(tally "j_wpair_held_$kind") ; $(median "j_wpair_ratio_$kind" 2)" "-" "-" "-" "" "-" "-" \
      ">= 0.95x wrk"
  done
  row "(j) keep-alive: request wait p99 [ms] at the held rate, --request-rate on $ka_conns connections ; with --burst-length $ka_burst" \
    "$(median j_wait_rate_rateperf 3) ; $(median j_wait_piped_rateperf 3)" \
    "$(median j_wait_rate_baseline 3) ; $(median j_wait_piped_baseline 3)" "-" "-" "" "-" "-" ""
}
