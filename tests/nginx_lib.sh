# What the nginx tests (keepalive, sessions, tls) share; sourced from the project's root by a
# script that has set `rateperf` to the binary's path. It sources scripts/lib's helpers, makes
# the work directory $work (removed on exit, with every server started), and gives the checks.
# shellcheck shell=bash

for lib in scripts/lib/{packages,ports,servers,results,tool_reports}.sh; do
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

# Usage errors need no server: the port is one where nothing listens, in case one is taken.
closed=$(ports_free)
# usage_error PATTERN ARG...: rateperf ARGs exit 2, print nothing on stdout, and on stderr the
# project's one-line message, "rateperf: ..." matching the ERE PATTERN (the option, the path, or
# FILE:LINE), followed only by the pointer to --help that every usage error ends with. An option
# rateperf does not know fails: its "unrecognised option" names the option too.
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
    echo "FAIL: rateperf $*: exit $status; want exit 2 and one line matching $pattern; stderr:"
    head -c 400 "$work/usage.err"
    fail=1
  fi
}
# ere TEXT: TEXT as an ERE matching itself (a path of mktemp's has letters, digits, '.' and '/').
ere() { printf '%s' "${1//./\\.}"; }

# nginx_run DIR PORT URI: starts nginx on DIR/nginx.conf (its files under DIR) and waits until
# 127.0.0.1:PORT answers URI with a 200; sets nginx_pid, empty when nginx did not start.
nginx_run() {
  server_start "$1/stderr" nginx -e "$1/error.log" -p "$1" -c "$1/nginx.conf"
  nginx_pid=$server_pid
  nginx_answers "$1" 10 "$2" "$3" || nginx_pid=
  [[ -n $nginx_pid ]]
}

# nginx_require DIR: stops the test (exit 1) with nginx's last lines unless nginx_run started it.
nginx_require() {
  [[ -n $nginx_pid ]] && return 0
  echo "FAIL: nginx did not start:"
  cat "$1/stderr" "$1/error.log" 2>/dev/null | tail -n 10
  exit 1
}

# nginx_status_counts PORT: "ACCEPTS REQUESTS" of the stub_status at 127.0.0.1:PORT/nginx_status;
# each read is itself one connection and one request, counted in what it returns.
nginx_status_counts() {
  "$results_python" - "$1" <<'PY'
import socket, sys
with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5) as s:
    s.sendall(b"GET /nginx_status HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
    data = b""
    while chunk := s.recv(4096):
        data += chunk
lines = data.decode().split("\r\n\r\n", 1)[1].splitlines()
accepts, handled, requests = lines[lines.index("server accepts handled requests") + 1].split()
print(accepts, requests)
PY
}

# nginx_finish NAME DIR: the last checks (nginx logged no error, and still runs), then the
# test's verdict line "NAME: passed" or "NAME: FAILED", and exits with its status.
nginx_finish() {
  if grep -qE '\[(error|crit|alert|emerg)\]' "$2/error.log"; then
    echo "FAIL: nginx logged errors:"; grep -E '\[(error|crit|alert|emerg)\]' "$2/error.log" |
      head -n 5; fail=1
  else
    echo "ok: nginx logged no error"
  fi
  if kill -0 "$nginx_pid" 2>/dev/null; then echo "ok: nginx still running"; else
    echo "FAIL: nginx exited:"; tail -n 5 "$2/error.log"; fail=1
  fi
  echo "$1: $( ((fail)) && echo FAILED || echo passed)"
  exit "$fail"
}
