# scripts/bench (n): the closed loop (issue 20) side by side with ab and siege themselves, the
# same -n/-c runs against the same servers: our nginx (CPU 1), a CherryPy of seed 000's
# (examples/seed000/app.py, 10 threads, CPU 1) and seed 001's Apache with its bare WSGI app
# (mod_wsgi daemon mode, 4 x 15, CPU 1); requests per second and mean time per request
# against ab's, the transaction rate against siege's, and each one's client CPU per request
# (user + system, from the shell's `time`); sourced. Every report is read by one parser of ab's
# (siege's) output (scripts/lib/tool_reports.sh).
# shellcheck shell=bash

# cl_time BASE CMD...: runs CMD on CPU 0 (its report in BASE.txt) and writes the client's CPU
# seconds, user + system, to BASE.cpu.
cl_time() {
  local base=$1 TIMEFORMAT='%U %S'
  shift
  { time timeout -k 5 300 taskset -c 0 "$@" >"$base.txt" 2>&1; } 2>"$base.time" || true
  awk '{ print $1 + $2 }' "$base.time" >"$base.cpu"
}

# cl_ab_pair NAME URL N C [AB_FLAG]: ab -n N -c C [AB_FLAG] URL and rateperf's closed loop of the
# same shape (-k: --requests, persistent connections; otherwise --num-conns, HTTP/1.0 as ab),
# in alternating order; records n_NAME_{rps,tpr,cpu_us,complete}_{ab,rateperf}.
cl_ab_pair() {
  local name=$1 url=$2 n=$3 c=$4 flag=${5:-} rep=$6 tool base rps tpr complete
  local shape=(--num-conns "$n" --http-version 1.0)
  [[ $flag == -k ]] && shape=(--requests "$n")
  order ab rateperf
  for tool in "${ordered[@]}"; do
    base=$out/n-$name-$tool-r$rep
    if [[ $tool == ab ]]; then
      cl_time "$base" ab ${flag:+"$flag"} -n "$n" -c "$c" "$url"
    else
      cl_time "$base" "$rateperf" -q --concurrency "$c" "${shape[@]}" --timeout 10 --format ab "$url"
    fi
    read -r complete _ _ _ _ _ rps tpr _ _ < <(ab_fields "$base.txt")
    record "n_${name}_rps_$tool" "$rps"
    record "n_${name}_tpr_$tool" "$tpr"
    record "n_${name}_complete_$tool" "$complete"
    record "n_${name}_cpu_us_$tool" "$(awk -v s="$(cat "$base.cpu")" -v n="$n" 'BEGIN { printf "%.2f", s / n * 1e6 }')"
    sleep 1
  done
}

# cl_siege_pair NAME URL C R: siege -c C -r R -b (connection = close, no JSON) and rateperf
# --concurrency C --num-conns C x R --format siege, sending siege's "Connection: close" too;
# records n_NAME_siege_{rate,cpu_us,tx}_{siege,rateperf}. siege's rate is its transactions over
# its elapsed time, which it keeps in hundredths of a second: a run of some seconds keeps that
# rounding within 1 %.
cl_siege_pair() {
  local name=${1}_siege url=$2 c=$3 r=$4 rep=$5 n=$(($3 * $4)) tool base tx rate
  printf 'json_output = false\nconnection = close\nprotocol = HTTP/1.1\nparser = false\n' >"$work/siegerc"
  order siege rateperf
  for tool in "${ordered[@]}"; do
    base=$out/n-$name-$tool-r$rep
    if [[ $tool == siege ]]; then
      cl_time "$base" siege -R "$work/siegerc" -c "$c" -r "$r" -b "$url"
    else
      cl_time "$base" "$rateperf" -q --concurrency "$c" --num-conns "$n" --timeout 10 \
        --add-header 'Connection: close' --format siege "$url"
    fi
    read -r tx _ _ _ _ rate _ < <(siege_fields "$base.txt")
    record "n_${name}_rate_$tool" "$rate"
    record "n_${name}_tx_$tool" "$tx"
    record "n_${name}_cpu_us_$tool" "$(awk -v s="$(cat "$base.cpu")" -v n="$n" 'BEGIN { printf "%.2f", s / n * 1e6 }')"
    sleep 1
  done
}

# cl_cherrypy_start: seed 000's CherryPy app with 10 threads on CPU 1 and a free port (sets
# cl_port, empty when it cannot run: python3-cherrypy3 missing).
cl_cherrypy_start() {
  cl_port=
  if [[ -n $(pkg_missing python3-cherrypy3) ]]; then
    log "(n) no python3-cherrypy3: CherryPy's rows are left out"
    return
  fi
  cl_port=$(ports_free)
  mkdir -p "$work/cherrypy"
  server_start "$work/cherrypy/server.log" taskset -c 1 /usr/bin/python3 \
    "$repo/examples/seed000/app.py" "$cl_port" 10 "$work/cherrypy" pool10
  server_wait_http --seconds 20 "$cl_port" / || { log "(n) CherryPy did not start"; cl_port=; }
}

