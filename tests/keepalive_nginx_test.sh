#!/usr/bin/env bash
# Keep-alive, pipelining and request mode (issue 15) against Debian's nginx, counted at both ends:
# after each run, the requests nginx served (its stub_status counter, less the status requests
# themselves) must equal rateperf's requests written and replies received, with no error and
# calls = replies; the connections rateperf opened must be what the mode promises (one per
# --num-conns; the --connections pool, never reopened by a healthy nginx), and nginx must have
# accepted as many. Then the usage errors of the new options: exit 2, one stderr line naming
# the option.
#   tests/keepalive_nginx_test.sh RATEPERF_BIN
# Runs nginx on a free port of 127.0.0.1, stopped by its PID; as root it installs nginx with
# apt-get when missing. About 10 s of load in all.
# Exit status: 0 passed, 1 a check failed, 77 no nginx (not root, or apt-get failed: says why).
set -euo pipefail
(($# == 1)) || { echo "usage: tests/keepalive_nginx_test.sh RATEPERF_BIN" >&2; exit 2; }
rateperf=$(realpath "$1")
cd "$(dirname "$0")/.."
# shellcheck source=tests/nginx_lib.sh
. tests/nginx_lib.sh

# (1) Usage errors, which need no server (usage_error: tests/nginx_lib.sh).
usage_error '--burst-length' --burst-length 0 --num-conns 1
usage_error '--num-calls' --num-calls 0 --num-conns 1
usage_error '--rate' --request-rate 10 --rate 5 --requests 5
usage_error '--num-conns' --request-rate 10 --num-conns 5 --requests 5
usage_error '--num-calls' --request-rate 10 --num-calls 5 --requests 5
usage_error '--requests|--duration' --request-rate 10
usage_error '--connections' --request-rate 10 --requests 5 --connections 0

# (2) nginx: installed as root when missing, else the test is skipped.
nginx_ensure "$work/apt.log" || exit $((fail ? 1 : 77))

# One process, no daemon, everything under $work/nginx. keepalive_requests is far above any run's
# calls on one connection, so that a close by nginx never cuts a run short.
dir=$work/nginx
mkdir -p "$dir/www" "$dir/tmp"
printf 'ok\n' >"$dir/www/ok.txt"
for _ in 1 2 3; do
  port=$(ports_free)
  cat >"$dir/nginx.conf" <<EOF
$(nginx_conf_head "$dir")
  server {
    listen 127.0.0.1:$port;
    root $dir/www;
    location /nginx_status { stub_status; }
  }
}
EOF
  nginx_run "$dir" "$port" /nginx_status && break
done
nginx_require "$dir"
echo "nginx $(nginx -v 2>&1 | sed 's/^nginx version: //') (pid $nginx_pid) on 127.0.0.1:$port"


# (3) The runs. run_case NAME CONNECTIONS CALLS WAITS ARG...: rateperf ARGs against nginx, then
# the counts: nginx's and rateperf's requests and replies all CALLS, calls = replies, no error,
# CONNECTIONS opened and accepted; WAITS requests timed in /request_wait (0 outside request mode).
run_case() {
  local name=$1 conns=$2 calls=$3 waits=$4 json=$work/$1.json status=0
  local a0 r0 a1 r1 fields requests replies calls_made errors opened waited ok
  shift 4
  read -r a0 r0 < <(nginx_status_counts "$port")
  timeout -k 2 60 "$rateperf" -q --server 127.0.0.1 --port "$port" --uri /ok.txt --timeout 5 \
    --json "$json" "$@" >"$work/$name.txt" 2>"$work/$name.err" || status=$?
  read -r a1 r1 < <(nginx_status_counts "$port")
  fields='{/totals/requests} {/totals/replies} {/totals/calls} {/errors/total}'
  fields+=' {/totals/connections} {/request_wait/count} {/reply_status/2xx}'
  read -r requests replies calls_made errors opened waited ok < <(result_get "$json" "$fields")
  echo "($name) rateperf $*"
  echo "($name) nginx served $((r1 - r0 - 1)) requests on $((a1 - a0 - 1)) connections;" \
    "rateperf: requests $requests replies $replies (2xx $ok) calls $calls_made errors $errors" \
    "connections $opened request-wait count $waited (exit $status)"
  check "($name) exit status" "$status" 0
  check "($name) nginx's requests served" "$((r1 - r0 - 1))" "$calls"
  check "($name) rateperf /totals/requests = nginx's" "$requests" "$((r1 - r0 - 1))"
  check "($name) rateperf /totals/replies = nginx's" "$replies" "$((r1 - r0 - 1))"
  check "($name) rateperf /totals/calls = replies" "$calls_made" "$replies"
  check "($name) rateperf /errors/total" "$errors" 0
  check "($name) rateperf /totals/connections" "$opened" "$conns"
  check "($name) nginx's connections accepted = rateperf's" "$((a1 - a0 - 1))" "$opened"
  check "($name) rateperf /request_wait/count" "$waited" "$waits"
  if ((status != 0)); then head -n 5 "$work/$name.err"; fi
}
run_case 1 200 2000 0 --num-calls 10 --num-conns 200 --rate 200
run_case 2 100 1200 0 --num-calls 12 --burst-length 4 --num-conns 100 --rate 100
run_case 3 10 2000 2000 --request-rate 1000 --connections 10 --requests 2000
run_case 4 10 2000 2000 --request-rate 1000 --connections 10 --requests 2000 --burst-length 4
# --timing batch: the same counts with the arrivals of a turn (0.2 ms) sent together and the
# replies read at the turns; far fewer wake-ups than requests, and no arrival later than a few
# turns (a generous bound: a sanitizer build or a stall of this machine adds to it).
run_case 5 10 20000 20000 --request-rate 20000 --connections 10 --requests 20000 --timing batch
run_case 6 100 2000 0 --num-calls 20 --num-conns 100 --rate 500 --timing batch
read -r sleeps lag_p99 mode < <(result_get "$work/5.json" '{/timing/sleeps} {/lag/p99_ms} {/timing/mode}')
echo "(5) timing $mode: $sleeps sleeps for 20000 requests, lag p99 $lag_p99 ms"
check "(5) /timing/mode" "$mode" batch
check "(5) fewer wake-ups than half the requests" "$(( sleeps < 10000 ))" 1
check "(5) lag p99 below 50 ms" "$(awk -v l="$lag_p99" 'BEGIN { print (l < 50) }')" 1
# auto at 20,000 requests/s (the kernel clock by default) takes batch's turns of itself.
run_case 7 10 20000 20000 --request-rate 20000 --connections 10 --requests 20000
read -r sleeps turn < <(result_get "$work/7.json" '{/timing/sleeps} {/timing/turn_ms}')
echo "(7) timing auto: turns of $turn ms, $sleeps sleeps for 20000 requests"
check "(7) /timing/turn_ms" "$turn" 0.2
check "(7) fewer wake-ups than half the requests" "$(( sleeps < 10000 ))" 1

nginx_finish keepalive_nginx "$dir"
