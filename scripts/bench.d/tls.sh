# scripts/bench (k): TLS (issue 17). In a new network namespace with three TLS nginx of its own
# (all on CPU 1, the clients on CPU 0): one that resumes sessions (tickets, nginx's default) and
# one that resumes none (no session cache, no tickets), so that every handshake on it is a full
# one, both with an ECDSA P-256 certificate; and a third that resumes none with an RSA-2048
# certificate. On the first two the clients' core caps every client (h2load's closed loop uses
# all of it, nginx some 60 to 80 % of its own); on the RSA one the server's signature (some
# 0.65 ms a handshake here) makes nginx the bottleneck, so that its H is the server's ceiling
# and the open loop is asked to keep the server's pace. For each kind of handshake, full,
# resumed and rsa (full):
#   h2load --h1 -c 50, one request per connection (Connection: close; h2load opens the next
#       connection as one closes, and resumes its client's last session where the server lets
#       it): its rate of new connections, closed loop, is the ceiling H of that kind, and its
#       CPU per connection is printed next to the clients', and its share of its core at H on a
#       row of its own (near 100 %: the client capped H);
#   the highest rate of new connections each of rateperf --ssl and httperf --ssl holds, both
#       with --ssl-no-reuse on the full and rsa kinds: tried at tls_steps x H from the lowest
#       up, the tools taking turns at each step, a tool leaving the search at its first miss; then
#       tls_bisect halvings between its last held and first missed rate. Held, the same rule
#       for both: every connection got its reply, no error, and an achieved connection rate of
#       at least 97 % of the offered one. rateperf's lag p99 at its held rate is printed on its
#       own row (it is no part of the rule: httperf has no lag to hold it to);
#   each client's CPU per full handshake at tls_cpu_share x the full kind's H;
#   tls_pairs pairs in the same spell of the machine: h2load, then rateperf at tls_pair_share x
#       the H h2load made just before, then h2load again; each pair counts as held by the rule
#       above, and its ratio is rateperf's achieved rate over the mean of the two H around it
#       (the searches' steps, minutes apart from their H, meet other spells);
#   tls_pairs pairs for the clients' ceilings: h2load, then rateperf's closed loop on 50
#       (--concurrency 50) with h2load's connection count, then h2load again;
# then HTTPS keep-alive on the resuming nginx: wrk's closed loop on 50 connections (W
# requests/s), then the request rate rateperf --request-rate on 50 connections achieves when
# offered W.
# sourced.
# shellcheck shell=bash

tls_steps="0.5 0.7 0.85 0.95 1.05 1.2 1.4"  # offered rates, in parts of H, tried in this order
tls_bisect=2
tls_cpu_share=0.5
tls_h2load_n=6000
tls_pairs=3
tls_pair_share=0.95
tls_where="-"
tls_kinds="full resumed rsa"  # the kinds of handshake, in the order measured and shown

# tls_certs DIR [rsa]: a P-256 key (an RSA-2048 one with rsa) and a self-signed certificate for
# bench.test in DIR.
tls_certs() {
  local -a key=(-newkey ec -pkeyopt ec_paramgen_curve:P-256)
  [[ ${2:-} == rsa ]] && key=(-newkey rsa:2048)
  mkdir -p "$1"
  [[ -s $1/cert.pem ]] && return 0
  openssl req -x509 "${key[@]}" -nodes -days 2 \
    -subj /CN=bench.test -keyout "$1/key.pem" -out "$1/cert.pem" >/dev/null 2>&1
}

# tls_kind KIND: the rows' name of KIND.
tls_kind() {
  case $1 in
    full) echo "full handshakes" ;;
    resumed) echo "resumed handshakes" ;;
    rsa) echo "full handshakes, RSA-2048 certificate" ;;
  esac
}

# tls_port KIND: the next port of the nginx for KIND (full: the one that resumes nothing).
tls_port() { port0=${tls_port0[$1]}; next_port; }

