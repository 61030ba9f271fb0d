# Shared by the seed reproductions in examples/seed*/run (sourced, not run): the client, Debian
# packages, free ports, servers started and stopped by PID, rateperf runs kept with their CSV,
# capacity searches, and the seed-002 table.
#
# A script sources it, then calls seed_init NAME "$@" (which parses the common arguments):
#   --quick        short runs (the default): a few minutes per seed
#   --full         the seed's own run lengths
#   --only LIST    run only these set-ups (names as the script's --help lists them), e.g. "paste"
#   --out DIR      keep every report, CSV and server log in DIR (default build/seeds/NAME-DATE)
#   --build-dir D  meson build directory for rateperf (default build)
# Environment: RATEPERF=/path/to/rateperf uses that binary instead of building one.
# shellcheck shell=bash

seed_name=
seed_quick=1
seed_out=
seed_only=
seed_pids=()
rateperf=
seed_timeout=5  # rateperf --timeout of seed_run, in seconds
seed_netns="the machine's network namespace"  # where the runs are (seed_isolate)

seed_log() { echo "$seed_name: $*" >&2; }
# seed_wants SETUP: true when --only was not given or names SETUP.
seed_wants() { [[ -z $seed_only || " $seed_only " == *" $1 "* ]]; }
seed_die() { echo "$seed_name: $*" >&2; exit 1; }

# seed_init NAME ARGS...: parses the common arguments (an unknown one is a usage error, status
# 2), builds rateperf unless RATEPERF names it, makes the output directory, and arranges for
# every server started with seed_start to be stopped by its PID on exit.
seed_init() {
  seed_name=$1
  shift
  seed_args=("$@")
  local build_dir=build
  while (($#)); do
    case $1 in
      --quick) seed_quick=1 ;;
      --full) seed_quick=0 ;;
      --out) seed_out=${2:?--out needs a directory}; shift ;;
      --only) seed_only=${2:?--only needs a list of set-ups}; shift ;;
      --build-dir) build_dir=${2:?--build-dir needs a directory}; shift ;;
      -h|--help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
      *) echo "$seed_name: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
  done
  seed_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  if [[ -n ${RATEPERF:-} ]]; then
    rateperf=$RATEPERF
  else
    (cd "$seed_root" && scripts/setup "$build_dir" >&2 && ninja -C "$build_dir" rateperf >&2)
    rateperf=$seed_root/$build_dir/rateperf
  fi
  command -v "$rateperf" >/dev/null || seed_die "no rateperf at '$rateperf'"
  [[ -z $seed_out ]] && seed_out=$seed_root/build/seeds/$seed_name-$(date +%Y%m%d-%H%M%S)
  mkdir -p "$seed_out"
  seed_out=$(cd "$seed_out" && pwd)
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  trap seed_stop_all EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# seed_packages PKG...: installs the Debian packages that are missing (as root, without letting
# their maintainer scripts start services on the machine); otherwise names them and exits 77,
# the status a test reads as "skipped".
seed_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  if [[ $(id -u) -ne 0 ]]; then
    seed_log "skipped: missing packages (as root: apt-get install -y ${missing[*]})"
    exit 77
  fi
  seed_log "installing ${missing[*]}"
  # A policy-rc.d that denies keeps apache2 or lighttpd from starting on port 80; one that the
  # machine already has is left alone.
  local policy=/usr/sbin/policy-rc.d own_policy=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && own_policy=1
  fi
  local status=0
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >"$seed_out/apt.log" 2>&1 ||
    { apt-get update -qq >>"$seed_out/apt.log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >>"$seed_out/apt.log" 2>&1; } ||
    status=$?
  ((own_policy)) && rm -f "$policy"
  if ((status)); then
    seed_log "skipped: cannot install ${missing[*]} (see $seed_out/apt.log)"
    exit 77
  fi
}

# seed_isolate: as root, runs the rest of the script in a network namespace of its own (the
# script starts again there, with its arguments, the same --out and the rateperf already
# built), with loopback up and the whole local port range, 1024-65535. A seed's runs then
# share no TIME_WAIT or orphaned sockets with earlier runs or other programs, and the seeds'
# 40,000-connection runs (--full) at a few thousand req/s do not exhaust the default 28,232
# local ports, which slows every connect() down to a crawl. Call it after seed_packages, which
# needs the network. Not root (or no unshare): the machine's namespace, as it is.
seed_isolate() {
  if [[ -n ${RATEPERF_SEED_NETNS:-} ]]; then
    ip link set lo up && sysctl -q -w net.ipv4.ip_local_port_range="1024 65535" ||
      seed_die "cannot set up the network namespace"
    seed_netns="own network namespace, local ports 1024-65535"
    return 0
  fi
  if [[ $(id -u) -eq 0 ]] && command -v unshare >/dev/null && command -v ip >/dev/null; then
    exec unshare --net -- env RATEPERF_SEED_NETNS=1 RATEPERF="$rateperf" \
      bash "$0" ${seed_args[@]+"${seed_args[@]}"} --out "$seed_out"
  fi
}

