# scripts/bench (l): --threads (issue 18). In a new network namespace per repetition, connection
# attempts to a closed port (each refused at once: no server's CPU in the figure, the client's
# work alone) offered at threads_rate, above what two workers make: the attempts a second and
# the CPU per attempt of --threads 1 on CPU 0 and of --threads 2 on CPUs 0-1, in two passes of
# opposite order (1 2, then 2 1: a slow spell of one core weighs on both alike), their ratio by
# repetition; as the reference for what two cores give, two separate rateperf processes at once,
# one on each CPU at half the rate, their attempts over the longer one's span; --threads 2 with
# a busy loop sharing CPU 1, where the worker on CPU 0 takes the other's due arrivals (moved
# arrivals). Then the merge: three shards of a schedule of
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

# l_pair BIN TOOL REP PASS: --threads 1 on CPU 0 and --threads 2 on CPUs 0-1, one after the
# other (pass a: 1 then 2; pass b: 2 then 1), their figures in l-TOOL-tT-rREP-PASS.*.
l_pair() {
  local bin=$1 tool=$2 rep=$3 pass=$4 t cpus order="1 2"
  [[ $pass == b ]] && order="2 1"
  for t in $order; do
    cpus=0
    ((t == 2)) && cpus=0-1
    threads_run "$bin" "$out/l-$tool-t$t-r$rep-$pass" --rate "$threads_rate" \
      --num-conns $((threads_rate * threads_s)) --threads "$t" --cpus "$cpus"
    sleep 0.5
  done
}

measure_l() {
  local rep=$1 ns_pid='' tool bin base t c pass cpu2 conns2 span hog d r1 r2
  local -a in_netns=() pids=()
  if netns_new; then
    ns_pid=$netns_pid
    threads_where="a new network namespace per repetition"
  else
    threads_where="this network namespace (not root)"
  fi
  # Two passes in opposite orders: a spell of this machine's (its cores' speeds change by a
  # third for tens of seconds, each on its own) weighs on both thread counts alike, and on
  # rateperf and the baseline alike, which take turns pair by pair.
  for pass in a b; do
    for tool in $(rateperfs); do
      bin=$rateperf
      [[ $tool == baseline ]] && bin=$baseline
      l_pair "$bin" "$tool" "$rep" "$pass"
    done
  done
  for tool in $(rateperfs); do
    bin=$rateperf
    [[ $tool == baseline ]] && bin=$baseline
    for t in 1 2; do
      base=$out/l-$tool-t$t-r$rep
      # The two passes' mean, and their CPU over their attempts.
      r1=$(value_of "$base" a b)
      [[ -n $r1 ]] || { record "l_t${t}_$tool" '?'; continue; }
      record "l_t${t}_$tool" $((r1 / 2))
      record "l_cpu_t${t}_$tool" "$(awk -v a="$(result_calc "$base-a.json" .9f '{cpu_s}')" \
        -v b="$(result_calc "$base-b.json" .9f '{cpu_s}')" \
        -v m="$(result_get "$base-a.json" '{/totals/connections}')" \
        -v n="$(result_get "$base-b.json" '{/totals/connections}')" \
        'BEGIN { if (m + n > 0) printf "%.2f", (a + b) / (m + n) * 1e6; else print "?" }')"
    done
    # This repetition's ratio, of the two passes' sums: the table's median is over these.
    r1=$(value_of "$out/l-$tool-t1-r$rep" a b) r2=$(value_of "$out/l-$tool-t2-r$rep" a b)
    [[ -n $r1 && -n $r2 ]] && record "l_ratio_$tool" "$(awk -v a="$r2" -v b="$r1" 'BEGIN { printf "%.3f", a / b }')"
    pids=()
    for c in 0 1; do
      threads_run "$bin" "$out/l-$tool-p$c-r$rep" --rate $((threads_rate / 2)) \
        --num-conns $((threads_rate / 2 * threads_s)) --cpus "$c" &
      pids+=($!)
    done
    wait "${pids[@]}"
    # Their attempts over the span of the longer one (both start at once), and their CPU per
    # attempt both together: what the kernel's shared work costs each attempt when two cores
    # make them, with nothing of one process shared. (Their rates summed would count the
    # faster one's rate over a span in which it had ended.)
    cpu2=0 conns2=0 span=0
    for c in 0 1; do
      base=$out/l-$tool-p$c-r$rep
      cpu2=$(awk -v a="$cpu2" -v b="$(result_calc "$base.json" .6f '{cpu_s}')" 'BEGIN { print a + b }')
      conns2=$((conns2 + $(result_get "$base.json" '{/totals/connections}' || echo 0)))
      d=$(result_get "$base.json" '{/totals/duration_s:.6f}' || echo 0)
      span=$(awk -v a="$span" -v b="$d" 'BEGIN { print (b > a) ? b : a }')
    done
    ((conns2 == 0)) || {
      record "l_p2_$tool" "$(awk -v n="$conns2" -v s="$span" 'BEGIN { printf "%.0f", n / s }')"
      record "l_cpu_p2_$tool" "$(awk -v s="$cpu2" -v n="$conns2" 'BEGIN { printf "%.2f", s / n * 1e6 }')"
    }
    sleep 0.5
    # --threads 2 with a busy loop sharing CPU 1: the worker there gets half a core, and the
    # other takes its due arrivals (moved arrivals).
    taskset -c 1 sh -c 'while :; do :; done' &
    hog=$!
    base=$out/l-$tool-hog-r$rep
    threads_run "$bin" "$base" --rate "$threads_rate" --num-conns $((threads_rate * threads_s)) \
      --threads 2 --cpus 0-1
    kill "$hog"
    wait "$hog" 2>/dev/null || true
    record "l_hog_$tool" "$(result_get "$base.json" '{/connection_rate/per_s:.0f}')"
    record "l_hog_moved_$tool" "$(result_get "$base.json" '{/lag/moved_arrivals}' || echo 0)"
    sleep 0.5
    merge_shards "$bin" "$out/l-$tool-m-r$rep"
    record "l_merge_ms_$tool" "$(result_get "$out/l-$tool-m-r$rep.time" '{/ms:.1f}')"
  done
  [[ -z $ns_pid ]] || server_stop "$ns_pid"
}

