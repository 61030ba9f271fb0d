# Builds a shard's command line from the template shard-args beside this file; sourced by
# pdsh-run and slurm-run.sh, and by tests that run shards.
# shellcheck shell=bash

shard_args_file=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/shard-args

# Stands for a shard's rank in a command line that every shard is given alike (the --shard or
# --dump value): each shard puts its own rank in its place before running it.
# shellcheck disable=SC2034  # used by the scripts that source this file
shard_rank_marker=@RANK@

# shard_args SERVER PORT RATE NUM_CONNS SHARD START_AT DUMP: sets the array shard_argv to the
# arguments of the template, each ${NAME} replaced by the value given for NAME. The values are
# copied, never evaluated. Fails (status 2, a line on stderr) on an empty value, an unknown or
# unclosed placeholder, or a template it cannot read.
shard_args() {
  if (($# != 7)); then
    echo "shard_args: 7 values expected (SERVER PORT RATE NUM_CONNS SHARD START_AT DUMP)," \
         "got $#" >&2
    return 2
  fi
  local -A value=([SERVER]=$1 [PORT]=$2 [RATE]=$3 [NUM_CONNS]=$4 [SHARD]=$5 [START_AT]=$6
                  [DUMP]=$7)
  local name line rest out number=0
  for name in SERVER PORT RATE NUM_CONNS SHARD START_AT DUMP; do
    [[ -n ${value[$name]} ]] || { echo "shard_args: $name is empty" >&2; return 2; }
  done
  [[ -r $shard_args_file ]] || { echo "shard_args: cannot read $shard_args_file" >&2; return 2; }
  shard_argv=()
  while IFS= read -r line || [[ -n $line ]]; do
    number=$((number + 1))
    [[ -z $line || $line == '#'* ]] && continue
    out=
    while [[ $line == *\$\{* ]]; do
      out+=${line%%\$\{*}
      rest=${line#*\$\{}
      name=${rest%%'}'*}
      if [[ $rest != *'}'* || ! $name =~ ^[A-Z_]+$ || -z ${value[$name]+set} ]]; then
        echo "shard_args: $shard_args_file:$number: unknown or unclosed placeholder in '$line'" >&2
        return 2
      fi
      out+=${value[$name]}
      line=${rest#*'}'}
    done
    shard_argv+=("$out$line")
  done <"$shard_args_file"
}
