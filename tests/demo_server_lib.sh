# Starting the demo server for a shell test; sourced.
# shellcheck shell=bash

# demo_server_start SERVER DIR [OPTIONS...]: the demo server on 127.0.0.1 at a free port, its
# output in DIR/server.out and its log in DIR/server.log; it prints "listening on HOST:PORT"
# once it accepts. Sets demo_pid and demo_port; returns 1 when it has not started within 5 s.
demo_server_start() {
  local server=$1 dir=$2 i
  shift 2
  "$server" --host 127.0.0.1 --port 0 "$@" >"$dir/server.out" 2>"$dir/server.log" &
  demo_pid=$!
  demo_port=
  for ((i = 0; i < 50; i++)); do
    demo_port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$dir/server.out")
    [[ -n $demo_port ]] && return 0
    kill -0 "$demo_pid" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}