# value_of BASE PASS...: the sum of the passes' attempts a second (BASE-PASS.json), or nothing.
value_of() {
  local base=$1 sum=0 v pass
  shift
  for pass in "$@"; do
    v=$(result_get "$base-$pass.json" '{/connection_rate/per_s:.0f}' 2>/dev/null)
    [[ $v =~ ^[0-9]+$ ]] || return 0
    sum=$((sum + v))
  done
  echo "$sum"
}

rows_l() {
  local t
  if ! wants l; then
    row "(l) --threads" "not measured" "not measured" "-" "-" "" "" "" ""
    return 0
  fi
  for t in 1 2; do
    row "(l) connection attempts/s to a closed port, --threads $t (offered $threads_rate, $((threads_rate * threads_s)) attempts a run, two runs of each a repetition: 1 2 2 1; $threads_where) [conn/s]" \
      "$(median "l_t${t}_rateperf" 0)" "$(median "l_t${t}_baseline" 0)" "-" "-" \
      "$(ratio "l_t${t}_rateperf" "l_t${t}_baseline")" "-" "-" ""
  done
  row "(l) two rateperf processes at once, one on each CPU at half the rate: their attempts over the longer one's span [conn/s]" \
    "$(median l_p2_rateperf 0)" "$(median l_p2_baseline 0)" "-" "-" \
    "$(ratio l_p2_rateperf l_p2_baseline)" "-" "-" ""
  row "(l) --threads 2 / --threads 1, in attempts/s, by repetition (two processes / one: $(ratio l_p2_rateperf l_t1_rateperf))" \
    "$(median l_ratio_rateperf 2)" "$(median l_ratio_baseline 2)" "-" "-" "" "-" "-" ">= 1.8"
  for t in 1 2; do
    row "(l) CPU per attempt, --threads $t [us]" \
      "$(median "l_cpu_t${t}_rateperf" 2)" "$(median "l_cpu_t${t}_baseline" 2)" "-" "-" \
      "$(ratio "l_cpu_t${t}_rateperf" "l_cpu_t${t}_baseline")" "-" "-" \
      "$( ((t == 2)) && echo "no more than --threads 1's")"
  done
  row "(l) CPU per attempt, two processes at once (the reference for --threads 2) [us]" \
    "$(median l_cpu_p2_rateperf 2)" "$(median l_cpu_p2_baseline 2)" "-" "-" \
    "$(ratio l_cpu_p2_rateperf l_cpu_p2_baseline)" "-" "-" ""
  row "(l) --threads 2 with a busy loop sharing CPU 1 [conn/s] ; arrivals moved to the worker on CPU 0" \
    "$(median l_hog_rateperf 0) ; $(median l_hog_moved_rateperf 0)" \
    "$(median l_hog_baseline 0) ; $(median l_hog_moved_baseline 0)" "-" "-" \
    "$(ratio l_hog_rateperf l_hog_baseline)" "-" "-" "above --threads 1's"
  row "(l) rateperf merge of 3 dumps of 1,000,000 attempts each, wall time [ms]" \
    "$(median l_merge_ms_rateperf 1)" "$(median l_merge_ms_baseline 1)" "-" "-" \
    "$(ratio l_merge_ms_rateperf l_merge_ms_baseline)" "-" "-" "< 1000"
}
