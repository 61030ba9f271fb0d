# Shared by the seed reproductions in examples/seed*/run (sourced, not run): the client, Debian
# packages, free ports, servers started and stopped by PID, rateperf runs kept with their JSON
# and CSV, and the seed-002 table. The namespace, ports, servers and figures are the shared
# library's (scripts/lib/); capacity searches are in capacity.sh, Apache's configuration in
# apache.sh, both sourced here.
#
# A script sources it, then calls seed_init NAME "$@" (which parses the common arguments):
#   --quick        short runs (the default): a few minutes per seed
#   --full         the seed's own run lengths
#   --only LIST    run only these set-ups (names as the script's --help lists them), e.g. "paste"
#   --out DIR      keep every report, CSV and server log in DIR (default build/seeds/NAME-DATE)
#   --build-dir D  meson build directory for rateperf (default build)
# Environment: RATEPERF=/path/to/rateperf uses that binary instead of building one.
# shellcheck shell=bash

seed_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seed_root=$(cd "$seed_lib/../.." && pwd)
for lib in "$seed_root"/scripts/lib/{packages,netns,ports,servers,results}.sh "$seed_lib"/{capacity,apache}.sh; do
  # shellcheck source=/dev/null
  . "$lib"
done

seed_name=
seed_quick=1
seed_out=
seed_only=
rateperf=
seed_timeout=5  # rateperf --timeout of seed_run, in seconds

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
  local missing
  read -r -a missing <<<"$(pkg_missing "$@")"
  ((${#missing[@]})) || return 0
  if [[ $(id -u) -ne 0 ]]; then
    seed_log "skipped: missing packages (as root: apt-get install -y ${missing[*]})"
    exit 77
  fi
  seed_log "installing ${missing[*]}"
  pkg_install "$seed_out/apt.log" "${missing[@]}" ||
    { seed_log "skipped: cannot install ${missing[*]} (see $seed_out/apt.log)"; exit 77; }
}

# seed_isolate: as root, runs the rest of the script in a network namespace of its own
# (netns_enter: the script starts again there, with its arguments, the same --out and the
# rateperf already built), so that a seed's runs share no TIME_WAIT or orphaned sockets with
# earlier runs or other programs, and the seeds' 40,000-connection runs (--full) do not exhaust
# the default local ports. Call it after seed_packages, which needs the network. Not root (or no
# unshare): the machine's namespace, as it is. The tables say which (netns_where).
seed_isolate() {
  export RATEPERF=$rateperf
  netns_enter "$0" ${seed_args[@]+"${seed_args[@]}"} --out "$seed_out" ||
    seed_die "cannot set up the network namespace"
}

# seed_free_port: a TCP port on 127.0.0.1 that nothing listens on now.
seed_free_port() { ports_free; }

# seed_start NAME CMD...: starts a server in the background (output in $seed_out/NAME.log),
# remembered by its PID for seed_stop_all; sets seed_pid.
seed_start() {
  local name=$1
  shift
  server_start "$seed_out/$name.log" "$@"
  seed_pid=$server_pid
}

# seed_wait_http PORT URI [SECONDS [STATUS]]: waits until 127.0.0.1:PORT answers GET URI with a
# status line (with STATUS, e.g. 200, that status; without, any), at most SECONDS (default 20);
# fails otherwise.
seed_wait_http() { server_wait_http --seconds "${3:-20}" ${4:+--status "$4"} "$1" "$2"; }

# seed_stop PID: stops one server (TERM, then KILL after 5 s) and reaps it.
seed_stop() { server_stop "$1"; }
seed_stop_all() { server_stop_all; }

# seed_rateperf LABEL SECONDS RATEPERF ARGS...: one rateperf run, killed if it lasts past
# SECONDS (a run that should end by itself: TERM, after which rateperf gives its open
# connections their timeout and reports; KILL only if it did not). The report goes to
# $seed_out/LABEL.txt, its figures to $seed_out/LABEL.json, and a row (with LABEL in no column:
# the file name says it) is appended to $seed_out/runs.csv. Sets seed_report and seed_json to
# the two files' paths.
seed_rateperf() {
  local label=$1 seconds=$2
  shift 2
  seed_report=$seed_out/$label.txt
  seed_json=$seed_out/$label.json
  timeout -k "$((seed_timeout + 15))" "$seconds" "$rateperf" "$@" --quiet \
    --csv "$seed_out/runs.csv" --json "$seed_json" >"$seed_report" 2>"$seed_out/$label.err" ||
    seed_log "$label: rateperf exited with status $?"
  echo "$label" >>"$seed_out/runs.labels"
  sleep 0.5
}

# seed_run LABEL PORT URI RATE CONNS [RATEPERF OPTIONS...]: an open-loop run, CONNS connections
# at RATE a second (seed_rateperf).
seed_run() {
  local label=$1 port=$2 uri=$3 rate=$4 conns=$5
  shift 5
  seed_log "$label: $rate req/s, $conns connections"
  seed_rateperf "$label" "$(awk -v n="$conns" -v r="$rate" 'BEGIN { printf "%d", n / r + 60 }')" \
    --server 127.0.0.1 --port "$port" --uri "$uri" --rate "$rate" --num-conns "$conns" \
    --timeout "$seed_timeout" "$@"
}

# seed_closed_run LABEL PORT URI C N [RATEPERF OPTIONS...]: the seed's own closed loop (ab -c C
# -n N, or siege's C users) run by rateperf --concurrency C --num-conns N, its report in ab's
# format (seed_rateperf).
seed_closed_run() {
  local label=$1 port=$2 uri=$3 c=$4 n=$5
  shift 5
  seed_log "$label: closed loop of $c, $n connections"
  seed_rateperf "$label" 600 --server 127.0.0.1 --port "$port" --uri "$uri" --concurrency "$c" \
    --num-conns "$n" --timeout "$seed_timeout" --format ab "$@"
}

# seed_closed_header / seed_closed_row SETUP SHAPE JSON: the closed-loop table in ab's terms
# (SHAPE: the seed's command, e.g. "ab -n 1000 -c 10"): requests per second, time per request
# (mean, and mean across all concurrent requests), the longest request, failed requests.
seed_closed_header() {
  echo "| set-up | closed loop (the seed's shape) | requests per second | time per request mean [ms] | time per request, across all concurrent [ms] | longest request [ms] | failed requests |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
}
seed_closed_row() {
  local rps tpr across
  rps=$(result_calc "$3" .2f '{/totals/replies} / {/totals/duration_s}')
  tpr=$(result_calc "$3" .3f '{/loop/concurrency} * {/totals/duration_s} * 1000 / {/totals/replies}')
  across=$(result_calc "$3" .3f '{/totals/duration_s} * 1000 / {/totals/replies}')
  echo "| $1 | $2 | $rps | $tpr | $across | $(result_get "$3" '{/ab/total/max_ms:.0f} | {/errors/total}') |"
}

# seed_closed_paragraph SETUP SHAPE CLOSED_JSON OPEN_RATE OPEN_JSON: one paragraph on what the
# closed loop reported and what the open loop showed at the same server past its capacity.
seed_closed_paragraph() {
  local closed open
  closed=$(result_get "$3" '{/totals/replies} replies, {/errors/total} errors, the longest {/ab/total/max_ms:.0f} ms')
  open=$(result_get "$5" '{reply_rate:.0f} replies/s, latency p90 {/latency_intended/p90_ms:.0f} ms and p99 {/latency_intended/p99_ms:.0f} ms from the intended start, {/errors/total} errors ({/errors/client_timo} client-timo)')
  echo "- $1: the closed loop ($2) reported $(result_calc "$3" .0f '{/totals/replies} / {/totals/duration_s}') requests/s at $(result_calc "$3" .1f '{/loop/concurrency} * {/totals/duration_s} * 1000 / {/totals/replies}') ms a request ($closed): the server looks healthy, because each client waited for its reply before sending the next request, so the load fell to what the server served. The open loop at $4 req/s, past the same server's capacity, showed $open."
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

# seed_table_header / seed_table_row SETUP RATE JSON: seed 002's columns, from the figures
# httperf and rateperf share, and the arrivals the client itself failed for want of a descriptor
# (fd-unavail, part of errors total): past a fast server's capacity, the connections a 5-s timeout
# keeps open can outnumber the descriptors a process may have.
seed_table_header() {
  echo "| set-up | rate [req/s] | connection time avg [ms] | client CPU total [%] | reply time response [ms] | reply rate avg [replies/s] | errors total | client-timo | fd-unavail (client) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
}
seed_table_row() {
  echo "| $1 | $2 $(result_get "$3" "| {/connection_time/avg_ms:.1f} | {/cpu/total_percent:.1f} | {/reply_time/response_ms:.1f} | {reply_rate:.1f}{reply_rate_mark} | {/errors/total} | {/errors/client_timo} | {/errors/fd_unavail} |")"
}
