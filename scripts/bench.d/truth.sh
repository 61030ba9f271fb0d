# scripts/bench (o): reply times by the kernel's clock and by the client's, against tcpdump's
# (issue 21). A demo server that answers 20 ms after each request (64 workers, CPU 1), rateperf
# on CPU 0 with --call-log, tcpdump on loopback (CPU 1) capturing the server's port; for each
# connection scripts/lib/wire_times.py takes the request's first data packet and the reply's
# first and last ones from the capture, and compares them with rateperf's times of the same
# connection by either clock: request sent -> first reply byte (response) and -> last reply
# byte (total). Each at 100 conn/s, alone on its core and with a CPU hog on it (a shell busy
# loop on CPU 0, at the client's priority), and with --batch-reads 0.005 at 300 conn/s.
# Then the CPU that batched reads save: rateperf at 300 and 1000 conn/s against the same server
# with a wake-up per reply, with --batch-reads 0.005 and with --batch-reads 1 (the most that
# batching can save), alternating, and the client's CPU per connection of each (three runs of
# each per repetition, in turn), with --clock user beside (what the timestamps themselves
# cost); sourced.
# shellcheck shell=bash

truth_py=$repo/scripts/lib/wire_times.py
truth_conns=1000
((quick)) && truth_conns=400
declare -A truth_cpu_conns=([300]=3000 [1000]=10000)
((quick)) && truth_cpu_conns=([300]=1500 [1000]=3000)

# truth_run KEY RATE HOG BASE [OPTIONS...]: one captured run; records o_KEY_* from wire_times.py
# (errors in us, the sources' percentiles in ms).
truth_run() {
  local key=$1 rate=$2 hog=$3 base=$4 hog_pid='' f
  shift 4
  capture_start "$base.pcap" "tcp port $demo_port" || return 0
  if ((hog)); then
    server_start /dev/null taskset -c 0 bash -c 'while :; do :; done'
    hog_pid=$server_pid
  fi
  timeout -k 5 120 taskset -c 0 "$rateperf" --server 127.0.0.1 --port "$demo_port" \
    --rate "$rate" --num-conns "$truth_conns" --timeout 5 --call-log "$base.csv" \
    --json "$base.json" "$@" >"$base.out" 2>"$base.err" || true
  [[ -n $hog_pid ]] && server_stop "$hog_pid"
  sleep 0.3
  server_stop "$capture_pid"
  "$results_python" "$truth_py" "$base.pcap" "$demo_port" "$base.csv" >"$base.wire.json" ||
    { log "(o) no comparison from $base.pcap"; return 0; }
  rm -f "$base.pcap"
  record "o_${key}_matched" "$(result_get "$base.wire.json" '{/matched}')"
  for f in response_p50 response_p99 total_p50 total_p99; do
    record "o_${key}_kernel_err_$f" "$(result_get "$base.wire.json" "{/error/kernel/${f}_us}")"
    record "o_${key}_user_err_$f" "$(result_get "$base.wire.json" "{/error/user/${f}_us}")"
    record "o_${key}_wire_$f" "$(result_get "$base.wire.json" "{/wire/${f}_ms}")"
    record "o_${key}_kernel_$f" "$(result_get "$base.wire.json" "{/kernel/${f}_ms}")"
    record "o_${key}_user_$f" "$(result_get "$base.wire.json" "{/user/${f}_ms}")"
  done
  log "(o) $key: $(result_get "$base.wire.json" '{/matched} connections; kernel error p50 {/error/kernel/total_p50_us} us p99 {/error/kernel/total_p99_us} us; user error p50 {/error/user/total_p50_us} us p99 {/error/user/total_p99_us} us')"
}

# truth_cpu KEY RATE BASE [OPTIONS...]: one uncaptured run; records o_cpu_KEY (us of client CPU
# per connection) and o_sleeps_KEY (the loop's sleeps per connection).
truth_cpu() {
  local key=$1 rate=$2 base=$3 conns
  shift 3
  conns=${truth_cpu_conns[$rate]}
  timeout -k 5 120 taskset -c 0 "$rateperf" --server 127.0.0.1 --port "$demo_port" \
    --rate "$rate" --num-conns "$conns" --timeout 5 --json "$base.json" -q "$@" \
    >"$base.out" 2>"$base.err" || true
  record "o_cpu_$key" "$(result_calc "$base.json" .2f "({/cpu/user_s} + {/cpu/system_s}) * 1e6 / $conns")"
  record "o_sleeps_$key" "$(result_calc "$base.json" .3f "{/timing/sleeps} / $conns")"
}

