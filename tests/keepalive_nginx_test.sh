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
for lib in scripts/lib/{packages,ports,servers,results}.sh; do
  # shellcheck source=/dev/null
  . "$lib"
done
export PATH=$PATH:/usr/sbin:/sbin

work=$(mktemp -d)
cleanup() { server_stop_all; rm -rf "$work"; }
trap cleanup EXIT

fail=0
# check WHAT GOT WANT: a line "ok: ..." or "FAIL: ..." comparing two values as strings (a
# figure missing from the JSON reads "?" and fails).
check() {
  if [[ $2 == "$3" ]]; then echo "ok: $1: $2"; else echo "FAIL: $1: $2, want $3"; fail=1; fi
}

# (1) Usage errors need no server: the port is one where nothing listens, in case one is taken.
closed=$(ports_free)
# usage_error PATTERN ARG...: rateperf ARGs exit 2, print nothing on stdout, and on stderr the
# project's one-line message, "rateperf: ..." naming the option (the ERE PATTERN), followed only
# by the pointer to --help that every usage error ends with. An option rateperf does not know
# fails: its "unrecognised option" names the option too.
usage_error() {
  local pattern=$1 status=0 message
  shift
  timeout -k 2 10 "$rateperf" -q --server 127.0.0.1 --port "$closed" --timeout 1 "$@" \
    >"$work/usage.out" 2>"$work/usage.err" || status=$?
  message=$(grep -vx "Try 'rateperf --help'." "$work/usage.err" || true)
  if ((status == 2)) && [[ ! -s $work/usage.out && $message == "rateperf: "* &&
        $(wc -l <<<"$message") == 1 ]] && grep -qE -e "$pattern" <<<"$message" &&
     ! grep -qiE 'unrecogni[sz]ed option' <<<"$message"; then
    echo "ok: rateperf $*: exit 2: $message"
  else
    echo "FAIL: rateperf $*: exit $status; want exit 2 and one line naming $pattern; stderr:"
    head -c 400 "$work/usage.err"
    fail=1
  fi
}
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
daemon off;
master_process off;
worker_processes 1;
error_log $dir/error.log warn;
pid $dir/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 10000;
  keepalive_timeout 60s;
$(nginx_temp_paths "$dir/tmp")
  server {
    listen 127.0.0.1:$port;
    root $dir/www;
    location /nginx_status { stub_status; }
  }
}
EOF
  server_start "$dir/stderr" nginx -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf"
  nginx_pid=$server_pid
  nginx_answers "$dir" 10 "$port" /nginx_status && break
  nginx_pid=
done
if [[ -z $nginx_pid ]]; then
  echo "FAIL: nginx did not start:"
  cat "$dir/stderr" "$dir/error.log" 2>/dev/null | tail -n 10
  exit 1
fi
echo "nginx $(nginx -v 2>&1 | sed 's/^nginx version: //') (pid $nginx_pid) on 127.0.0.1:$port"

# nginx_counts: "ACCEPTS REQUESTS" of nginx's stub_status; each read is itself one connection
# and one request, counted in what it returns.
nginx_counts() {
  python3 - "$port" <<'EOF'
import socket, sys
with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5) as s:
    s.sendall(b"GET /nginx_status HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
    data = b""
    while chunk := s.recv(4096):
        data += chunk
lines = data.decode().split("\r\n\r\n", 1)[1].splitlines()
accepts, handled, requests = lines[lines.index("server accepts handled requests") + 1].split()
print(accepts, requests)
EOF
}

# (3) The runs. run_case NAME CONNECTIONS CALLS WAITS ARG...: rateperf ARGs against nginx, then
# the counts: nginx's and rateperf's requests and replies all CALLS, calls = replies, no error,
# CONNECTIONS opened and accepted; WAITS requests timed in /request_wait (0 outside request mode).
run_case() {
  local name=$1 conns=$2 calls=$3 waits=$4 json=$work/$1.json status=0
  local a0 r0 a1 r1 fields requests replies calls_made errors opened waited ok
  shift 4
  read -r a0 r0 < <(nginx_counts)
  timeout -k 2 60 "$rateperf" -q --server 127.0.0.1 --port "$port" --uri /ok.txt --timeout 5 \
    --json "$json" "$@" >"$work/$name.txt" 2>"$work/$name.err" || status=$?
  read -r a1 r1 < <(nginx_counts)
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

if kill -0 "$nginx_pid" 2>/dev/null; then echo "ok: nginx still running"; else
  echo "FAIL: nginx exited:"; tail -n 5 "$dir/error.log"; fail=1
fi
echo "keepalive_nginx: $( ((fail)) && echo FAILED || echo passed)"
exit "$fail"
