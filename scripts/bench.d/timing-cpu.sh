# scripts/bench (i): the client's CPU (/cpu/total_percent: % of one core over the run) at 300 and
# 5000 conn/s in each rateperf --timing mode, and httperf's (its CPU line), with the floor client's
# (floor.sh) at each rate; sourced.
# shellcheck shell=bash

timing_cpu_rates="300 5000"

measure_i() {
  local rep=$1 rate seconds conns word key base
  mode_clients "${timing_modes[@]}"
  clients+=(httperf)
  for rate in $timing_cpu_rates; do
    seconds=$((rate == 300 ? cpu_low_s : cpu_high_s))
    conns=$((rate * seconds))
    order "${clients[@]}"
    for word in "${ordered[@]}"; do
      key=$(client_key "$word")
      base=$out/i-$key-r$rep-$rate
      next_port
      run_client "$word" "$rate" "$conns" "$base"
      record "i_cpu_${rate}_$key" "$(result_get "$base.json" '{/cpu/total_percent:.2f}')"
      held "$base" "$rate" "$conns" || log "(i) $word did not hold $rate conn/s ($base.txt)"
    done
    next_port
    if floor_run "$rate" "$conns" "$out/i-floor-r$rep-$rate"; then
      record "i_cpu_${rate}_floor" "$(result_get "$out/i-floor-r$rep-$rate.json" '{/cpu/total_percent:.2f}')"
    fi
  done
}

rows_i() {
  local rate mode target seconds
  if ! wants i; then
    row "(i) CPU per timing mode" "not measured" "not measured" "not measured" "-" "" "" "" ""
    return 0
  fi
  for rate in $timing_cpu_rates; do
    seconds=$((rate == 300 ? cpu_low_s : cpu_high_s))
    for mode in "${timing_modes[@]}"; do
      target=''
      [[ $mode-$rate == auto-5000 ]] && target="<= 0.5x httperf"
      [[ $mode-$rate == auto-300 ]] && target="< 3 % of a core"
      mode_row "(i) CPU at $rate conn/s (${seconds}-s runs), --timing $mode [% of a core]" \
        "$mode" "$target" "i_cpu_$rate:2"
    done
    floor_row "(i) CPU at $rate conn/s of the floor client (floor.c: socket, blocking connect, send, read, close; no event loop) [% of a core]" \
      "i_cpu_${rate}_floor" "i_cpu_$rate"
  done
}
