# scripts/bench (m): rateperf search's accuracy against servers of known capacity, its time, and
# its answer for our nginx; and the open-loop queue's growth that its divergence test reads
# (issue 19); sourced.
# shellcheck shell=bash

# demo_server_start ARGS...: examples/demo_server on CPU 1 with ARGS, on a free port; sets
# demo_port and server_pid (stopped with server_stop).
demo_server_start() {
  local bin=${RATEPERF_DEMO_SERVER:-$repo/$build_dir/demo_server} log=$work/demo-server.log i
  [[ -x $bin ]] || ninja -C "$repo/$build_dir" demo_server >&2
  server_start "$log" taskset -c 1 "$bin" --host 127.0.0.1 --port 0 "$@"
  demo_port=
  for ((i = 0; i < 50; i++)); do
    demo_port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$log")
    [[ -n $demo_port ]] && break
    sleep 0.1
  done
}

# search_capacity NAME BASE URL [SEARCH OPTIONS...]: one search with the client on CPU 0; records
# NAME (the capacity, "?" when none) and NAME_s (its wall time); BASE.out/.json keep it.
search_capacity() {
  local name=$1 base=$2 url=$3 started capacity
  shift 3
  started=$(date +%s.%N)
  timeout -k 5 900 taskset -c 0 "$rateperf" search --json "$base.json" "$@" "$url" \
    >"$base.out" 2>"$base.err" || true
  capacity=$(sed -n 's/^Capacity \[[a-z\/]*\]: \([0-9.]*\) +- .*/\1/p' "$base.out")
  record "$name" "${capacity:-?}"
  record "${name}_s" "$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')"
  log "(m) $name: $(tail -n 1 "$base.out")"
}

# within NAME EXPECTED PERCENT: records NAME_ok 1 when the last recorded NAME is within PERCENT
# of EXPECTED, else 0.
within() {
  local last
  last=$(tail -n 1 "$out/values/$1")
  awk -v v="$last" -v e="$2" -v p="$3" 'BEGIN { exit !(v != "?" && v >= e * (1 - p / 100) && v <= e * (1 + p / 100)) }' &&
    record "$1_ok" 1 || record "$1_ok" 0
}

measure_m() {
  local rep=$1 base=$out/m-r$rep
  # A 4 x 10 ms demo server: 400/s; the default one, 2 workers x 10 ms: 200/s.
  demo_server_start --workers 4 --service-ms 10
  search_capacity m_demo400 "$base-demo400" "http://127.0.0.1:$demo_port/"
  within m_demo400 400 5
  server_stop "$server_pid"
  demo_server_start
  search_capacity m_demo200 "$base-demo200" "http://127.0.0.1:$demo_port/"
  within m_demo200 200 5
  server_stop "$server_pid"
  # An unbounded queue at 1.5x capacity: the open connections grow at offered - capacity =
  # 100/s until the 5-s timeouts set in; their slope over the intervals from 1 s to 4.5 s.
  demo_server_start --queue 0
  timeout -k 5 60 taskset -c 0 "$rateperf" --server 127.0.0.1 --port "$demo_port" --rate 300 \
    --num-conns 3000 --timeout 5 --interval 0.5 --json "$base-queue0.json" >/dev/null 2>&1 || true
  server_stop "$server_pid"
  record m_queue0_slope "$(jq '[.series.points[] | select(.start_s >= 0.5 and .start_s + .length_s <= 4.5)
    | {x: (.start_s + .length_s), y: .open_connections}] as $p | ($p | length) as $n
    | ($p | map(.x) | add / $n) as $mx | ($p | map(.y) | add / $n) as $my
    | ($p | map((.x - $mx) * (.y - $my)) | add) / ($p | map((.x - $mx) * (.x - $mx)) | add)' \
    "$base-queue0.json" 2>/dev/null || echo '?')"
  within m_queue0_slope 100 10
  # Our nginx (one process on CPU 1): a static file, Connection: close.
  next_port
  search_capacity m_nginx "$base-nginx" "http://127.0.0.1:$port/ok.txt" --start-rate 1000 --step 2 \
    --cool-down 1
}

rows_m() {
  if wants m; then
    row "(m) rateperf search of a 4 x 10 ms demo server [conn/s] (defaults; wall time $(median m_demo400_s 0) s)" \
      "$(median m_demo400 1)" "" "" "" "" "" "" "within 5 % of 400: $(tally m_demo400_ok)"
    row "(m) rateperf search of a 2 x 10 ms demo server [conn/s] ($(median m_demo200_s 0) s)" \
      "$(median m_demo200 1)" "" "" "" "" "" "" "within 5 % of 200: $(tally m_demo200_ok)"
    row "(m) open connections' growth, unbounded queue at 300/s vs 200/s [conn/s per s]" \
      "$(median m_queue0_slope 1)" "" "" "" "" "" "" "within 10 % of 100: $(tally m_queue0_slope_ok)"
    row "(m) rateperf search of our nginx, --start-rate 1000 --step 2 --cool-down 1 [conn/s] ($(median m_nginx_s 0) s)" \
      "$(median m_nginx 0)" "" "" "" "" "" "" "(the client may be the limit: the last line says)"
  else
    row "(m) rateperf search" "not measured" "" "" "" "" "" "" ""
  fi
}
