# scripts/bench: rateperf's timing modes (--timing) in the measurements (f) to (i); sourced.
# A client is a word: a tool as in clients.sh (httperf, or a rateperf in its default mode), or
# TOOL/MODE, a rateperf run with --timing MODE. Its figures are recorded (figures.sh) as
# NAME_MODE_TOOL, or NAME_TOOL without a mode, which is what mode_row looks for.
# shellcheck shell=bash

timing_modes=(sleep hybrid spin auto)

# has_timing TOOL: true when the binary of the rateperf TOOL (rateperf, baseline) has --timing (a
# baseline built before it has not: it then runs in its default mode only).
declare -A timing_known=()
has_timing() {
  local bin=$rateperf
  [[ $1 == baseline ]] && bin=$baseline
  if [[ -z ${timing_known[$1]:-} ]]; then
    timing_known[$1]=0
    "$bin" --help 2>&1 | grep -q -- '--timing' && timing_known[$1]=1
    ((timing_known[$1])) || log "$1 has no --timing: measured in its default mode only"
  fi
  ((timing_known[$1]))
}

# mode_clients MODE...: sets the array clients to the words of the rateperfs (rateperfs in
# clients.sh) in each MODE, in turn; MODE "-" stands for their default mode (no --timing).
mode_clients() {
  local mode tool
  clients=()
  for mode in "$@"; do
    for tool in $(rateperfs); do
      if [[ $mode == - ]]; then clients+=("$tool")
      elif has_timing "$tool"; then clients+=("$tool/$mode"); fi
    done
  done
}

# client_key WORD: the suffix of the client's recorded figures: MODE_TOOL, or TOOL.
client_key() { if [[ $1 == */* ]]; then echo "${1#*/}_${1%%/*}"; else echo "$1"; fi; }

# run_client WORD RATE CONNS BASE: run_here (clients.sh) of the client WORD, on $port.
run_client() {
  local word=$1
  shift
  if [[ $word == */* ]]; then run_here "${word%%/*}" "$@" --timing "${word#*/}"
  else run_here "$word" "$@"; fi
}

# mode_row FIGURE MODE TARGET NAME:DIGITS...: the row of figures recorded per client: rateperf's
# and the baseline's with --timing MODE ("-": in their default mode), httperf's, and the ratios
# of their medians; the figures of several NAMEs share each cell, joined by " ; ".
mode_row() {
  local figure=$1 mode=$2 target=$3 spec name digits r='' b='' h='' rb='' rh='' sep='' of
  shift 3
  for spec; do
    name=${spec%:*} digits=${spec##*:}
    of=${name}_
    [[ $mode == - ]] || of+=${mode}_
    r+=$sep$(median "${of}rateperf" "$digits")
    b+=$sep$(median "${of}baseline" "$digits")
    h+=$sep$(median "${name}_httperf" "$digits")
    rb+=$sep$(ratio "${of}rateperf" "${of}baseline")
    rh+=$sep$(ratio "${of}rateperf" "${name}_httperf")
    sep=' ; '
  done
  row "$figure" "$r" "$b" "$h" "-" "$rb" "$rh" "-" "$target"
}
