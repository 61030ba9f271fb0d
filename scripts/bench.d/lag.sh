# scripts/bench (h): rateperf's lag p99 at 10,000 conn/s in each --timing mode, lag_runs runs of
# each per repetition, and how many stayed under 200 us (httperf reports no lag); sourced.
# shellcheck shell=bash

lag_rate=10000 lag_runs=3 lag_limit_us=200

measure_h() {
  local rep=$1 i word key base
  mode_clients "${timing_modes[@]}"
  for ((i = 1; i <= lag_runs; i++)); do
    order "${clients[@]}"
    for word in "${ordered[@]}"; do
      key=$(client_key "$word")
      base=$out/h-$key-r$rep-$i
      next_port
      run_client "$word" "$lag_rate" $((lag_rate * lag_s)) "$base"
      record "h_lag99_$key" "$(result_calc "$base.json" .0f '{/lag/p99_ms} * 1000')"
      if result_true "$base.json" "{/lag/p99_ms} * 1000 < $lag_limit_us"; then
        record "h_under_$key" 1
      else
        record "h_under_$key" 0
      fi
    done
  done
}

# lag_cell TOOL MODE: "lag p99 ; K of N under the limit" of the rateperf TOOL in MODE.
lag_cell() { echo "$(median "h_lag99_$2_$1" 0) ; $(tally "h_under_$2_$1")"; }

rows_h() {
  local mode target
  if ! wants h; then
    row "(h) lag p99 per timing mode" "not measured" "not measured" "-" "-" "" "" "" ""
    return 0
  fi
  for mode in "${timing_modes[@]}"; do
    target=''
    [[ $mode == hybrid ]] && target="< $lag_limit_us us in every run ($lag_runs of $lag_runs)"
    row "(h) lag p99 at $lag_rate conn/s (${lag_s}-s runs, $lag_runs a repetition), --timing $mode [us]; runs under $lag_limit_us us" \
      "$(lag_cell rateperf "$mode")" "$(lag_cell baseline "$mode")" "-" "-" \
      "$(ratio "h_lag99_${mode}_rateperf" "h_lag99_${mode}_baseline")" "-" "-" "$target"
  done
}