# tls_conns RATE: the connections of a tls_s-second run at RATE.
tls_conns() { awk -v r="$1" -v s="$tls_s" 'BEGIN { printf "%d", r * s }'; }

# tls_run TOOL KIND RATE BASE: TOOL (rateperf, baseline or httperf) makes RATE new TLS
# connections a second for tls_s seconds, one request each, to the nginx of KIND; on the full
# and rsa kinds with --ssl-no-reuse (nothing to resume anyway; the client does not try); its
# figures in BASE.json. RATE "closed": rateperf's closed loop on 50 (--concurrency 50), h2load's
# tls_h2load_n connections.
tls_run() {
  local tool=$1 kind=$2 rate=$3 base=$4 conns bin=$rateperf
  local -a pace=(--rate "$rate")
  if [[ $rate == closed ]]; then
    conns=$tls_h2load_n pace=(--concurrency 50)
  else
    conns=$(tls_conns "$rate")
  fi
  tls_port "$kind"
  if [[ $tool == httperf ]]; then
    cmd=(httperf --ssl --server 127.0.0.1 --port "$port" --uri /ok.txt --rate "$rate"
         --num-conns "$conns" --timeout 5 --hog)
  else
    [[ $tool == baseline ]] && bin=$baseline
    cmd=("$bin" -q --ssl --server 127.0.0.1 --port "$port" --uri /ok.txt "${pace[@]}"
         --num-conns "$conns" --timeout 5 --json "$base.json")
  fi
  [[ $kind == resumed ]] || cmd+=(--ssl-no-reuse)
  timeout -k 2 $((tls_s + 30)) ${in_netns[@]+"${in_netns[@]}"} taskset -c 0 "${cmd[@]}" \
    >"$base.txt" 2>"$base.err" || log "$tool exited with status $? ($base.txt)"
  [[ $tool != httperf ]] || result_from_text httperf "$base.txt" "$base.json"
  sleep 0.5
}

# tls_held RATE BASE: true when the run in BASE held RATE (the rule at the top of this file).
tls_held() {
  result_true "$2.json" "{/errors/total} == 0 and {/totals/replies} == $(tls_conns "$1") and
    {/connection_rate/per_s} >= 0.97 * $1"
}

# tls_h2load KIND REP [norecord]: h2load's closed loop of one-request connections on 50 at a
# time to the nginx of KIND; sets tls_h (its connections a second, empty if none) and, unless
# told not to, records it with its CPU per connection and its share of its core.
tls_h2load() {
  local kind=$1 base=$out/k-h2load-$1-r$2 cpu share TIMEFORMAT='%U %S %R'
  tls_port "$kind"
  { time timeout -k 2 60 ${in_netns[@]+"${in_netns[@]}"} taskset -c 0 h2load --h1 \
      -n "$tls_h2load_n" -c 50 -t 1 -H 'Connection: close' "https://127.0.0.1:$port/ok.txt" \
      >"$base.txt" 2>&1 || log "h2load exited with status $? ($base.txt)"; } 2>"$base.time"
  tls_h=$(sed -n 's/^finished in [0-9.]*[a-z]*, \([0-9.]*\) req\/s.*/\1/p' "$base.txt" |
    awk '{ printf "%d", $1 }')
  [[ $tls_h =~ ^[0-9]+$ && $tls_h -gt 0 ]] || tls_h=''
  if ! grep -q "$tls_h2load_n succeeded" "$base.txt"; then
    log "(k) h2load did not finish its $tls_h2load_n requests ($base.txt)"
    tls_h=''
  fi
  cpu=$(awk -v n="$tls_h2load_n" 'NF == 3 { printf "%.1f", ($1 + $2) / n * 1e6 }' "$base.time")
  share=$(awk 'NF == 3 && $3 > 0 { printf "%.0f", ($1 + $2) / $3 * 100 }' "$base.time")
  if [[ ${3:-} != norecord ]]; then
    record "k_h2load_$kind" "${tls_h:-?}"
    record "k_h2cpu_$kind" "${cpu:-?}"
    record "k_h2share_$kind" "${share:-?}"
  fi
  sleep 0.5
}

