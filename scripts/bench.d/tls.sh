# scripts/bench (k): TLS (issue 17). In a new network namespace with a TLS nginx of its own
# (CPU 1; ECDSA P-256 certificate; the clients on CPU 0), side by side on that nginx:
#   h2load --h1, -c and -n 2000: every client one connection and one request, all at once; its
#       rate of new connections (full handshakes: h2load resumes none) is the ceiling H;
#   the highest rate of new connections each of rateperf --ssl and httperf --ssl holds, with
#       full handshakes (--ssl-no-reuse) and with resumption, tried at tls_steps x H from the
#       lowest up: held when every connection got its reply, with no error, at an achieved
#       connection rate of at least 97 % of the offered one (and for rateperf a lag p99 of at
#       most 1 ms);
#   each client's CPU per full handshake at tls_cpu_share x H;
#   HTTPS keep-alive: wrk's closed loop on 50 connections (W requests/s), then the request rate
#       rateperf --request-rate on 50 connections achieves when offered W.
# sourced.
# shellcheck shell=bash

tls_steps="0.5 0.7 0.85 0.95 1.05 1.2"  # offered rates, in parts of H, tried in this order
tls_cpu_share=0.5
tls_where="-"

# tls_certs DIR: a P-256 key and a self-signed certificate for bench.test in DIR.
tls_certs() {
  mkdir -p "$1"
  [[ -s $1/cert.pem ]] && return 0
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj /CN=bench.test -keyout "$1/key.pem" -out "$1/cert.pem" >/dev/null 2>&1
}

# tls_run TOOL KIND RATE BASE: TOOL (rateperf, baseline or httperf) makes RATE new TLS
# connections a second for tls_s seconds, one request each, with full handshakes (KIND full) or
# resumption (resumed), on the next port; its figures in BASE.json.
tls_run() {
  local tool=$1 kind=$2 rate=$3 base=$4 conns bin=$rateperf
  conns=$(awk -v r="$rate" -v s="$tls_s" 'BEGIN { printf "%d", r * s }')
  next_port
  if [[ $tool == httperf ]]; then
    cmd=(httperf --ssl --server 127.0.0.1 --port "$port" --uri /ok.txt --rate "$rate"
         --num-conns "$conns" --timeout 5 --hog)
    [[ $kind == full ]] && cmd+=(--ssl-no-reuse)
  else
    [[ $tool == baseline ]] && bin=$baseline
    cmd=("$bin" -q --ssl --server 127.0.0.1 --port "$port" --uri /ok.txt --rate "$rate"
         --num-conns "$conns" --timeout 5 --json "$base.json")
    [[ $kind == full ]] && cmd+=(--ssl-no-reuse)
  fi
  timeout -k 2 $((tls_s + 30)) ${in_netns[@]+"${in_netns[@]}"} taskset -c 0 "${cmd[@]}" \
    >"$base.txt" 2>"$base.err" || log "$tool exited with status $? ($base.txt)"
  [[ $tool != httperf ]] || result_from_text httperf "$base.txt" "$base.json"
  sleep 0.5
}

# tls_held TOOL RATE BASE: true when the run held RATE (see the top of this file).
tls_held() {
  local conns expression
  conns=$(awk -v r="$2" -v s="$tls_s" 'BEGIN { printf "%d", r * s }')
  expression="{/errors/total} == 0 and {/totals/replies} == $conns"
  expression+=" and {/connection_rate/per_s} >= 0.97 * $2"
  [[ $1 == httperf ]] || expression+=" and {/lag/p99_ms} <= 1"
  result_true "$3.json" "$expression"
}

# tls_h2load REP: h2load's rate of new connections, all at once; sets tls_h (empty if none).
tls_h2load() {
  local base=$out/k-h2load-r$1
  next_port
  timeout -k 2 60 ${in_netns[@]+"${in_netns[@]}"} taskset -c 0 h2load --h1 -n 2000 -c 2000 \
    -t 1 "https://127.0.0.1:$port/ok.txt" >"$base.txt" 2>&1 ||
    log "h2load exited with status $? ($base.txt)"
  tls_h=$(sed -n 's/^finished in [0-9.]*[a-z]*, \([0-9.]*\) req\/s.*/\1/p' "$base.txt" |
    awk '{ printf "%d", $1 }')
  [[ $tls_h =~ ^[0-9]+$ && $tls_h -gt 0 ]] || tls_h=''
  if grep -q '2000 succeeded' "$base.txt"; then :; else
    log "(k) h2load did not finish its 2000 requests ($base.txt)"
  fi
  record k_h2load "${tls_h:-?}"
  sleep 0.5
}

