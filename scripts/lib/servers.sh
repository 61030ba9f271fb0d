# Servers the scripts start themselves: started in the background, waited for until they answer
# HTTP, and stopped by their PID (never by name: other copies on the machine are not ours);
# sourced. A script calls server_stop_all from its EXIT trap.
# shellcheck shell=bash

server_pids=()  # every server started and not yet stopped
server_pid=     # the last one started

# server_start LOG CMD...: runs CMD in the background with its output in LOG; sets server_pid.
server_start() {
  local log=$1
  shift
  "$@" >"$log" 2>&1 &
  server_pid=$!
  server_pids+=("$server_pid")
}

# server_wait_http [--status N] [--pid PID] [--seconds S] PORT URI: waits until 127.0.0.1:PORT
# answers GET URI with a status line (with --status, that status), at most S seconds (default
# 20), and fails early when the process PID has exited. It asks from the namespace in_netns names
# (netns.sh), when set.
server_wait_http() {
  local status='' pid='' seconds=20
  while [[ $1 == --* ]]; do
    case $1 in
      --status) status=$2 ;;
      --pid) pid=$2 ;;
      --seconds) seconds=$2 ;;
      *) echo "server_wait_http: unknown option $1" >&2; return 2 ;;
    esac
    shift 2
  done
  ${in_netns[@]+"${in_netns[@]}"} python3 - "$1" "$2" "$status" "$pid" "$seconds" <<'EOF'
import os, socket, sys, time
port, uri, status, pid, seconds = sys.argv[1:]
deadline = time.monotonic() + float(seconds)
while time.monotonic() < deadline:
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=2) as s:
            s.sendall(("GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" % uri).encode())
            line = s.recv(64)
        if line.startswith(b"HTTP/") and (not status or line.split(b" ")[1:2] == [status.encode()]):
            sys.exit(0)
    except OSError:
        pass
    if pid:
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            sys.exit(1)
    time.sleep(0.1)
sys.exit(1)
EOF
}

# nginx_ensure LOG: true when Debian's nginx is here, installing it (apt-get's output in LOG)
# as root when it is missing; otherwise prints "SKIP: " and why, and is false. Needs packages.sh.
nginx_ensure() {
  command -v nginx >/dev/null && return 0
  if [[ $(id -u) -ne 0 ]]; then
    echo "SKIP: nginx is not installed and this is not root (apt-get install -y nginx)"
    return 1
  fi
  # shellcheck disable=SC2016  # expanded by the bash that timeout starts
  if ! timeout -k 5 100 bash -c '. scripts/lib/packages.sh && pkg_install "$1" nginx' _ "$1" ||
     ! command -v nginx >/dev/null; then
    echo "SKIP: apt-get could not install nginx:"
    tail -n 5 "$1"
    return 1
  fi
}

# nginx_conf_head DIR: the opening lines of a test's nginx.conf, up to the inside of its http
# block: one process, no daemon, its files under DIR, no access log, and persistent connections
# that nginx does not close within a test's runs. The caller writes the rest and the closing '}'.
nginx_conf_head() {
  cat <<EOF
daemon off;
master_process off;
worker_processes 1;
error_log $1/error.log warn;
pid $1/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 10000;
  keepalive_timeout 60s;
$(nginx_temp_paths "$1/tmp")
EOF
}

# nginx_temp_paths DIR: the lines of an nginx http block that put its temporary files in DIR, so
# that our nginx needs nothing writable in /var/lib/nginx.
nginx_temp_paths() {
  local kind
  for kind in client_body proxy fastcgi uwsgi scgi; do echo "  ${kind}_temp_path $1;"; done
}

# nginx_answers DIR SECONDS PORT URI: our nginx (server_pid, its pid file in DIR) answers 200 to
# GET URI on 127.0.0.1:PORT within SECONDS, and is the one answering (another program may have
# taken the port: the pid file names ours). Otherwise it is stopped and the call fails.
nginx_answers() {
  if server_wait_http --pid "$server_pid" --seconds "$2" --status 200 "$3" "$4" &&
     [[ $(cat "$1/nginx.pid" 2>/dev/null) == "$server_pid" ]]; then
    return 0
  fi
  server_stop "$server_pid"
  return 1
}

# server_stop PID: stops one server (TERM, then KILL after 5 s) and reaps it.
server_stop() {
  local pid=$1 i rest=()
  for i in "${server_pids[@]}"; do [[ $i == "$pid" ]] || rest+=("$i"); done
  server_pids=(${rest[@]+"${rest[@]}"})
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# server_stop_all: stops every server started and not yet stopped.
server_stop_all() {
  local pid
  for pid in ${server_pids[@]+"${server_pids[@]}"}; do server_stop "$pid"; done
  server_pids=()
}