# cl_apache_start: seed 001's Apache (event MPM, its own minimal configuration) on CPU 1 and a
# free port, with the seed's bare WSGI app in mod_wsgi daemon mode (4 x 15) at /bareapp (sets
# cl_port, empty when it cannot run: apache2 or libapache2-mod-wsgi-py3 missing).
cl_apache_start() {
  local dir=$work/apache
  cl_port=
  if [[ -n $(pkg_missing apache2 libapache2-mod-wsgi-py3) ]]; then
    log "(n) no apache2 or libapache2-mod-wsgi-py3: Apache's rows are left out"
    return
  fi
  # shellcheck source=examples/lib/apache.sh
  . "$repo/examples/lib/apache.sh"
  cl_port=$(ports_free)
  mkdir -p "$dir/app" "$dir/www"
  chmod 755 "$work"
  cp "$repo/examples/seed001/hello.wsgi" "$dir/app/"
  {
    seed_apache_conf "$dir/server" "$cl_port"
    seed_wsgi_conf "$dir/server" "$dir/app" /bareapp "$dir/app/hello.wsgi"
  } >"$dir/apache.conf"
  server_start "$dir/apache.log" taskset -c 1 apache2 -f "$dir/apache.conf" -DFOREGROUND
  server_wait_http --seconds 30 "$cl_port" /bareapp ||
    { log "(n) Apache did not start ($dir/server/error.log)"; server_stop "$server_pid"; cl_port=; }
}

measure_n() {
  local rep=$1 n=$((quick ? 10000 : 20000))
  next_port
  cl_ab_pair nginx "http://127.0.0.1:$port/ok.txt" "$n" 10 "" "$rep"
  next_port
  cl_ab_pair nginx_k "http://127.0.0.1:$port/ok.txt" "$n" 10 -k "$rep"
  next_port
  cl_siege_pair nginx "http://127.0.0.1:$port/ok.txt" 10 $((n / 10)) "$rep"
  cl_cherrypy_start
  if [[ -n $cl_port ]]; then
    # The seed's test 2: ab -c 10 -n 1000 against 10 threads (here 5000); siege's 10 users.
    cl_ab_pair cherrypy "http://127.0.0.1:$cl_port/" 5000 10 "" "$rep"
    cl_siege_pair cherrypy "http://127.0.0.1:$cl_port/" 10 500 "$rep"
    server_stop "$server_pid"
  fi
  cl_apache_start
  if [[ -n $cl_port ]]; then
    # Seed 001's runs: ab -n1001 -c15 (here 10000) and siege's 20 users, on the bare WSGI app.
    cl_ab_pair apache "http://127.0.0.1:$cl_port/bareapp" 10000 15 "" "$rep"
    cl_siege_pair apache "http://127.0.0.1:$cl_port/bareapp" 20 500 "$rep"
    server_stop "$server_pid"
  fi
}

# cl_ab_rows NAME LABEL: the rows of an ab pair.
cl_ab_rows() {
  local name=$1 label=$2
  row "(n) $label: requests per second (rateperf, ab)" "$(median "n_${name}_rps_rateperf" 0)" "" \
    "$(median "n_${name}_rps_ab" 0)" "" "" "$(ratio "n_${name}_rps_rateperf" "n_${name}_rps_ab")" "" \
    "0.95 to 1.05x ab's; complete requests $(median "n_${name}_complete_rateperf" 0) / $(median "n_${name}_complete_ab" 0)"
  row "(n) $label: time per request, mean [ms] (rateperf, ab)" "$(median "n_${name}_tpr_rateperf" 3)" "" \
    "$(median "n_${name}_tpr_ab" 3)" "" "" "$(ratio "n_${name}_tpr_rateperf" "n_${name}_tpr_ab")" "" "0.95 to 1.05x ab's"
  row "(n) $label: client CPU per request [us] (rateperf, ab)" "$(median "n_${name}_cpu_us_rateperf" 2)" "" \
    "$(median "n_${name}_cpu_us_ab" 2)" "" "" "$(ratio "n_${name}_cpu_us_rateperf" "n_${name}_cpu_us_ab")" "" "<= 1.00x ab's"
}

# cl_siege_rows NAME LABEL: the rows of a siege pair.
cl_siege_rows() {
  local name=${1}_siege label=$2
  row "(n) $label: transaction rate [trans/s] (rateperf, siege)" "$(median "n_${name}_rate_rateperf" 0)" "" \
    "$(median "n_${name}_rate_siege" 0)" "" "" "$(ratio "n_${name}_rate_rateperf" "n_${name}_rate_siege")" "" \
    "0.95 to 1.05x siege's; transactions $(median "n_${name}_tx_rateperf" 0) / $(median "n_${name}_tx_siege" 0)"
  row "(n) $label: client CPU per transaction [us] (rateperf, siege)" "$(median "n_${name}_cpu_us_rateperf" 2)" "" \
    "$(median "n_${name}_cpu_us_siege" 2)" "" "" "$(ratio "n_${name}_cpu_us_rateperf" "n_${name}_cpu_us_siege")" "" "<= 1.00x siege's"
}

rows_n() {
  wants n || return 0
  cl_ab_rows nginx "nginx, ab -n N -c 10 vs --concurrency 10 --num-conns N --http-version 1.0"
  cl_ab_rows nginx_k "nginx, ab -k -n N -c 10 vs --concurrency 10 --requests N"
  cl_siege_rows nginx "nginx, siege -c 10 -r N/10 -b vs --concurrency 10 --num-conns N"
  cl_ab_rows cherrypy "CherryPy 10 threads, ab -n 5000 -c 10 vs --concurrency 10 --num-conns 5000"
  cl_siege_rows cherrypy "CherryPy 10 threads, siege -c 10 -r 500 -b vs --concurrency 10 --num-conns 5000"
  cl_ab_rows apache "Apache mod_wsgi 4 x 15, ab -n 10000 -c 15 vs --concurrency 15 --num-conns 10000"
  cl_siege_rows apache "Apache mod_wsgi 4 x 15, siege -c 20 -r 500 -b vs --concurrency 20 --num-conns 10000"
}