measure_o() {
  local rep=$1 base=$out/o-r$rep rate round
  demo_server_start --workers 64 --service-ms 20 --queue 0
  truth_run alone 100 0 "$base-alone"
  truth_run hog 100 1 "$base-hog"
  truth_run batch 300 0 "$base-batch" --batch-reads 0.005
  # Three rounds, the four modes in turn: a slow spell of the shared machine falls on all.
  for round in 1 2 3; do
    for rate in 300 1000; do
      truth_cpu "each_$rate" "$rate" "$base-$round-each-$rate"
      truth_cpu "batch_$rate" "$rate" "$base-$round-batch-$rate" --batch-reads 0.005
      # The most that batching can save: replies read once a second (the longest bound), so
      # that no reply wakes the loop and a drain serves hundreds of them.
      truth_cpu "batch1_$rate" "$rate" "$base-$round-batch1-$rate" --batch-reads 1
      truth_cpu "user_$rate" "$rate" "$base-$round-user-$rate" --clock user
    done
  done
  server_stop "$server_pid"
}

# The rows: the kernel clock's error in the rateperf column, the client clock's beside it in
# the httperf column (the peer here is the wire itself).
rows_o() {
  wants o || return 0
  local key label
  for key in alone hog batch; do
    case $key in
      alone) label="100 conn/s" ;;
      hog) label="100 conn/s, CPU hog on the client's core" ;;
      batch) label="300 conn/s, --batch-reads 0.005" ;;
    esac
    row "(o) |rateperf - tcpdump|, request sent -> first reply byte, p50 [us] ($label; kernel clock | client's clock)" \
      "$(median "o_${key}_kernel_err_response_p50")" "" "$(median "o_${key}_user_err_response_p50")" "" "" "" "" "kernel <= 50"
    row "(o) ... p99 [us] ($label)" \
      "$(median "o_${key}_kernel_err_response_p99")" "" "$(median "o_${key}_user_err_response_p99")" "" "" "" "" "kernel <= 200"
    row "(o) ... request sent -> last reply byte, p50 [us] ($label)" \
      "$(median "o_${key}_kernel_err_total_p50")" "" "$(median "o_${key}_user_err_total_p50")" "" "" "" "" "kernel <= 50"
    row "(o) ... p99 [us] ($label)" \
      "$(median "o_${key}_kernel_err_total_p99")" "" "$(median "o_${key}_user_err_total_p99")" "" "" "" "" "kernel <= 200"
  done
  for rate in 300 1000; do
    row "(o) client CPU per connection at $rate conn/s [us], --batch-reads 0.005 (rateperf) | a wake-up per reply (httperf column)" \
      "$(median "o_cpu_batch_$rate")" "" "$(median "o_cpu_each_$rate")" "" "" "$(ratio "o_cpu_batch_$rate" "o_cpu_each_$rate")" "" \
      "$( ((rate == 300)) && echo "ratio <= 0.83" )"
    row "(o) client CPU per connection at $rate conn/s [us], --batch-reads 1 (rateperf) | a wake-up per reply (httperf column)" \
      "$(median "o_cpu_batch1_$rate")" "" "$(median "o_cpu_each_$rate")" "" "" "$(ratio "o_cpu_batch1_$rate" "o_cpu_each_$rate")" "" \
      "the ceiling of batching"
    row "(o) loop sleeps per connection at $rate conn/s, batched | each" \
      "$(median "o_sleeps_batch_$rate" 2)" "" "$(median "o_sleeps_each_$rate" 2)" "" "" "" "" ""
    row "(o) client CPU per connection at $rate conn/s [us], --clock user (rateperf) | --clock kernel (httperf column)" \
      "$(median "o_cpu_user_$rate")" "" "$(median "o_cpu_each_$rate")" "" "" "$(ratio "o_cpu_user_$rate" "o_cpu_each_$rate")" "" ""
  done
}

# truth_note: the three sources' own percentiles side by side, after the table.
truth_note() {
  local key f
  echo
  echo "(o) Reply times of the same connections [ms], median over the repetitions: the wire (tcpdump), the kernel's clock, the client's clock."
  echo
  echo "| run | figure | wire | kernel | client |"
  echo "|---|---|---:|---:|---:|"
  for key in alone hog batch; do
    for f in response_p50 response_p99 total_p50 total_p99; do
      echo "| $key | $f | $(median "o_${key}_wire_$f" 3) | $(median "o_${key}_kernel_$f" 3) | $(median "o_${key}_user_$f" 3) |"
    done
  done
}
