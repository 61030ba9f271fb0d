# scripts/bench (a): the highest connection rate each client holds, and wrk's closed-loop
# `Connection: close` rate as the ceiling of the machine; sourced.
# shellcheck shell=bash

# next_rate LO HI: the search's next rate after the highest held so far (LO) and the lowest not
# held (HI, 0: none yet): step up by search_step until a run is not held, then bisect down to
# search_resolution; 0 when the search is over.
next_rate() {
  local lo=$1 hi=$2
  if ((hi == 0)); then
    echo $((lo + search_step <= search_max ? lo + search_step : 0))
  elif ((hi - lo > search_resolution)); then
    echo $(((lo + hi) / 2 / 50 * 50))
  else
    echo 0
  fi
}

# measure_a REP: the searches of every tool, interleaved run by run (each run lasts step_s
# seconds), so that a slow spell of the machine falls on all of them; then wrk.
measure_a() {
  local rep=$1 tool rate base more
  local -A lo=() hi=() next=()
  for tool in "${tools[@]}"; do lo[$tool]=0 hi[$tool]=0 next[$tool]=$search_step; done
  more=1
  while ((more)); do
    more=0
    order
    for tool in "${ordered[@]}"; do
      rate=${next[$tool]}
      ((rate > 0)) || continue
      more=1
      base=$out/a-$tool-r$rep-$rate
      run "$tool" "$rate" $((rate * step_s)) "$base"
      if held "$base" "$rate" $((rate * step_s)); then lo[$tool]=$rate; else hi[$tool]=$rate; fi
      next[$tool]=$(next_rate "${lo[$tool]}" "${hi[$tool]}")
    done
  done
  for tool in "${tools[@]}"; do
    log "(a) rep $rep: $tool holds ${lo[$tool]} conn/s"
    record "a_$tool" "${lo[$tool]}"
  done
  base=$out/a-wrk-r$rep
  next_port
  timeout -k 2 $((wrk_s + 15)) taskset -c 0 wrk -t1 -c50 -d"${wrk_s}s" -H 'Connection: close' \
    "http://127.0.0.1:$port/ok.txt" >"$base.txt" 2>&1 || log "wrk exited with status $?"
  result_from_text wrk "$base.txt" "$base.json"
  record a_wrk "$(result_get "$base.json" '{/request_rate/per_s}')"
  log "(a) rep $rep: wrk closed loop $(value a_wrk) req/s"
  sleep 0.5
}

rows_a() {
  if wants a; then
    row "(a) highest held rate [conn/s] (${step_s}-s runs, within 1 %, 0 errors)" \
      "$(median a_rateperf 0)" "$(median a_baseline 0)" "$(median a_httperf 0)" \
      "$(median a_wrk 0) (closed loop, Connection: close)" "$(ratio a_rateperf a_baseline)" \
      "$(ratio a_rateperf a_httperf)" "$(ratio a_rateperf a_wrk)" ">= 1.5x httperf, >= 0.95x wrk"
  else
    row "(a) highest held rate" "not measured" "not measured" "not measured" "not measured" "" "" "" ""
  fi
}
