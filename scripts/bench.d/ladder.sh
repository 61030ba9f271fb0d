# scripts/bench (f): the ladder: the highest rate each client holds, climbing 8000, 10000, ...
# 36000 conn/s, ladder_s seconds a step, until a step is not held (held: clients.sh). The clients
# are httperf, rateperf in its default mode (--timing auto) and rateperf --timing hybrid (and the
# baseline's, with --baseline); sourced.
#
# Each client climbs in a network namespace of its own, new for every repetition, with an nginx
# of its own there (CPU 1): no client meets the TIME_WAIT sockets of another's runs, whose
# number grows with the rate a client holds. Each step connects to a port of that nginx which no
# earlier step used. The clients take their steps in turn, so that a slow spell of the machine
# falls on all of them.
# shellcheck shell=bash

ladder_first=8000 ladder_step=2000 ladder_top=36000
ladder_rates=$(seq "$ladder_first" "$ladder_step" "$ladder_top")
ladder_where="-"  # where the last ladder ran, for the table

# ladder_clients: sets the array clients to those of the ladder, httperf first.
ladder_clients() {
  local default=() hybrid=()
  mode_clients -
  default=("${clients[@]}")
  mode_clients hybrid
  hybrid=("${clients[@]}")
  clients=(httperf "${default[@]}" ${hybrid[@]+"${hybrid[@]}"})
}

# ladder_start WORD: a new network namespace for the client WORD with an nginx of its own in it,
# into ns[WORD] (the namespace's holder), nginx[WORD] and first[WORD] (nginx's first port), which
# the caller declares. Where no namespace can be made (not root), the client climbs in this one,
# on the ports of the bench's nginx (ns and nginx empty).
ladder_start() {
  local word=$1 port0 port  # start_nginx's, kept apart from those of the bench's nginx
  local -a in_netns=()
  ns[$word]='' nginx[$word]='' first[$word]=''
  if ! netns_new; then
    log "(f) no network namespace of its own for $word: it climbs in this one"
    ladder_where="this network namespace (not root)"
    return 0
  fi
  ns[$word]=$netns_pid
  start_nginx "$work/nginx-f-$(client_key "$word")"
  nginx[$word]=$server_pid first[$word]=$port0
  ladder_where="a new network namespace per client and repetition"
}

# server_ticks PID: the CPU time (user + system clock ticks) the process PID has used so far.
server_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# ladder_stop WORD: stops the nginx and ends the namespace of ladder_start.
ladder_stop() {
  [[ -z ${nginx[$1]} ]] || server_stop "${nginx[$1]}"
  [[ -z ${ns[$1]} ]] || server_stop "${ns[$1]}"
  rm -rf "$work/nginx-f-$(client_key "$1")"
}

measure_f() {
  local rep=$1 word rate base conns step=0 port
  local -a in_netns=()
  local -A ns=() nginx=() first=() top=() climbing=() busy=()
  ladder_clients
  for word in "${clients[@]}"; do
    ladder_start "$word"
    top[$word]=0 climbing[$word]=1
  done
  for rate in $ladder_rates; do
    conns=$((rate * ladder_s))
    order "${clients[@]}"
    for word in "${ordered[@]}"; do
      ((climbing[$word])) || continue
      if [[ -n ${ns[$word]} ]]; then
        in_netns=(nsenter "--net=/proc/${ns[$word]}/ns/net")
        port=$((first[$word] + step))
      else
        in_netns=()
        next_port
      fi
      base=$out/f-$(client_key "$word")-r$rep-$rate
      # nginx's CPU over the step, in % of its core: at 100 the server, not the client, is the
      # limit, and the ladder cannot tell the clients apart.
      local ticks0=0
      [[ -z ${nginx[$word]} ]] || ticks0=$(server_ticks "${nginx[$word]}")
      run_client "$word" "$rate" "$conns" "$base"
      if held "$base" "$rate" "$conns"; then top[$word]=$rate; else climbing[$word]=0; fi
      if [[ -n ${nginx[$word]} ]] && ((climbing[$word])); then
        busy[$word]=$(awk -v t="$(( $(server_ticks "${nginx[$word]}") - ticks0 ))" \
          -v s="$ladder_s" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", 100 * t / hz / s }')
      fi
    done
    step=$((step + 1))
  done
  for word in "${clients[@]}"; do
    ladder_stop "$word"
    log "(f) rep $rep: $word holds ${top[$word]} conn/s (nginx ${busy[$word]:-?} % busy there)"
    record "f_held_$(client_key "$word")" "${top[$word]}"
    [[ -z ${busy[$word]:-} ]] || record "f_server_$(client_key "$word")" "${busy[$word]}"
  done
}

rows_f() {
  local what="highest held rate [conn/s] ($ladder_first to $ladder_top by $ladder_step, ${ladder_s}-s steps, within 1 %, 0 errors; $ladder_top: every step held; 0: none; $ladder_where)"
  if wants f; then
    mode_row "(f) ladder: $what, rateperf in its default mode (auto)" - \
      ">= httperf (aim: 1.2x)" f_held:0
    mode_row "(f) ladder: the same, rateperf --timing hybrid" hybrid ">= httperf (aim: 1.2x)" f_held:0
    mode_row "(f) ladder: nginx's CPU at each client's highest held step [% of its core] (near 100: the server capped the ladder)" \
      - "" f_server:0
  else
    row "(f) ladder" "not measured" "not measured" "not measured" "-" "" "" "" ""
  fi
}
