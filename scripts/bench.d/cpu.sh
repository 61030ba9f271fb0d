# scripts/bench (b): client CPU time per connection at 300 and 5000 conn/s, and user-space
# instructions per connection; sourced.
# shellcheck shell=bash

# callgrind_ir FILE: the instructions counted in a callgrind output file (nothing if none).
callgrind_ir() { awk '/^(summary|totals):/ { print $2; exit }' "$1" 2>/dev/null || true; }

measure_b() {
  local rep=$1 tool rate seconds base conns
  for rate in 300 5000; do
    seconds=$((rate == 300 ? cpu_low_s : cpu_high_s))
    conns=$((rate * seconds))
    order
    for tool in "${ordered[@]}"; do
      base=$out/b-$tool-r$rep-$rate
      run "$tool" "$rate" "$conns" "$base"
      record "b_cpu_us_${rate}_$tool" "$(result_calc "$base.json" .3f "{cpu_s} / $conns * 1e6")"
      record "b_cpu_pct_${rate}_$tool" \
        "$(result_calc "$base.json" .3f "{cpu_s} / ($conns / $rate) * 100")"
      held "$base" "$rate" "$conns" || log "(b) $tool did not hold $rate conn/s ($base.txt)"
    done
  done
  # Callgrind counts user-space instructions only; valgrind slows the client, hence the low rate
  # and the generous timeouts. Valgrind keeps descriptors of its own near the hard limit, and
  # httperf exits when it cannot raise its soft limit to the hard one: both run with 1024. A run
  # of one connection gives the start-up cost, so that the marginal cost can be told apart.
  # rateperf writes no JSON here (its cost would count as instructions per connection):
  # --max-error-rate 0 makes it exit with status 3 if a connection failed.
  local ir ir1 n status
  order
  for tool in "${ordered[@]}"; do
    for n in 1 "$grind_conns"; do
      base=$out/b-grind-$tool-r$rep-$n
      next_port
      client_cmd "$tool" 500 "$n" "$port" 30
      [[ $tool == httperf ]] || cmd+=(--max-error-rate 0)
      status=0
      (ulimit -n 1024
       timeout -k 5 "$(run_limit 500 "$n" 30 120)" taskset -c 0 \
         valgrind --tool=callgrind --callgrind-out-file="$base.callgrind" "${cmd[@]}" \
         >"$base.txt" 2>"$base.err") || status=$?
      if [[ $tool == httperf ]]; then
        result_from_text httperf "$base.txt" "$base.json"
        result_true "$base.json" "{/totals/replies} == $n" || status=3
      fi
      case $status in
        0) ;;
        3) log "(b) $tool under valgrind: not every connection got a reply ($base.txt)" ;;
        *) log "valgrind $tool exited with status $status ($base.err)" ;;
      esac
      sleep 0.5
    done
    ir1=$(callgrind_ir "$out/b-grind-$tool-r$rep-1.callgrind")
    ir=$(callgrind_ir "$base.callgrind")
    if [[ -n $ir ]]; then
      record "b_ir_$tool" "$(awk -v i="$ir" -v n="$grind_conns" 'BEGIN { printf "%.0f", i / n }')"
      [[ -z $ir1 ]] || record "b_irm_$tool" \
        "$(awk -v i="$ir" -v b="$ir1" -v n="$grind_conns" 'BEGIN { printf "%.0f", (i - b) / (n - 1) }')"
    fi
  done
}

rows_b() {
  if wants b; then
    tool_row "(b) CPU per connection at 300 conn/s [us]" b_cpu_us_300 1 "-" "-" ""
    tool_row "(b) CPU at 300 conn/s [% of a core]" b_cpu_pct_300 1 "-" "-" "rateperf < 3 %"
    tool_row "(b) CPU per connection at 5000 conn/s [us]" b_cpu_us_5000 1 "-" "-" "<= 0.5x httperf"
    tool_row "(b) user-space instructions per connection (callgrind, $grind_conns conns at 500/s)" \
      b_ir 0 "-" "-" "< httperf"
    tool_row "(b) the same beyond start-up: (Ir(N) - Ir(1)) / (N - 1)" b_irm 0 "-" "-" "< httperf"
  else
    row "(b) CPU and instructions per connection" "not measured" "not measured" "not measured" "-" \
      "" "" "" ""
  fi
}
