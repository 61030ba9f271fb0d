# scripts/bench (e): syscalls per connection (strace -c -f), and rateperf's table of them; sourced.
# No JSON here: its writing would count as syscalls of the run.
# shellcheck shell=bash

# strace_total FILE: the calls of the "total" line of a strace -c summary (nothing if none).
strace_total() { awk '$NF == "total" { print $4 }' "$1" 2>/dev/null || true; }

measure_e() {
  local rep=$1 tool base total
  order
  for tool in "${ordered[@]}"; do
    base=$out/e-$tool-r$rep
    next_port
    client_cmd "$tool" 1000 "$strace_conns" "$port" 10
    timeout -k 5 "$(run_limit 1000 "$strace_conns" 10 60)" taskset -c 0 \
      strace -c -f -o "$base.strace" "${cmd[@]}" >"$base.txt" 2>"$base.err" ||
      log "strace $tool exited with status $?"
    total=$(strace_total "$base.strace")
    [[ -z $total ]] ||
      record "e_calls_$tool" "$(awk -v t="$total" -v n="$strace_conns" 'BEGIN { printf "%.2f", t / n }')"
    sleep 0.5
  done
}

rows_e() {
  if wants e; then
    tool_row "(e) syscalls per connection (strace -c -f, $strace_conns conns at 1000/s)" e_calls 1 \
      "-" "-" "socket, connect, write, read, close + loop share"
  else
    row "(e) syscalls per connection" "not measured" "not measured" "not measured" "-" "" "" "" ""
  fi
}

# syscall_table: rateperf's syscalls per connection in repetition 1, one row per syscall (with
# --baseline, the baseline's per connection beside them).
syscall_table() {
  local new=$out/e-rateperf-r1.strace old=$out/e-baseline-r1.strace
  [[ -f $new ]] || return 0
  echo
  echo "rateperf's syscalls per connection (strace -c -f, repetition 1, $strace_conns connections):"
  echo
  if [[ -n $baseline ]]; then
    echo "| syscall | calls | per connection | errors | baseline per connection |"
    echo "| --- | ---: | ---: | ---: | ---: |"
  else
    echo "| syscall | calls | per connection | errors |"
    echo "| --- | ---: | ---: | ---: |"
  fi
  # A strace -c row: % time, seconds, usecs/call, calls, [errors,] syscall.
  awk -v n="$strace_conns" -v with_old="${baseline:+1}" '
    $1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" {
      if (FILENAME != new) { old[$NF] = $4; next }
      errors = (NF == 6) ? $5 : 0
      line = sprintf("| %s | %d | %.3f | %d |", $NF, $4, $4 / n, errors)
      if (with_old) line = line sprintf(" %s |", ($NF in old) ? sprintf("%.3f", old[$NF] / n) : "-")
      print line
    }' new="$new" "$( [[ -n $baseline && -f $old ]] && echo "$old" || echo /dev/null)" "$new"
}
