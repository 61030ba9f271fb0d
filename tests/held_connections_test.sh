#!/usr/bin/env bash
# Past one process's descriptors (issue 18, point 6): 50,000 connections held open at once
# across 3 shards, against Debian's nginx with 3 workers (reuseport), in a network namespace of
# the test's own. The hard descriptor limit is 20,000 a process, so neither one client nor one
# nginx worker could hold them all. Each shard (`--shard I/3`, one `--start-at`) runs its part
# of `--wsess 50000,2,THINK` at RATE sessions/s: a session's two calls share one keep-alive
# connection, open from its first call to its second, THINK s later; with THINK above
# 50000/RATE every connection is open once the last has opened. Each shard has 4 loopback
# source addresses of its own (`--myaddr`), as each machine of a real run has its own: 12 in all.
# Checked: each shard's peak concurrency is its whole part (16,667 or 16,666), every session
# completed without an error, the client kept up (lag), the merged peak (the parts' sum,
# flagged as a bound) is 50,000, and independently the server side held 50,000 at once, from
# the 12 addresses (nginx's stub_status "Active connections", polled, and `ss` at the
# plateau); the merged replies, 100,000, are what nginx served. Prints each shard's lines, the
# merged report and the server's samples.
#   tests/held_connections_test.sh RATEPERF_BIN     (meson: via tests/needs_netns.sh)
# HELD_SESSIONS, HELD_RATE, HELD_THINK override the schedule (50000, 10000, 9; 12 under the
# sanitizers). About 20 s.
# Exit status: 0 passed, 1 a check failed, 77 no nginx or no network namespace (says why).
set -euo pipefail
(($# == 1)) || { echo "usage: tests/held_connections_test.sh RATEPERF_BIN" >&2; exit 2; }
rateperf=$(realpath "$1")
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/sbin:/sbin
# shellcheck source=scripts/lib/servers.sh
. scripts/lib/servers.sh
# shellcheck source=scripts/lib/netns.sh
. scripts/lib/netns.sh
# Under the sanitizers (scripts/test-sanitizers sets ASAN_OPTIONS) three instrumented shards on
# two cores open their sessions up to 2 s late: a longer think time keeps the plateau.
default_think=9
[[ -n ${ASAN_OPTIONS:-} ]] && default_think=12
sessions=${HELD_SESSIONS:-50000} rate=${HELD_RATE:-10000} think=${HELD_THINK:-$default_think} shards=3

# (1) nginx, installed while the machine's network is still ours; then the namespace (this
# script again, inside it), where the listen backlogs may be raised.
if ! command -v nginx >/dev/null; then
  apt_log=$(mktemp)
  nginx_ensure "$apt_log" || { rm -f "$apt_log"; exit 77; }
  rm -f "$apt_log"
fi
netns_enter tests/held_connections_test.sh "$rateperf" ||
  { echo "SKIP: loopback or the local port range could not be set in a namespace"; exit 77; }
if [[ ${RATEPERF_NETNS:-} != "$(readlink /proc/self/ns/net)" ]]; then
  echo "SKIP: no network namespace of its own (needs root, unshare, ip and sysctl)"; exit 77
fi
sysctl -q -w net.core.somaxconn=65535 net.ipv4.tcp_max_syn_backlog=65535 ||
  { echo "FAIL: could not raise the listen backlogs in the namespace"; exit 1; }
# shellcheck source=tests/nginx_lib.sh
. tests/nginx_lib.sh
# at_least WHAT GOT MIN: "ok: ..." when the integer GOT >= MIN, else "FAIL: ...".
at_least() {
  if [[ $2 =~ ^[0-9]+$ ]] && (($2 >= $3)); then echo "ok: $1: $2 (>= $3)"; else
    echo "FAIL: $1: $2, want >= $3"; fail=1; fi
}

# (2) nginx: 3 workers, each with its own listening socket (reuseport) and descriptors; it
# answers from memory (workers run as nobody and read no file), keeps every connection for the
# whole run, and counts in stub_status.
dir=$work/nginx
mkdir -p "$dir/tmp"
port=$(ports_free)
cat >"$dir/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes $shards;
worker_rlimit_nofile 20000;
error_log $dir/error.log warn;
pid $dir/nginx.pid;
events { worker_connections 19000; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 300s;
$(nginx_temp_paths "$dir/tmp")
  server {
    listen 127.0.0.1:$port reuseport backlog=65535;
    location = /ok.txt { return 200 "ok\n"; }
    location = /nginx_status { stub_status; }
  }
}
EOF
nginx_run "$dir" "$port" /nginx_status || true
nginx_require "$dir"
echo "nginx $(nginx -v 2>&1 | sed 's/^nginx version: //') (master $nginx_pid, $shards workers)" \
  "on 127.0.0.1:$port, $netns_where"

# (3) The shards, from 2 s ahead; meanwhile a poller reads stub_status every 0.2 s (its own
# connection is one of the active ones) and, at the plateau's middle, ss counts the server's
# established sockets.
open_s=$(python3 -c "print($sessions / $rate)")
python3 -c "import sys; sys.exit(not $think > $open_s + 1)" ||
  { echo "FAIL: think time $think s leaves no plateau after $open_s s of opening"; exit 1; }
read -r a0 r0 < <(nginx_status_counts "$port")
start=$(python3 -c 'import time; print("%.3f" % (time.time() + 2))')
limit=$(python3 -c "print(int(2 + $think + $open_s + 30))")
pids=()
for ((i = 0; i < shards; i++)); do
  timeout -k 5 "$limit" "$rateperf" -q --server 127.0.0.1 --port "$port" --uri /ok.txt \
    --rate "$rate" --wsess "$sessions,2,$think" --timeout 5 --shard "$i/$shards" \
    --start-at "$start" --myaddr "127.0.1.$((4 * i + 1))-127.0.1.$((4 * i + 4))" \
    --dump "$work/shard-$i.dump" --json "$work/shard-$i.json" \
    >"$work/shard-$i.txt" 2>"$work/shard-$i.err" &
  pids+=($!)
done
timeout -k 2 "$limit" "$results_python" - "$port" "$start" "$(python3 -c "print($think + $open_s)")" \
  >"$work/poll.txt" <<'PY' &
import socket, sys, time
port, start, length = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
best, at, polls = 0, 0.0, 0
while time.time() < start + length + 1:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET /nginx_status HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        data = b""
        while chunk := s.recv(4096):
            data += chunk
    polls += 1
    active = int(data.split(b"Active connections:")[1].split()[0]) - 1
    if active > best:
        best, at = active, time.time() - start
    time.sleep(0.2)
print(best, "%.1f" % at, polls)
PY
poller=$!
python3 -c "import time; time.sleep(max(0, $start + ($open_s + $think) / 2 - time.time()))"
timeout 20 ss -Htn state established "( sport = :$port )" >"$work/ss.txt" || true
held_ss=$(wc -l <"$work/ss.txt")
# The clients' addresses (the peers' column, less the port), less the poller's 127.0.0.1.
peers=$(awk '{ sub(/:[0-9]+$/, "", $4); if ($4 != "127.0.0.1") n[$4]++ }
  END { for (a in n) print a, n[a] }' "$work/ss.txt" | sort -V)
echo "at $(python3 -c "print('%.1f' % (($open_s + $think) / 2))") s:" \
  "ss: $held_ss established on nginx's side; $(grep '^TCP:' /proc/net/sockstat)"
echo "  by source address: $(paste -sd, <<<"$peers" | sed 's/,/, /g')"
statuses=()
for pid in "${pids[@]}"; do status=0; wait "$pid" || status=$?; statuses+=("$status"); done
wait "$poller" || true
read -r held_stub held_at polls <"$work/poll.txt" || true
read -r a1 r1 < <(nginx_status_counts "$port")
served=$((r1 - r0 - 1 - ${polls:-0})) accepted=$((a1 - a0 - 1 - ${polls:-0}))
cpu=$(for w in $(ps -o pid= --ppid "$nginx_pid"); do cat "/proc/$w/stat"; done |
  awk -v hz="$(getconf CLK_TCK)" '{ t += $14 + $15 } END { printf "%.1f", t / hz }')

# (4) Each shard's part, then the merge.
figures='peak {/connection_rate/max_concurrent}, sessions {/sessions/completed} completed'
figures+=' {/sessions/failed} failed, errors {/errors/total}, lag p99 {/lag/p99_ms:.1f} ms'
figures+=' max {/lag/max_ms:.1f} ms, CPU {/cpu/total_percent:.0f} % of a core'
for ((i = 0; i < shards; i++)); do
  j=$work/shard-$i.json part=$(((sessions - i + shards - 1) / shards))
  echo "(shard $i) exit ${statuses[i]};" \
    "$(grep -E '^(Total|Connection rate):' "$work/shard-$i.txt" | paste -sd';')"
  echo "(shard $i) $(result_get "$j" "$figures")"
  grep -v -e '^$' "$work/shard-$i.err" | sed "s/^/(shard $i) stderr: /" | head -n 5
  check "(shard $i) exit status" "${statuses[i]}" 0
  check "(shard $i) peak concurrent connections" \
    "$(result_get "$j" '{/connection_rate/max_concurrent}')" "$part"
  check "(shard $i) sessions completed, failed, errors" \
    "$(result_get "$j" '{/sessions/completed} {/sessions/failed} {/errors/total}')" "$part 0 0"
  # The client kept up when no session opened so late that it missed the others' plateau.
  lag="lag max $(result_get "$j" '{/lag/max_ms:.1f}') ms, plateau $think - $open_s s"
  if result_true "$j" "{/lag/max_ms} < ($think - $open_s) * 500"; then
    echo "ok: (shard $i) $lag: under half of it"
  else echo "FAIL: (shard $i) $lag: the client fell behind by half of it"; fail=1; fi
done
status=0
timeout -k 2 30 "$rateperf" merge --json "$work/merged.json" "$work"/shard-*.dump \
  >"$work/merged.txt" 2>"$work/merged.err" || status=$?
echo "(merged) exit $status:"; sed 's/^/  /' "$work/merged.txt" "$work/merged.err"
m=$work/merged.json
check "(merged) exit status" "$status" 0
check "(merged) max concurrent, is bound" \
  "$(result_get "$m" '{/connection_rate/max_concurrent} {/connection_rate/max_concurrent_is_bound}')" \
  "$sessions True"
check "(merged) connections, replies (2xx), errors" \
  "$(result_get "$m" '{/totals/connections} {/totals/replies} {/reply_status/2xx} {/errors/total}')" \
  "$sessions $((2 * sessions)) $((2 * sessions)) 0"
echo "nginx: accepted $accepted connections, served $served requests, held at most" \
  "${held_stub:-?} at once (stub_status, at ${held_at:-?} s, ${polls:-?} polls); workers' CPU ${cpu} s"
at_least "nginx held at once (stub_status Active connections)" "${held_stub:-?}" "$sessions"
at_least "nginx held at once (ss at the plateau)" "$held_ss" "$sessions"
check "source addresses seen by nginx at the plateau" "$(wc -l <<<"$peers")" 12
check "nginx's requests served = merged replies" "$served" "$(result_get "$m" '{/totals/replies}')"
check "nginx's connections accepted" "$accepted" "$sessions"
nginx_finish held_connections "$dir"
