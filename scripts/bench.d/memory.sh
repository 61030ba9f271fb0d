# scripts/bench (d): peak RSS per open connection, holding connections to a server that never
# answers; sourced.
# shellcheck shell=bash

# start_silent SECONDS: a server that accepts and never answers, for SECONDS at most; sets
# silent_pid and silent_port.
start_silent() {
  server_start "$work/silent.out" python3 -c '
import resource, socket, sys, time
resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(20000)
s.settimeout(0.5)
print(s.getsockname()[1], flush=True)
kept = []
end = time.time() + float(sys.argv[1])
while time.time() < end:
    try:
        kept.append(s.accept()[0])
    except (socket.timeout, OSError):
        pass
' "$1"
  silent_pid=$server_pid
  local i
  for i in $(seq 50); do
    silent_port=$(head -n 1 "$work/silent.out" 2>/dev/null || true)
    [[ $silent_port =~ ^[0-9]+$ ]] && return 0
    sleep 0.1
  done
  echo "bench: the silent server did not start" >&2; cat "$work/silent.out" >&2; exit 1
}

# peak_rss TOOL CONNS FILE: VmHWM [kB] of TOOL once it has opened CONNS connections at 2000/s to
# the silent server (read after the last one is due, plus 2 s), then the client is stopped.
peak_rss() {
  local tool=$1 conns=$2 file=$3 pid hwm wait_s
  wait_s=$(awk -v n="$conns" 'BEGIN { printf "%.1f", n / 2000 + 2 }')
  start_silent "$(awk -v w="$wait_s" 'BEGIN { printf "%d", w + 20 }')"
  client_cmd "$tool" 2000 "$conns" "$silent_port" 30
  taskset -c 0 "${cmd[@]}" >"$file" 2>"$file.err" &
  pid=$!
  sleep "$wait_s"
  hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
  grep -E '^(VmHWM|VmRSS|FDSize)' "/proc/$pid/status" >"$file.status" 2>/dev/null || true
  find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l >"$file.fds" || true
  kill -INT "$pid" 2>/dev/null || true
  sleep 0.3
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  server_stop "$silent_pid"
  echo "${hwm:-?}"
}

# measure_d REP: bytes per open connection beyond the baseline of one connection. httperf in
# Debian is built with select(): at most FD_SETSIZE (1024) descriptors, so it is measured at 1000
# connections.
measure_d() {
  local rep=$1 tool conns base full fds
  order
  for tool in "${ordered[@]}"; do
    conns=$([[ $tool == httperf ]] && echo 1000 || echo 19000)
    base=$(peak_rss "$tool" 1 "$out/d-$tool-r$rep-1.txt")
    full=$(peak_rss "$tool" "$conns" "$out/d-$tool-r$rep-$conns.txt")
    fds=$(cat "$out/d-$tool-r$rep-$conns.txt.fds" 2>/dev/null || echo "?")
    log "(d) rep $rep: $tool VmHWM $base kB with 1 connection, $full kB with $conns ($fds descriptors open)"
    if [[ $base != "?" && $full != "?" ]]; then
      record "d_bytes_$tool" "$(awk -v b="$base" -v f="$full" -v n="$conns" 'BEGIN { printf "%.0f", (f - b) * 1024 / (n - 1) }')"
      record "d_fds_$tool" "$fds"
    fi
  done
}

rows_d() {
  if wants d; then
    row "(d) peak RSS per open connection [B] (VmHWM beyond 1 connection)" \
      "$(median d_bytes_rateperf 0) (19000 conns, $(median d_fds_rateperf 0) fds)" \
      "$(median d_bytes_baseline 0) (19000 conns, $(median d_fds_baseline 0) fds)" \
      "$(median d_bytes_httperf 0) (1000 conns: select() caps it at 1024 fds)" "not measured" \
      "$(ratio d_bytes_rateperf d_bytes_baseline)" "$(ratio d_bytes_rateperf d_bytes_httperf)" "-" \
      "<= 1024 B"
  else
    row "(d) memory per connection" "not measured" "not measured" "not measured" "not measured" \
      "" "" "" ""
  fi
}