# seed_free_port: a TCP port on 127.0.0.1 that nothing listens on now.
seed_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# seed_start NAME CMD...: starts a server in the background (output in $seed_out/NAME.log),
# remembered by its PID for seed_stop_all; sets seed_pid.
seed_start() {
  local name=$1
  shift
  "$@" >"$seed_out/$name.log" 2>&1 &
  seed_pid=$!
  seed_pids+=("$seed_pid")
}

# seed_wait_http PORT URI [SECONDS [STATUS]]: waits until 127.0.0.1:PORT answers GET URI with a
# status line (with STATUS, e.g. 200, that status; without, any), at most SECONDS (default 20);
# fails otherwise.
seed_wait_http() {
  local port=$1 uri=$2 limit=${3:-20} status=${4:-} i
  for ((i = 0; i < limit * 10; i++)); do
    if python3 - "$port" "$uri" "$status" <<'EOF' 2>/dev/null; then return 0; fi
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
s.sendall(("GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" % sys.argv[2]).encode())
line = s.recv(64)
ok = line.startswith(b"HTTP/") and (not sys.argv[3] or line.split(b" ")[1:2] == [sys.argv[3].encode()])
sys.exit(0 if ok else 1)
EOF
    sleep 0.1
  done
  return 1
}

# seed_stop PID: stops one server (TERM, then KILL after 5 s) and reaps it.
seed_stop() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

seed_stop_all() {
  local pid
  for pid in "${seed_pids[@]}"; do seed_stop "$pid"; done
  seed_pids=()
}

# seed_run LABEL PORT URI RATE CONNS [RATEPERF OPTIONS...]: one rateperf run; the report goes to
# $seed_out/LABEL.txt, and a row (with LABEL in no column: the file name says it) is appended
# to $seed_out/runs.csv. Sets seed_report to the report's path.
seed_run() {
  local label=$1 port=$2 uri=$3 rate=$4 conns=$5
  shift 5
  seed_report=$seed_out/$label.txt
  seed_log "$label: $rate req/s, $conns connections"
  # A bound on a run that should end by itself: TERM, after which rateperf gives its open
  # connections their timeout and reports; KILL only if it did not.
  timeout -k "$((seed_timeout + 15))" "$(awk -v n="$conns" -v r="$rate" 'BEGIN { printf "%d", n / r + 60 }')" \
    "$rateperf" --server 127.0.0.1 --port "$port" --uri "$uri" --rate "$rate" \
    --num-conns "$conns" --timeout "$seed_timeout" --quiet --csv "$seed_out/runs.csv" "$@" \
    >"$seed_report" 2>"$seed_out/$label.err" || seed_log "$label: rateperf exited with status $?"
  echo "$label" >>"$seed_out/runs.labels"
  sleep 0.5
}

# seed_check_body PORT URI BYTES: one GET of URI, true when it answers 200 with BYTES bytes of
# body (the server serves the file or the app, not an error page of some other length).
seed_check_body() {
  python3 - "$1" "$2" "$3" <<'EOF'
import sys, urllib.request
with urllib.request.urlopen("http://127.0.0.1:%s%s" % (sys.argv[1], sys.argv[2]), timeout=10) as r:
    sys.exit(0 if r.status == 200 and len(r.read()) == int(sys.argv[3]) else 1)
EOF
}

# seed_rates CAPACITY [FACTORS]: the rates of a reproduction, FACTORS (default "0.5 1.5 2") times
# the capacity, rounded to 10 req/s, at least 10.
seed_rates() {
  awk -v c="$1" -v factors="${2:-0.5 1.5 2}" 'BEGIN {
    n = split(factors, f, " ")
    for (i = 1; i <= n; i++) { r = int(c * f[i] / 10 + 0.5) * 10; if (r < 10) r = 10; printf "%d ", r }
    print "" }'
}

