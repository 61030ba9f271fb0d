# scripts/bench: the floor client (floor.c), the least CPU any client can use for one-request
# connections at a given rate on this machine, beside rateperf's in (g) and (i); sourced.
# shellcheck shell=bash

floor_bin=''  # the compiled floor client, once floor_ready has built it

# floor_ready: true once floor.c is compiled (into $work); false, said once, without a compiler.
floor_ready() {
  [[ -n $floor_bin ]] && return 0
  [[ -z ${floor_failed:-} ]] || return 1
  if cc -O2 -Wall -o "$work/floor" "$repo/scripts/bench.d/floor.c" 2>"$work/floor.err"; then
    floor_bin=$work/floor
    return 0
  fi
  floor_failed=1
  log "the floor client did not compile: its rows stay empty ($work/floor.err)"
  return 1
}

# floor_run RATE CONNS BASE: the floor client on nginx's $port, on CPU 0 like every client, in
# the namespace in_netns names when set; its line in BASE.txt and its CPU in BASE.json as
# /cpu/total_percent (rateperf's field). False if it did not build or a connection failed.
floor_run() {
  local rate=$1 conns=$2 base=$3 status=0
  floor_ready || return 1
  timeout -k 2 "$(run_limit "$rate" "$conns" 5)" ${in_netns[@]+"${in_netns[@]}"} \
    taskset -c 0 "$floor_bin" 127.0.0.1 "$port" /ok.txt "$rate" "$conns" \
    >"$base.txt" 2>"$base.err" || status=$?
  sleep 0.5
  awk '{ printf "{\"cpu\": {\"total_percent\": %s}, \"totals\": {\"replies\": %s}, \"late\": %s}\n",
         $6, $2, $4 }' "$base.txt" >"$base.json"
  ((status == 0)) || { log "the floor client exited with status $status ($base.err)"; return 1; }
}

# floor_row FIGURE NAME MODE_NAME: a row with the floor's median NAME in rateperf's column and,
# as its target, rateperf's figure MODE_NAME (recorded per mode: modes.sh) divided by it.
floor_row() {
  row "$1" "$(median "$2" 2)" "-" "-" "-" "" "" "" \
    "rateperf auto / floor: $(ratio "$3_auto_rateperf" "$2")"
}
