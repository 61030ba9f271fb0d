# scripts/bench (g): SYN timing on the wire: each client's SYNs captured on loopback with tcpdump,
# and the gaps between successive ones (scripts/lib/syn_gaps.py), for every rateperf --timing
# mode and httperf: at fixed rates, the share of gaps within 10 % of the nominal gap and their
# median absolute deviation from it, with the client's CPU; with Poisson arrivals (--period
# e0.001), the gaps' coefficient of variation and the rate on the wire against the one the
# schedule meant (rateperf's /schedule/intended_rate_per_s, the rate its seeded draw realises;
# httperf's nominal 1000/s). The capture times the SYNs as the kernel sends them, wherever the
# client believes it started a connection; sourced.
# shellcheck shell=bash

syn_rates="1000 10000"
declare -A syn_conns=([1000]=5000 [10000]=20000)
syn_poisson=e0.001 syn_poisson_rate=1000 syn_poisson_conns=10000
syn_gaps_py=$repo/scripts/lib/syn_gaps.py

# capture_start PCAP FILTER: tcpdump on loopback, pinned to CPU 1 (the server's core: the
# client's stays its own), writing the packets FILTER matches into PCAP, with its stderr in
# PCAP.log; sets capture_pid once it captures (5 s at most). The kernel times each packet, to
# the nanosecond; a buffer of 64 MB keeps a burst from being dropped, and --immediate-mode hands
# each packet over as it comes (otherwise those of the last block would be lost when tcpdump is
# stopped). Also (o)'s.
capture_start() {
  local pcap=$1 filter=$2 i
  server_start "$pcap.log" taskset -c 1 tcpdump -i lo -n -B 65536 -s 128 -Z root \
    --immediate-mode --time-stamp-precision=nano -w "$pcap" "$filter"
  capture_pid=$server_pid
  for ((i = 0; i < 50; i++)); do
    grep -q 'listening on' "$pcap.log" 2>/dev/null && return 0
    kill -0 "$capture_pid" 2>/dev/null || break
    sleep 0.1
  done
  log "tcpdump did not start ($pcap.log)"
  server_stop "$capture_pid"
  return 1
}

# syn_capture_start PCAP: the SYNs without ACK to $port.
syn_capture_start() {
  capture_start "$1" "tcp dst port $port and tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn"
}

# syn_run WORD SCHEDULE CONNS NOMINAL_GAP_US BASE: one run of the client WORD (modes.sh) on the
# next port of nginx with its SYNs captured; the gaps in BASE.gaps.json. False without a capture.
syn_run() {
  local word=$1 schedule=$2 conns=$3 nominal=$4 base=$5
  next_port
  syn_capture_start "$base.pcap" || return 1
  run_client "$word" "$schedule" "$conns" "$base"
  server_stop "$capture_pid"
  "$results_python" "$syn_gaps_py" "$base.pcap" "$port" "$nominal" "$base.pcap.log" \
    >"$base.gaps.json" || { log "(g) no gaps from $base.pcap"; return 1; }
  rm -f "$base.pcap"
  record g_syns "$(result_get "$base.gaps.json" '{/syns}')"
  record g_conns "$conns"
  record g_dropped "$(result_get "$base.gaps.json" '{/dropped}')"
  record g_retransmits "$(result_get "$base.gaps.json" '{/retransmits}')"
  result_true "$base.gaps.json" "{/syns} == $conns and {/dropped} == 0" ||
    log "(g) $word: $(result_get "$base.gaps.json" '{/syns} SYNs captured, {/dropped} packets dropped,') for $conns connections ($base.pcap.log)"
}