# seed_table_header / seed_table_row SETUP RATE REPORT: seed 002's columns, from the report lines
# httperf and rateperf share, and the arrivals the client itself failed for want of a descriptor
# (fd-unavail, part of errors total): past a fast server's capacity, the connections a 5-s timeout
# keeps open can outnumber the descriptors a process may have.
seed_table_header() {
  echo "| set-up | rate [req/s] | connection time avg [ms] | client CPU total [%] | reply time response [ms] | reply rate avg [replies/s] | errors total | client-timo | fd-unavail (client) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
}
seed_table_row() {
  local replies
  replies=$(seed_reply_rate_cell "$3")
  awk -v setup="$1" -v rate="$2" -v replies="$replies" '
    function after(word,   i) { for (i = 1; i < NF; i++) if ($i == word) return $(i + 1); return "?" }
    /^Connection time \[ms\]: min/ { conn = after("avg") }
    /^CPU time \[s\]:/              { cpu = after("total"); sub(/%\)?$/, "", cpu) }
    /^Reply time \[ms\]:/           { reply = after("response") }
    /^Errors: total/                { errors = after("total"); timo = after("client-timo") }
    /^Errors: fd-unavail/           { fd = after("fd-unavail") }
    END { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", setup, rate, conn, cpu, reply,
          replies, errors, timo, fd }' "$3"
}

