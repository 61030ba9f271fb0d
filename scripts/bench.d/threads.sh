# scripts/bench (l): --threads (issue 18). In a new network namespace per repetition, connection
# attempts to a closed port (each refused at once: no server's CPU in the figure, the client's
# work alone) offered at threads_rate, above what two workers make: the attempts a second and
# the CPU per attempt of --threads 1 on CPU 0 and of --threads 2 on CPUs 0-1, and, as the
# reference for what two cores give, two separate rateperf processes at once, one on each CPU at
# half the rate, their attempts a second summed. Then the merge: three shards of a schedule of
# 3,000,000 attempts (1,000,000 each, one --start-at, each with --dump), and the time
# `rateperf merge` takes to read and merge their dumps. Sourced.
# shellcheck shell=bash

threads_rate=600000
threads_where="-"

# threads_run BIN BASE ARGS...: BIN against the closed port for threads_s seconds at RATE
# (--rate is among ARGS), its figures in BASE.json.
threads_run() {
  local bin=$1 base=$2
  shift 2
  timeout -k 2 $((threads_s + 30)) ${in_netns[@]+"${in_netns[@]}"} "$bin" -q --server 127.0.0.1 \
    --port 9 --timeout 2 --json "$base.json" "$@" >"$base.txt" 2>"$base.err" ||
    log "$bin exited with status $? ($base.txt)"
}

# merge_shards BIN BASE: three shards of 3,000,000 attempts at 300,000/s from one start, each
# dumped, then BIN merge of the three dumps timed; the time in BASE.time ({"ms": ...}), the
# merged JSON in BASE.json.
merge_shards() {
  local bin=$1 base=$2 i start t0 t1
  local -a pids=()
  start=$(date -d '+2 sec' +%s.%N)
  for i in 0 1 2; do
    timeout -k 2 60 ${in_netns[@]+"${in_netns[@]}"} "$bin" -q --server 127.0.0.1 --port 9 \
      --timeout 2 --rate 300000 --num-conns 3000000 --shard "$i/3" --start-at "$start" \
      --dump "$base-$i.dump" >"$base-$i.txt" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}" || log "a shard of $base exited with status $?"
  t0=$(date +%s%N)
  "$bin" merge --json "$base.json" "$base-0.dump" "$base-1.dump" "$base-2.dump" >"$base.txt" \
    2>"$base.err" || log "$bin merge exited with status $? ($base.err)"
  t1=$(date +%s%N)
  echo "{\"ms\": $(((t1 - t0) / 1000)).0e-3}" >"$base.time"
}

measure_l() {
  local rep=$1 ns_pid='' tool bin base t cpus c sum cpu2 conns2
  local -a in_netns=() pids=()
  if netns_new; then
    ns_pid=$netns_pid
    threads_where="a new network namespace per repetition"
  else
    threads_where="this network namespace (not root)"
  fi
  for tool in $(rateperfs); do
    bin=$rateperf
    [[ $tool == baseline ]] && bin=$baseline
    for t in 1 2; do
      base=$out/l-$tool-t$t-r$rep
      cpus=0
      ((t == 2)) && cpus=0-1
      threads_run "$bin" "$base" --rate "$threads_rate" --num-conns $((threads_rate * threads_s)) \
        --threads "$t" --cpus "$cpus"
      record "l_t${t}_$tool" "$(result_get "$base.json" '{/connection_rate/per_s:.0f}')"
      record "l_cpu_t${t}_$tool" \
        "$(result_calc "$base.json" .2f '{cpu_s} / {/totals/connections} * 1e6')"
      sleep 0.5
    done
    pids=()
    for c in 0 1; do
      threads_run "$bin" "$out/l-$tool-p$c-r$rep" --rate $((threads_rate / 2)) \
        --num-conns $((threads_rate / 2 * threads_s)) --cpus "$c" &
      pids+=($!)
    done
    wait "${pids[@]}"
    # Their attempts a second summed, and their CPU per attempt both together: what the
    # kernel's shared work costs each attempt when two cores make them, with nothing of one
    # process shared.
    sum=0 cpu2=0 conns2=0
    for c in 0 1; do
      base=$out/l-$tool-p$c-r$rep
      sum=$((sum + $(result_get "$base.json" '{/connection_rate/per_s:.0f}' || echo 0)))
      cpu2=$(awk -v a="$cpu2" -v b="$(result_calc "$base.json" .6f '{cpu_s}')" \
        'BEGIN { print a + b }')
      conns2=$((conns2 + $(result_get "$base.json" '{/totals/connections}' || echo 0)))
    done
    record "l_p2_$tool" "$sum"
    ((conns2 == 0)) ||
      record "l_cpu_p2_$tool" "$(awk -v s="$cpu2" -v n="$conns2" 'BEGIN { printf "%.2f", s / n * 1e6 }')"
    sleep 0.5
    merge_shards "$bin" "$out/l-$tool-m-r$rep"
    record "l_merge_ms_$tool" "$(result_get "$out/l-$tool-m-r$rep.time" '{/ms:.1f}')"
  done
  [[ -z $ns_pid ]] || server_stop "$ns_pid"
}

rows_l() {
  local t
  if ! wants l; then
    row "(l) --threads" "not measured" "not measured" "-" "-" "" "" "" ""
    return 0
  fi
  for t in 1 2; do
    row "(l) connection attempts/s to a closed port, --threads $t (offered $threads_rate, ${threads_s}-s runs, $threads_where) [conn/s]" \
      "$(median "l_t${t}_rateperf" 0)" "$(median "l_t${t}_baseline" 0)" "-" "-" \
      "$(ratio "l_t${t}_rateperf" "l_t${t}_baseline")" "-" "-" ""
  done
  row "(l) two rateperf processes at once, one on each CPU at half the rate: attempts/s summed [conn/s]" \
    "$(median l_p2_rateperf 0)" "$(median l_p2_baseline 0)" "-" "-" \
    "$(ratio l_p2_rateperf l_p2_baseline)" "-" "-" ""
  row "(l) --threads 2 / --threads 1, in attempts/s (two processes / one: $(ratio l_p2_rateperf l_t1_rateperf))" \
    "$(ratio l_t2_rateperf l_t1_rateperf)" "$(ratio l_t2_baseline l_t1_baseline)" "-" "-" "" "-" "-" ">= 1.8"
  for t in 1 2; do
    row "(l) CPU per attempt, --threads $t [us]" \
      "$(median "l_cpu_t${t}_rateperf" 2)" "$(median "l_cpu_t${t}_baseline" 2)" "-" "-" \
      "$(ratio "l_cpu_t${t}_rateperf" "l_cpu_t${t}_baseline")" "-" "-" \
      "$( ((t == 2)) && echo "no more than --threads 1's")"
  done
  row "(l) CPU per attempt, two processes at once (the reference for --threads 2) [us]" \
    "$(median l_cpu_p2_rateperf 2)" "$(median l_cpu_p2_baseline 2)" "-" "-" \
    "$(ratio l_cpu_p2_rateperf l_cpu_p2_baseline)" "-" "-" ""
  row "(l) rateperf merge of 3 dumps of 1,000,000 attempts each, wall time [ms]" \
    "$(median l_merge_ms_rateperf 1)" "$(median l_merge_ms_baseline 1)" "-" "-" \
    "$(ratio l_merge_ms_rateperf l_merge_ms_baseline)" "-" "-" "< 1000"
}
