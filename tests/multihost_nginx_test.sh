#!/usr/bin/env bash
# Many hosts without a cluster (issue 18, point 5): three client "hosts", each a network
# namespace joined by a veth pair to a bridge in the server's namespace, where Debian's nginx
# runs; each host runs `rateperf --shard i/3` of one schedule (3000 conn/s, 6000 connections) from
# one --start-at, with the command line of examples/distributed/shard-args. Checked: every
# shard ends well with its third of the replies; `rateperf merge` of their dumps gives the one
# schedule's figures (6000 replies, offered 3000/s over the single process's intended window),
# which equal what nginx counted (stub_status); and the SYNs that tcpdump records on the
# server's bridge are one per connection and as evenly spaced as those of one process running
# the whole schedule from one host just before: the coefficient of variation (CV) of their gaps
# at most twice its, and the share of gaps within 10 % of the nominal gap at least half its.
# Then the same schedule from one process with --threads 2. A run whose spacing fails is run
# again, up to three attempts (see spaced_run: the machine's stalls and busy cores).
#   tests/multihost_nginx_test.sh RATEPERF_BIN
# The script starts itself again in a network namespace of its own, the server's (nginx and
# tcpdump, started there, see none of the machine's traffic, and its links' names are its own);
# the client hosts' namespaces are held by processes it stops on exit, nginx and tcpdump are
# stopped by their PIDs. As root it installs nginx and tcpdump with apt-get when missing. About
# 6 s of load and 15 s in all (up to 35 s with reruns).
# Exit status: 0 passed, 1 a check failed, 77 skipped (not root, no network namespaces, veth or
# bridge, no nginx or tcpdump: says why).
set -euo pipefail
(($# == 1)) || { echo "usage: tests/multihost_nginx_test.sh RATEPERF_BIN" >&2; exit 2; }
rateperf=$(realpath "$1")
script=$(realpath "$0")
cd "$(dirname "$script")/.."
export PATH=$PATH:/usr/sbin:/sbin
# shellcheck source=scripts/lib/servers.sh
. scripts/lib/servers.sh
# shellcheck source=scripts/lib/netns.sh
. scripts/lib/netns.sh
# shellcheck source=examples/distributed/shard-args.sh
. examples/distributed/shard-args.sh

# (1) What needs the machine's network, before the namespace: nginx and tcpdump, installed as
# root when missing. Then the server's namespace, or a skip.
apt_log=$(mktemp)
if ! nginx_ensure "$apt_log"; then rm -f "$apt_log"; exit 77; fi
if ! command -v tcpdump >/dev/null; then
  # shellcheck disable=SC2016  # expanded by the bash that timeout starts
  if [[ $(id -u) -ne 0 ]] ||
     ! timeout -k 5 100 bash -c '. scripts/lib/packages.sh && pkg_install "$1" tcpdump' _ \
       "$apt_log" || ! command -v tcpdump >/dev/null; then
    echo "SKIP: tcpdump is not installed and apt-get could not install it"
    rm -f "$apt_log"; exit 77
  fi
fi
rm -f "$apt_log"
netns_enter "$script" "$rateperf" ||
  { echo "SKIP: loopback or the local port range could not be set in a namespace"; exit 77; }
if [[ ${RATEPERF_NETNS:-} != "$(readlink /proc/self/ns/net)" ]]; then
  echo "SKIP: no network namespace of its own (needs root, unshare, ip and sysctl)"; exit 77
fi
# shellcheck source=tests/nginx_lib.sh
. tests/nginx_lib.sh
run_pids=()  # the rateperf processes of a run, stopped on an early exit
# shellcheck disable=SC2317  # called by the EXIT trap
finish() {
  local pid
  for pid in ${run_pids[@]+"${run_pids[@]}"}; do kill "$pid" 2>/dev/null || true; done
  cleanup
}
trap finish EXIT

rate=3000 conns=6000 port=8080 server=10.18.0.1
nominal_gap_us=$(awk -v r=$rate 'BEGIN { printf "%.3f", 1e6 / r }')
window_s=$(awk -v r=$rate -v n=$conns 'BEGIN { printf "%.3f", (n - 1) / r }')

# (2) The network: a bridge br0 here with the server's address; client host i in a namespace of
# netns_new's (loopback up, local ports 1024-65535), its eth0 the peer of h$i on the bridge.
if ! ip link add br0 type bridge; then echo "SKIP: the kernel gives no bridge here"; exit 77; fi
ip addr add "$server/24" dev br0 && ip link set br0 up
hosts=()  # nsenter --net=... of each client host, as one word
for i in 0 1 2; do
  netns_new || { echo "SKIP: no network namespace for client host $i"; exit 77; }
  hosts+=("${in_netns[*]}")
  if ! ip link add "h$i" type veth peer name eth0 netns "$netns_pid"; then
    echo "SKIP: the kernel gives no veth pair here"; exit 77
  fi
  ip link set "h$i" master br0 up
  "${in_netns[@]}" ip addr add "10.18.0.$((11 + i))/24" dev eth0
  "${in_netns[@]}" ip link set eth0 up
done
in_netns=()  # what the library's helpers start runs here, in the server's namespace

dir=$work/nginx
mkdir -p "$dir/www" "$dir/tmp"
printf 'ok\n' >"$dir/www/index.html"
cat >"$dir/nginx.conf" <<EOF
$(nginx_conf_head "$dir")
  server {
    listen 127.0.0.1:$port;
    listen $server:$port reuseport backlog=4096;
    root $dir/www;
    location /nginx_status { stub_status; }
  }
}
EOF
nginx_run "$dir" "$port" /nginx_status || true
nginx_require "$dir"
echo "nginx $(nginx -v 2>&1 | sed 's/^nginx version: //') (pid $nginx_pid) on $server:$port"
# Each host reaches nginx (one connection of its own, which also settles its ARP entry).
for i in 0 1 2; do
  for _ in 1 2 3 4 5; do
    # shellcheck disable=SC2086  # hosts[i] is a command prefix
    timeout -k 2 10 ${hosts[i]} "$rateperf" -q --server "$server" --port "$port" --num-conns 1 \
      --timeout 2 --json "$work/reach-$i.json" >/dev/null 2>&1 &&
      result_true "$work/reach-$i.json" '{/totals/replies} == 1' && break
    sleep 0.2
  done
  check "client host $i reaches nginx" "$(result_get "$work/reach-$i.json" '{/totals/replies}')" 1
done
((fail == 0)) || exit 1

# (3) A run. run_case NAME SHARDS ARG...: the schedule as SHARDS processes, shard i on client
# host i with the template's arguments and ARGs, all from one --start-at 1.5 s ahead, while
# tcpdump records the SYNs to nginx on the bridge; then their merged dump checked against
# nginx's counts and the schedule, and the SYNs' gaps (scripts/lib/syn_gaps.py) written to
# $out/syn.json, where out is the run's directory.
run_case() {
  local name=$1 shards=$2 i ns start capture status a0 r0 a1 r1 fields
  local replies opened errors offered window count syns retransmits dropped mean cv share
  shift 2
  out=$work/$name
  mkdir -p "$out"
  # tcpdump hands the packets to its file in blocks, and one cut short by a signal is lost: it
  # ends by itself with the run's last SYN (-c), and only a run with SYNs missing waits for the
  # SIGINT of timeout.
  server_start "$out/tcpdump.log" timeout -s INT -k 2 12 tcpdump -i br0 -n -B 16384 -s 96 \
    -c "$conns" -w "$out/syn.pcap" \
    "tcp dst port $port and tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn"
  capture=$server_pid
  for ((i = 0; i < 50; i++)); do
    grep -q 'listening on' "$out/tcpdump.log" && break
    sleep 0.1
  done
  read -r a0 r0 < <(nginx_status_counts "$port")
  ns=$(($(date +%s%N) + 1500000000))
  start=${ns:0:-9}.${ns: -9:3}
  run_pids=()
  for ((i = 0; i < shards; i++)); do
    shard_args "$server" "$port" "$rate" "$conns" "$i/$shards" "$start" "$out/shard-$i.dump" ||
      { echo "FAIL: examples/distributed/shard-args.sh could not fill its template"; exit 1; }
    # shellcheck disable=SC2086  # hosts[i] is a command prefix
    timeout -k 2 30 ${hosts[i]} "$rateperf" "${shard_argv[@]}" "$@" --json "$out/shard-$i.json" \
      >"$out/shard-$i.txt" 2>"$out/shard-$i.err" &
    run_pids+=("$!")
  done
  for ((i = 0; i < shards; i++)); do
    status=0
    wait "${run_pids[i]}" || status=$?
    check "($name) shard $i/$shards: exit status" "$status" 0
    ((status == 0)) || head -n 5 "$out/shard-$i.err"
    check "($name) shard $i/$shards: /totals/replies" \
      "$(result_get "$out/shard-$i.json" '{/totals/replies}')" $((conns / shards))
    grep -E '^(Total|Offered|Client lag)' "$out/shard-$i.txt" |
      sed "s|^|($name) shard $i/$shards: |"
  done
  run_pids=()
  read -r a1 r1 < <(nginx_status_counts "$port")
  # server_stop then only takes tcpdump, ended, off the list of servers to stop.
  wait "$capture" || true; server_stop "$capture"

  status=0
  timeout -k 2 30 "$rateperf" merge --json "$out/merged.json" "$out"/shard-*.dump \
    >"$out/merged.txt" 2>"$out/merged.err" || status=$?
  echo "($name) rateperf merge (stderr: $(tr '\n' ' ' <"$out/merged.err")):"
  cat "$out/merged.txt"
  fields='{/totals/replies} {/totals/connections} {/errors/total}'
  fields+=' {/schedule/offered_rate_per_s:.1f} {/schedule/intended_window_s:.6f}'
  fields+=' {/config/shard/count}'
  read -r replies opened errors offered window count < <(result_get "$out/merged.json" "$fields")
  echo "($name) nginx served $((r1 - r0 - 1)) requests on $((a1 - a0 - 1)) connections"
  check "($name) merge: exit status" "$status" 0
  check "($name) merged /totals/replies" "$replies" "$conns"
  check "($name) nginx's requests served = merged replies" "$((r1 - r0 - 1))" "$replies"
  check "($name) nginx's connections accepted = merged /totals/connections" \
    "$((a1 - a0 - 1))" "$opened"
  check "($name) merged /errors/total" "$errors" 0
  check "($name) merged /schedule/offered_rate_per_s" "$offered" "$rate.0"
  # The schedule's gap is whole nanoseconds, so its window is (N - 1) / rate within N ns; the
  # shards' and threads' must be the single process's to the nanosecond.
  if [[ $name == single ]]; then
    check "(single) /schedule/intended_window_s, to the ms" "$(printf %.3f "$window")" "$window_s"
    single_window=$window
  else
    check "($name) merged /schedule/intended_window_s = single's" "$window" "$single_window"
  fi
  check "($name) merged /config/shard/count (the whole schedule)" "$count" 1

  "$results_python" scripts/lib/syn_gaps.py "$out/syn.pcap" "$port" "$nominal_gap_us" \
    "$out/tcpdump.log" >"$out/syn.json"
  read -r syns retransmits dropped mean cv share < <(result_get "$out/syn.json" \
    '{/syns} {/retransmits} {/dropped} {/mean_gap_us:.1f} {/cv:.4f} {/share_within_10pct:.3f}')
  echo "($name) SYNs: $syns, retransmitted $retransmits; gaps: mean $mean us" \
    "(nominal $nominal_gap_us), CV $cv, within 10 % of nominal $share"
  check "($name) first SYNs on the bridge" "$syns" "$conns"
  check "($name) packets tcpdump dropped" "$dropped" 0
}

# (4) The spacing. spaced_run NAME SHARDS ARG...: run_case, then its SYN gaps against the single
# process's: the CV at most twice its, and the share of gaps within 10 % of the nominal gap at
# least half its. Both are ruled by the machine's stalls and by how busy its two cores are: on
# this shared machine one stall of 5 ms in a run (which rateperf reports as lag) lifts the CV
# from about 0.08 to 0.23, and one comes in some runs of ten, to any process; in the sanitizer
# run three instrumented shards take some 80 % of a core each, and one CI run's shards had a
# share of 0.17 with a CV within bounds. So a run that fails either is run again, up to three
# attempts: a shard out of phase, which would cut the share to a third or less, fails all three.
spaced_run() {
  local name=$1 attempt label cv share lag
  shift
  for attempt in 1 2 3; do
    label=$name
    ((attempt == 1)) || label+=-$attempt
    run_case "$label" "$@"
    read -r cv share < <(result_get "$out/syn.json" '{/cv:.4f} {/share_within_10pct:.3f}')
    if result_true "$out/syn.json" "{/share_within_10pct} >= 0.5 * $single_share and
        {/cv} <= 2 * $single_cv"; then
      echo "ok: ($label) share of SYN gaps within 10 % of nominal $share >= half the single's" \
        "$single_share"
      echo "ok: ($label) CV of the SYN gaps $cv <= 2 x single's $single_cv"
      return
    fi
    lag=$(result_get "$out/merged.json" '{/lag/max_ms:.1f} ms, {/lag/late_arrivals}')
    echo "note: ($label) share of SYN gaps within 10 % of nominal $share (single's" \
      "$single_share), CV $cv (single's $single_cv); rateperf's lag: max $lag arrivals more" \
      "than 1 ms late"
  done
  echo "FAIL: ($name) share of SYN gaps < half the single's or CV > 2 x single's in 3 attempts"
  fail=1
}

run_case single 1
read -r single_cv single_share < <(result_get "$out/syn.json" '{/cv:.4f} {/share_within_10pct:.4f}')
spaced_run shards 3
spaced_run threads 1 --threads 2

nginx_finish multihost_nginx "$dir"