# tls_search KIND REP: the highest rate of new connections of KIND each tool holds (the rule
# at the top of this file), from tls_h; records it, and rateperf's lag p99 there.
tls_search() {
  local kind=$1 rep=$2 f rate tool lo i
  local -A best=() miss=()
  local -a searching=("${tools[@]}") still
  for f in $tls_steps; do
    rate=$(awk -v f="$f" -v h="$tls_h" 'BEGIN { printf "%d", f * h }')
    still=()
    for tool in "${searching[@]}"; do
      tls_run "$tool" "$kind" "$rate" "$out/k-$tool-$kind-$rate-r$rep"
      if tls_held "$rate" "$out/k-$tool-$kind-$rate-r$rep"; then
        best[$tool]=$rate
        still+=("$tool")
      else
        miss[$tool]=$rate
      fi
    done
    ((${#still[@]} > 0)) || break
    searching=("${still[@]}")
  done
  for ((i = 0; i < tls_bisect; i++)); do
    for tool in "${tools[@]}"; do
      [[ -n ${miss[$tool]:-} ]] || continue
      lo=${best[$tool]:-0}
      rate=$(((lo + miss[$tool]) / 2))
      ((rate > lo)) || continue
      tls_run "$tool" "$kind" "$rate" "$out/k-$tool-$kind-$rate-r$rep"
      if tls_held "$rate" "$out/k-$tool-$kind-$rate-r$rep"; then
        best[$tool]=$rate
      else
        miss[$tool]=$rate
      fi
    done
  done
  for tool in "${tools[@]}"; do
    record "k_${kind}_$tool" "${best[$tool]:-0}"
    log "(k) rep $rep: $tool $kind held ${best[$tool]:-0} conn/s (h2load $tls_h)"
    if [[ $tool != httperf && -n ${best[$tool]:-} ]]; then
      record "k_lag_${kind}_$tool" \
        "$(result_get "$out/k-$tool-$kind-${best[$tool]}-r$rep.json" '{/lag/p99_ms:.3f}')"
    fi
  done
}

# tls_pair KIND REP MODE: tls_pairs times, h2load, then rateperf, then h2load again (the top of
# this file). MODE pair: rateperf at tls_pair_share x the H h2load made just before, for tls_s
# seconds; records, per pair, held or not (k_pair_held_KIND, 1 or 0) and rateperf's achieved
# rate over the mean of the H before and after it (k_pair_ratio_KIND). MODE closed: rateperf's
# closed loop on 50 connections at a time (--concurrency 50), h2load's count of connections:
# the two clients' ceilings in one spell, which the pairs at 0.95 H only approach (they miss
# when H moves between the runs, or when the handshakes queued behind a client near its
# ceiling end after the run's last arrival); records its rate over the mean of the two H
# (k_closed_ratio_KIND).
tls_pair() {
  local kind=$1 rep=$2 mode=$3 i h_before h_after rate=closed base what
  for ((i = 1; i <= tls_pairs; i++)); do
    tls_h2load "$kind" "$rep-$mode$i-before" norecord
    h_before=$tls_h
    [[ -n $h_before ]] || continue
    [[ $mode == closed ]] ||
      rate=$(awk -v f="$tls_pair_share" -v h="$h_before" 'BEGIN { printf "%d", f * h }')
    base=$out/k-$mode-rateperf-$kind-$rate-r$rep-$i
    tls_run rateperf "$kind" "$rate" "$base"
    tls_h2load "$kind" "$rep-$mode$i-after" norecord
    h_after=$tls_h
    [[ -n $h_after ]] || continue
    if [[ $mode == pair ]]; then
      if tls_held "$rate" "$base"; then record "k_pair_held_$kind" 1; else record "k_pair_held_$kind" 0; fi
    fi
    record "k_${mode}_ratio_$kind" "$(result_calc "$base.json" .3f \
      "{/connection_rate/per_s} / (($h_before + $h_after) / 2)")"
    what="offered $rate"
    [[ $mode == closed ]] && what="closed loop on 50"
    log "(k) rep $rep $mode $i: h2load $h_before, rateperf $what: $(result_get \
      "$base.json" '{/connection_rate/per_s:.0f} conn/s, errors {/errors/total}'), h2load $h_after"
  done
}

measure_k() {
  local rep=$1 kind rate base ns_pid='' tls_h h w tool noresume certs
  local port0 port
  local -a in_netns=() nginx_pids=()
  local -A tls_port0=()
  if netns_new; then
    ns_pid=$netns_pid
    tls_where="a new network namespace per repetition"
  else
    tls_where="this network namespace (not root)"
  fi
  tls_certs "$work/k-certs" || { log "(k) openssl could not make a certificate"; return 0; }
  tls_certs "$work/k-certs-rsa" rsa ||
    { log "(k) openssl could not make an RSA certificate"; return 0; }
  for kind in $tls_kinds; do
    noresume=1 certs=$work/k-certs
    [[ $kind == resumed ]] && noresume=0
    [[ $kind == rsa ]] && certs=$work/k-certs-rsa
    nginx_tls=$certs nginx_tls_noresume=$noresume start_nginx "$work/nginx-k-$kind"
    nginx_pids+=("$server_pid")
    tls_port0[$kind]=$port0
  done
  for kind in $tls_kinds; do
    tls_h2load "$kind" "$rep"
    if [[ -z $tls_h ]]; then
      log "(k) no $kind rate from h2load: nothing to search from"
      continue
    fi
    tls_search "$kind" "$rep"
    # The pairs' h2load runs leave tls_h alone: the CPU row below is at the search's H.
    h=$tls_h
    tls_pair "$kind" "$rep" pair
    tls_pair "$kind" "$rep" closed
    tls_h=$h
    if [[ $kind == full ]]; then
      rate=$(awk -v f="$tls_cpu_share" -v h="$tls_h" 'BEGIN { printf "%d", f * h }')
      for tool in "${tools[@]}"; do
        base=$out/k-cpu-$tool-r$rep
        tls_run "$tool" full "$rate" "$base"
        record "k_cpu_$tool" "$(result_calc "$base.json" .1f \
          "{cpu_s} / {/totals/connections} * 1e6")"
      done
    fi
  done
  # HTTPS keep-alive: wrk's ceiling W, then rateperf --request-rate W on as many connections.
  base=$out/k-wrk-r$rep
  tls_port resumed
  timeout -k 2 $((tls_s + 15)) ${in_netns[@]+"${in_netns[@]}"} taskset -c 0 \
    wrk -t1 -c50 -d"${tls_s}s" "https://127.0.0.1:$port/ok.txt" >"$base.txt" 2>&1 ||
    log "wrk exited with status $? ($base.txt)"
  result_from_text wrk "$base.txt" "$base.json"
  w=$(result_get "$base.json" '{/request_rate/per_s:.0f}' 2>/dev/null || true)
  if [[ $w =~ ^[0-9]+$ && $w -gt 0 ]]; then
    record k_wrk "$w"
    for tool in $(rateperfs); do
      base=$out/k-ka-$tool-r$rep
      tls_port resumed
      local bin=$rateperf
      [[ $tool == baseline ]] && bin=$baseline
      timeout -k 2 $((tls_s + 30)) ${in_netns[@]+"${in_netns[@]}"} taskset -c 0 "$bin" -q --ssl \
        --server 127.0.0.1 --port "$port" --uri /ok.txt --request-rate "$w" --connections 50 \
        --duration "$tls_s" --timeout 5 --json "$base.json" >"$base.txt" 2>"$base.err" ||
        log "$tool exited with status $? ($base.txt)"
      record "k_ka_$tool" "$(result_get "$base.json" '{/request_rate/per_s:.0f}')"
      sleep 0.5
    done
  fi
  for base in "${nginx_pids[@]}"; do server_stop "$base"; done
  [[ -z $ns_pid ]] || server_stop "$ns_pid"
}

rows_k() {
  local kind
  if ! wants k; then
    row "(k) TLS" "not measured" "not measured" "not measured" "not measured" "" "" "" ""
    return 0
  fi
  # The ratios are the repetitions' own (median and spread): each repetition's H and searches
  # meet one spell of the machine, the next repetition's another.
  for kind in $tls_kinds; do
    row "(k) TLS: new connections/s held, $(tls_kind "$kind") (${tls_s}-s runs, one request each, $tls_where; wrk column: h2load's closed loop on 50; ratios: each repetition's own) [conn/s]" \
      "$(median "k_${kind}_rateperf" 0)" "$(median "k_${kind}_baseline" 0)" \
      "$(median "k_${kind}_httperf" 0)" "$(median "k_h2load_$kind" 0)" \
      "$(paired "k_${kind}_rateperf" "k_${kind}_baseline")" \
      "$(paired "k_${kind}_rateperf" "k_${kind}_httperf")" \
      "$(paired "k_${kind}_rateperf" "k_h2load_$kind")" ">= httperf and >= 0.95 h2load"
  done
  for kind in $tls_kinds; do
    row "(k) TLS: rateperf's lag p99 at its held rate, $(tls_kind "$kind") [ms]" \
      "$(median "k_lag_${kind}_rateperf" 3)" "$(median "k_lag_${kind}_baseline" 3)" "-" "-" \
      "$(ratio "k_lag_${kind}_rateperf" "k_lag_${kind}_baseline")" "-" "-" ""
  done
  for kind in $tls_kinds; do
    row "(k) TLS: rateperf at $tls_pair_share x the rate h2load made right before it, $(tls_kind "$kind") ($tls_pairs pairs a repetition, h2load again after each): pairs held ; rateperf's achieved rate / the mean of the two h2load rates around it" \
      "$(tally "k_pair_held_$kind") ; $(median "k_pair_ratio_$kind" 2)" "-" "-" "-" "" "-" "-" \
      ">= 0.95 h2load"
  done
  for kind in $tls_kinds; do
    row "(k) TLS: the clients' ceilings in one spell, $(tls_kind "$kind"): rateperf --concurrency 50, $tls_h2load_n connections, between two h2load runs ($tls_pairs a repetition): its rate / the mean of the two h2load rates around it" \
      "$(median "k_closed_ratio_$kind" 2)" "-" "-" "-" "" "-" "-" ">= 0.95 h2load"
  done
  for kind in $tls_kinds; do
    row "(k) TLS: h2load's share of its core at its ceiling H, $(tls_kind "$kind") (near 100 %: the client, not nginx, capped H) [%]" \
      "-" "-" "-" "$(median "k_h2share_$kind" 0)" "" "-" "-" ""
  done
  row "(k) TLS: CPU per full handshake at $tls_cpu_share x h2load's full rate (wrk column: h2load's, at its ceiling) [us]" \
    "$(median k_cpu_rateperf 1)" "$(median k_cpu_baseline 1)" "$(median k_cpu_httperf 1)" \
    "$(median k_h2cpu_full 1)" "$(ratio k_cpu_rateperf k_cpu_baseline)" \
    "$(ratio k_cpu_rateperf k_cpu_httperf)" "$(ratio k_cpu_rateperf k_h2cpu_full)" "<= httperf"
  row "(k) HTTPS keep-alive: requests/s achieved by --request-rate W on 50 connections; wrk: W, its closed loop on 50" \
    "$(median k_ka_rateperf 0)" "$(median k_ka_baseline 0)" "-" "$(median k_wrk 0)" \
    "$(ratio k_ka_rateperf k_ka_baseline)" "-" "$(ratio k_ka_rateperf k_wrk)" ">= 0.95 wrk"
}
