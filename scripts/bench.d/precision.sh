# scripts/bench (c): rateperf's schedule precision at 1k, 5k and 10k conn/s (and the baseline's,
# run by run in turn with it); sourced.
# shellcheck shell=bash

precision_rates="1000 5000 10000"

measure_c() {
  local rep=$1 rate base conns tool
  for rate in $precision_rates; do
    conns=$((rate * prec_s))
    # shellcheck disable=SC2046  # one word per tool
    order $(rateperfs)
    for tool in "${ordered[@]}"; do
      base=$out/c-$tool-r$rep-$rate
      run "$tool" "$rate" "$conns" "$base"
      record "c_achieved_${rate}_$tool" "$(result_get "$base.json" '{/connection_rate/per_s}')"
      record "c_issued_${rate}_$tool" "$(result_get "$base.json" '{/schedule/issued_rate_per_s}')"
      record "c_lag99_${rate}_$tool" "$(result_calc "$base.json" .0f '{/lag/p99_ms} * 1000')"
      record "c_errors_${rate}_$tool" "$(result_get "$base.json" '{/errors/total}')"
    done
  done
}

# precision_cell RATE TOOL: "achieved ; issued ; lag p99 [us] ; errors" of TOOL at RATE.
precision_cell() {
  echo "$(median "c_achieved_$1_$2") ; $(median "c_issued_$1_$2") ; $(median "c_lag99_$1_$2" 0) ; $(median "c_errors_$1_$2" 0)"
}

rows_c() {
  local rate
  if wants c; then
    for rate in $precision_rates; do
      row "(c) at $rate conn/s: achieved conn/s; issued conn/s; lag p99 [us]; errors" \
        "$(precision_cell "$rate" rateperf)" "$(precision_cell "$rate" baseline)" "-" "-" \
        "lag p99 $(ratio "c_lag99_${rate}_rateperf" "c_lag99_${rate}_baseline")" "-" "-" \
        "$([[ $rate == 10000 ]] && echo "lag p99 < 200 us")"
    done
  else
    row "(c) schedule precision" "not measured" "not measured" "-" "-" "" "" "" ""
  fi
}