# seed_reply_rate REPORT: the replies/s of a run: the report's "Reply rate avg" when the run has
# reply-rate samples; a run shorter than 5 s has none (httperf samples every 5 s, and the avg
# then reads 0.0), so for it replies / test duration. "?" when the report has neither.
seed_reply_rate() {
  awk '
    /^Total: connections/ {
      for (i = 1; i < NF; i++) { if ($i == "replies") r = $(i + 1); if ($i == "test-duration") d = $(i + 1) }
    }
    /^Reply rate \[replies\/s\]:/ {
      for (i = 1; i < NF; i++) if ($i == "avg") avg = $(i + 1)
      n = $(NF - 1); sub(/^\(/, "", n)
    }
    END { if (n + 0 > 0) print avg; else if (d + 0 > 0) printf "%.1f\n", r / d; else print "?" }' "$1"
}

# seed_apache_conf DIR PORT: prints the start of a minimal Apache configuration for
# `apache2 -f CONF -DFOREGROUND`, independent of /etc/apache2: the event MPM with the limits of
# Debian's mpm_event.conf, authz_core, mime (/etc/mime.types) and dir; pid file, error log,
# mutexes and runtime files in DIR; 127.0.0.1:PORT only; as root, children run as www-data
# (Apache refuses to serve as root). The caller appends its DocumentRoot, modules and the rest.
seed_apache_conf() {
  local dir=$1 port=$2 modules=/usr/lib/apache2/modules
  mkdir -p "$dir/run"
  cat <<CONF
ServerRoot "$dir"
LoadModule mpm_event_module $modules/mod_mpm_event.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule mime_module $modules/mod_mime.so
LoadModule dir_module $modules/mod_dir.so
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile "$dir/run/apache2.pid"
DefaultRuntimeDir "$dir/run"
Mutex file:$dir/run default
ErrorLog "$dir/error.log"
LogLevel warn
StartServers 2
MinSpareThreads 25
MaxSpareThreads 75
ThreadLimit 64
ThreadsPerChild 25
MaxRequestWorkers 150
MaxConnectionsPerChild 0
TypesConfig /etc/mime.types
DirectoryIndex index.html
CONF
  if [[ $(id -u) -eq 0 ]]; then
    printf 'User www-data\nGroup www-data\n'
  fi
}

# seed_ok_rate REPORT: the 2xx replies/s of a run: seed_reply_rate (the 5-s samples' average, or
# replies / test-duration for a run under 5 s) times the share of the replies that were 2xx, so
# that the 502s a proxy answers in place of its back end do not count as served.
seed_ok_rate() {
  local rate
  rate=$(seed_reply_rate "$1")
  awk -v rate="$rate" '
    /^Reply status:/ {
      for (i = 1; i <= NF; i++) { v = $i; sub(/^[0-9]xx=/, "", v); all += v; if ($i ~ /^2xx=/) ok = v }
    }
    END { if (rate == "?" || all + 0 == 0) print 0; else printf "%.1f\n", rate * ok / all }' "$1"
}

# seed_capacity_bisect LABEL PORT URI START SECONDS MAX [RATEPERF OPTIONS...]: a short sweep for
# the server's capacity. SECONDS-long steps double the rate from START (up to MAX) while the
# server keeps up with it (seed_kept_up; a step that fails is run once more), then two
# bisection steps between the last rate kept up with and the first one not, so that the
# capacity is known within about 25 % rather than 2x (which 1.5x rates need). Prints the capacity in 2xx replies/s: the highest rate kept up with,
# or the seed_ok_rate of a step that was not, if higher (past capacity an open-loop step's reply
# rate is about the capacity itself); when even MAX was kept up with, the capacity is at least
# MAX. The options go to every step's seed_run (e.g. --http-version 1.0).
seed_capacity_bisect() {
  local label=$1 port=$2 uri=$3 rate=$4 seconds=$5 max=$6 best=0 lo=0 hi=0 i served
  # A step past capacity ends when its last connections time out; 2 s, not 5, shortens those
  # tails, and a step whose replies take 2 s has not kept up anyway.
  local seed_timeout=2
  shift 6
  local options=("$@")
  # step_ RATE: a step at RATE, and once more if the server did not keep up: a stall of a
  # second (a server starting threads, a busy neighbour on a shared machine) in a step of two
  # should not halve the capacity. True when either kept up; best updated.
  step_() {
    local again
    for again in "" -again; do
      seed_run "$label-capacity-$1$again" "$port" "$uri" "$1" \
        "$(awk -v r="$1" -v s="$seconds" 'BEGIN { printf "%d", r * s }')" ${options[@]+"${options[@]}"}
      if seed_kept_up "$seed_report"; then served=$1; else served=$(seed_ok_rate "$seed_report"); fi
      best=$(awk -v a="$best" -v b="$served" 'BEGIN { print (b + 0 > a + 0) ? b + 0 : a }')
      [[ $served == "$1" ]] && return 0
    done
    return 1
  }
  while ((rate <= max)); do
    if ! step_ "$rate"; then hi=$rate; break; fi
    lo=$rate
    rate=$((rate * 2))
  done
  for ((i = 0; i < 2 && lo > 0 && hi > 0; i++)); do
    rate=$(((lo + hi) / 20 * 10))
    if step_ "$rate"; then lo=$rate; else hi=$rate; fi
  done
  local not=
  ((hi > 0)) && not=", not with $hi"
  seed_log "$label: capacity about $best 2xx replies/s (kept up with $lo req/s$not)"
  echo "$best"
}

# seed_reply_rate_cell REPORT: seed_reply_rate for a table cell, marked * when the run had no
# 5-s reply-rate sample (replies / test duration; seed_capacity_note explains the mark).
seed_reply_rate_cell() {
  local replies
  replies=$(seed_reply_rate "$1")
  grep -q '^Reply rate .*(0 samples)' "$1" && replies="$replies*"
  echo "$replies"
}

# seed_capacity_note STEP_SECONDS: the sentence under a table that says how capacities and short
# runs' reply rates were measured.
seed_capacity_note() {
  echo "Capacity: the highest rate kept up with (no errors, at least 90 % of replies 2xx, p90 latency from the intended start at most 100 ms) in a sweep of $1-s steps (a failed step run once more), doubling and then two bisection steps; or the 2xx reply rate of a step past it, if higher. * a run shorter than 5 s has no 5-s reply-rate sample: replies / test duration. Client and servers in $seed_netns."
}

# seed_kept_up REPORT: true when the server kept up with the run's rate: no errors, at least 90 %
# of the replies 2xx (a proxy's 502s are not service), and 90 % of the replies within 100 ms of
# their intended start. Past capacity an open-loop queue grows all through a run, and with it the
# latency of most requests. Throughput alone misjudges short runs: a few SYNs dropped from a short
# listen queue and retried after 1 s lengthen the run, and lower replies / duration, while the
# server keeps up with the rest.
seed_kept_up() {
  awk '
    /^Errors: total/ { for (i = 1; i < NF; i++) if ($i == "total") errors = $(i + 1) }
    /^Reply status:/ {
      for (i = 1; i <= NF; i++) { v = $i; sub(/^[0-9]xx=/, "", v); all += v; if ($i ~ /^2xx=/) ok = v + 0 }
    }
    /^Reply latency \[ms\]:/ && p90 == "" { for (i = 1; i < NF; i++) if ($i == "p90") p90 = $(i + 1) }
    END { exit !(errors == "0" && all > 0 && ok >= 0.9 * all && p90 != "" && p90 + 0 <= 100) }' "$1"
}