measure_k() {
  local rep=$1 tool kind f rate base best ns_pid='' nginx_pid tls_h w
  local port0 port
  local -a in_netns=()
  if netns_new; then
    ns_pid=$netns_pid
    tls_where="a new network namespace per repetition"
  else
    tls_where="this network namespace (not root)"
  fi
  tls_certs "$work/k-certs" || { log "(k) openssl could not make a certificate"; return 0; }
  nginx_tls=$work/k-certs start_nginx "$work/nginx-k"
  nginx_pid=$server_pid
  tls_h2load "$rep"
  if [[ -z $tls_h ]]; then
    log "(k) no rate from h2load: nothing to search from"
  else
    for kind in full resumed; do
      for tool in "${tools[@]}"; do
        best=0
        for f in $tls_steps; do
          rate=$(awk -v f="$f" -v h="$tls_h" 'BEGIN { printf "%d", f * h }')
          base=$out/k-$tool-$kind-$rate-r$rep
          tls_run "$tool" "$kind" "$rate" "$base"
          if tls_held "$tool" "$rate" "$base"; then best=$rate; else break; fi
        done
        record "k_${kind}_$tool" "$best"
        log "(k) rep $rep: $tool $kind held $best conn/s (h2load $tls_h)"
      done
    done
    rate=$(awk -v f="$tls_cpu_share" -v h="$tls_h" 'BEGIN { printf "%d", f * h }')
    for tool in "${tools[@]}"; do
      base=$out/k-cpu-$tool-r$rep
      tls_run "$tool" full "$rate" "$base"
      record "k_cpu_$tool" "$(result_calc "$base.json" .1f \
        "{cpu_s} / {/totals/connections} * 1e6")"
    done
  fi
  # HTTPS keep-alive: wrk's ceiling W, then rateperf --request-rate W on as many connections.
  base=$out/k-wrk-r$rep
  next_port
  timeout -k 2 $((tls_s + 15)) ${in_netns[@]+"${in_netns[@]}"} taskset -c 0 \
    wrk -t1 -c50 -d"${tls_s}s" "https://127.0.0.1:$port/ok.txt" >"$base.txt" 2>&1 ||
    log "wrk exited with status $? ($base.txt)"
  result_from_text wrk "$base.txt" "$base.json"
  w=$(result_get "$base.json" '{/request_rate/per_s:.0f}' 2>/dev/null || true)
  if [[ $w =~ ^[0-9]+$ && $w -gt 0 ]]; then
    record k_wrk "$w"
    for tool in $(rateperfs); do
      base=$out/k-ka-$tool-r$rep
      next_port
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
  server_stop "$nginx_pid"
  [[ -z $ns_pid ]] || server_stop "$ns_pid"
}

rows_k() {
  local kind
  if ! wants k; then
    row "(k) TLS" "not measured" "not measured" "not measured" "not measured" "" "" "" ""
    return 0
  fi
  for kind in full resumed; do
    row "(k) TLS: new connections/s held, $kind handshakes (${tls_s}-s runs; wrk column: h2load's all-at-once rate, full handshakes) [conn/s]" \
      "$(median "k_${kind}_rateperf" 0)" "$(median "k_${kind}_baseline" 0)" \
      "$(median "k_${kind}_httperf" 0)" "$(median k_h2load 0)" \
      "$(ratio "k_${kind}_rateperf" "k_${kind}_baseline")" \
      "$(ratio "k_${kind}_rateperf" "k_${kind}_httperf")" "$(ratio "k_${kind}_rateperf" k_h2load)" \
      ">= httperf and >= 0.95 h2load"
  done
  row "(k) TLS: CPU per full handshake at $tls_cpu_share x h2load's rate [us]" \
    "$(median k_cpu_rateperf 1)" "$(median k_cpu_baseline 1)" "$(median k_cpu_httperf 1)" "-" \
    "$(ratio k_cpu_rateperf k_cpu_baseline)" "$(ratio k_cpu_rateperf k_cpu_httperf)" "-" \
    "<= httperf"
  row "(k) HTTPS keep-alive: requests/s achieved by --request-rate W on 50 connections; wrk: W, its closed loop on 50" \
    "$(median k_ka_rateperf 0)" "$(median k_ka_baseline 0)" "-" "$(median k_wrk 0)" \
    "$(ratio k_ka_rateperf k_ka_baseline)" "-" "$(ratio k_ka_rateperf k_wrk)" ">= 0.95 wrk"
}