measure_g() {
  local rep=$1 rate word key base intended
  mode_clients "${timing_modes[@]}"
  clients+=(httperf)
  for rate in $syn_rates; do
    order "${clients[@]}"
    for word in "${ordered[@]}"; do
      key=$(client_key "$word")
      base=$out/g-$key-r$rep-$rate
      syn_run "$word" "$rate" "${syn_conns[$rate]}" "$((1000000 / rate))" "$base" || continue
      record "g_share_${rate}_$key" "$(result_get "$base.gaps.json" '{/share_within_10pct:.3f}')"
      record "g_mad_${rate}_$key" "$(result_get "$base.gaps.json" '{/mad_us:.1f}')"
      record "g_cpu_${rate}_$key" "$(result_get "$base.json" '{/cpu/total_percent:.1f}')"
    done
  done
  # The floor client at 1000 conn/s, captured like the others (the capture's filter runs on the
  # sending core, so the CPU figures of (g) include it); it cannot keep up with 10,000.
  base=$out/g-floor-r$rep-1000
  next_port
  if syn_capture_start "$base.pcap"; then
    floor_run 1000 "${syn_conns[1000]}" "$base" || true
    server_stop "$capture_pid"
    if "$results_python" "$syn_gaps_py" "$base.pcap" "$port" 1000 "$base.pcap.log" \
        >"$base.gaps.json"; then
      rm -f "$base.pcap"
      record g_share_1000_floor "$(result_get "$base.gaps.json" '{/share_within_10pct:.3f}')"
      record g_cpu_1000_floor "$(result_get "$base.json" '{/cpu/total_percent:.1f}')"
    fi
  fi
  # The machine's own wake-up stalls, 10,000 sleeps of 1 ms with nothing else running: what
  # every mode that sleeps (sleep, hybrid, auto) inherits on the wire, spin and httperf do not.
  if floor_ready; then
    base=$out/g-sleeper-r$rep
    ${in_netns[@]+"${in_netns[@]}"} taskset -c 0 "$floor_bin" sleep 10000 1000 >"$base.txt" 2>&1
    record g_stall1 "$(awk '{ print $4 }' "$base.txt")"
    record g_stall5 "$(awk '{ print $6 }' "$base.txt")"
    record g_stallmax "$(awk '{ print $8 }' "$base.txt")"
  fi
  order "${clients[@]}"
  for word in "${ordered[@]}"; do
    key=$(client_key "$word")
    base=$out/g-$key-r$rep-poisson
    syn_run "$word" "$syn_poisson" "$syn_poisson_conns" "$((1000000 / syn_poisson_rate))" \
      "$base" || continue
    intended=$syn_poisson_rate
    [[ $word == httperf ]] || intended=$(result_get "$base.json" '{/schedule/intended_rate_per_s}')
    record "g_cv_$key" "$(result_get "$base.gaps.json" '{/cv:.3f}')"
    record "g_wire_$key" "$(result_get "$base.gaps.json" '{/wire_rate_per_s:.1f}')"
    if [[ $intended =~ ^[0-9.e+-]+$ ]]; then
      record "g_wirerel_$key" "$(result_calc "$base.gaps.json" .4f "{/wire_rate_per_s} / $intended")"
    else
      record "g_wirerel_$key" "?"
    fi
  done
}

# syn_target FIGURE MODE: the target of (g)'s row of MODE, if it has one.
syn_target() {
  case $1-$2 in
    fixed-hybrid) echo "share >= httperf's - 0.01, MAD <= 5 us" ;;
    fixed-auto) echo "share >= 0.95 at < 0.1x httperf's CPU" ;;
    poisson-*) echo "CV 1.00 +- 0.05; wire/intended within 1 % (httperf: of 1000/s)" ;;
  esac
}

rows_g() {
  local rate mode
  if ! wants g; then
    row "(g) SYN timing on the wire" "not measured" "not measured" "not measured" "-" "" "" "" ""
    return 0
  fi
  for rate in $syn_rates; do
    for mode in "${timing_modes[@]}"; do
      mode_row "(g) SYN gaps at $rate conn/s (${syn_conns[$rate]} conns), --timing $mode: share within 10 % of $((1000000 / rate)) us; MAD [us]; CPU [% of a core]" \
        "$mode" "$(syn_target fixed "$mode")" "g_share_$rate:3" "g_mad_$rate:1" "g_cpu_$rate:1"
    done
  done
  floor_row "(g) the floor client (floor.c, as in (i)) at 1000 conn/s: CPU [% of a core]" \
    g_cpu_1000_floor g_cpu_1000
  row "(g) the machine's wake-up stalls: 10,000 sleeps of 1 ms (floor.c sleep): wakes > 1 ms late; > 5 ms late; latest [ms]" \
    "$(median g_stall1 0) ; $(median g_stall5 0) ; $(median g_stallmax 1)" "-" "-" "-" "" "" "" ""
  for mode in "${timing_modes[@]}"; do
    mode_row "(g) Poisson SYN gaps (--period $syn_poisson, $syn_poisson_conns arrivals), --timing $mode: CV; wire rate [/s]; wire/intended" \
      "$mode" "$(syn_target poisson "$mode")" g_cv:3 g_wire:1 g_wirerel:4
  done
}

# syn_note: what the captures saw, after the table.
syn_note() {
  echo
  echo "(g) tcpdump on loopback (CPU 1): $(sum_of g_syns) SYNs captured for $(sum_of g_conns) connections," \
    "$(sum_of g_dropped) packets dropped by the kernel, $(sum_of g_retransmits) retransmitted SYNs left out."
}
