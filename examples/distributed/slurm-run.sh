#!/usr/bin/env bash
# Runs one rateperf schedule over the tasks of a Slurm job: each task, one a node, runs the
# shard that --shard env gives it (SLURM_PROCID of SLURM_NTASKS), all from one start set here;
# each writes its dump to OUTDIR, on a file system that every node shares, and the dumps are
# merged into one report at the end.
#
# Usage: sbatch [SBATCH OPTIONS] examples/distributed/slurm-run.sh SERVER PORT RATE NUM_CONNS OUTDIR
#   from the repository or from examples/distributed (the job looks for shard-args.sh there)
#   RATE, NUM_CONNS   of the whole run, all shards together
#   OUTDIR            gets shard-I.dump, shards.txt (each shard's report), report.txt and
#                     merged.json (the merge)
#   --ntasks=N        on sbatch's command line: N shards instead of 3
# Environment: RATEPERF names rateperf on the nodes (default rateperf), RATEPERF_LEAD the
# seconds from now to the common start (default 15), time for srun to start every task.
#
#SBATCH --job-name=rateperf
#SBATCH --ntasks=3
#SBATCH --ntasks-per-node=1
#SBATCH --exclusive
#SBATCH --time=00:30:00
#SBATCH --output=rateperf-%j.out
set -euo pipefail

# Prints the usage above; to stdout for --help, to stderr (and status 2) after a bad argument.
usage() { sed -n 's/^# \{0,1\}//; 7,14p' "$0"; exit "${1:-0}"; }

[[ ${1:-} == -h || ${1:-} == --help ]] && usage 0
(($# == 5)) || { echo "slurm-run: 5 arguments expected, got $#" >&2; usage 2 >&2; }
: "${SLURM_NTASKS:?not in a Slurm job: submit it with sbatch}"
server=$1 port=$2 rate=$3 num_conns=$4
mkdir -p "$5"
outdir=$(cd "$5" && pwd)
rateperf=${RATEPERF:-rateperf}
lead=${RATEPERF_LEAD:-15}

# sbatch runs a copy of this script from its spool directory: look beside it, then where
# sbatch was called.
for dir in "$(dirname "$0")" "${SLURM_SUBMIT_DIR:-.}" "${SLURM_SUBMIT_DIR:-.}/examples/distributed"
do
  [[ -f $dir/shard-args.sh ]] && break
done
[[ -f $dir/shard-args.sh ]] || { echo "slurm-run: no shard-args.sh (see the usage)" >&2; exit 2; }
# shellcheck source=examples/distributed/shard-args.sh
source "$dir/shard-args.sh"

start=$(date -u -d "+$lead sec" +%Y-%m-%dT%H:%M:%SZ)
shard_args "$server" "$port" "$rate" "$num_conns" env "$start" \
           "$outdir/shard-$shard_rank_marker.dump"

echo "slurm-run: $SLURM_NTASKS shards, starting at $start" >&2
# srun gives every task the same command line; each task's shell puts its own rank in place
# of the marker. A task that fails ends the others: the merge needs every shard.
# shellcheck disable=SC2016  # the task's shell expands them
srun --kill-on-bad-exit=1 --label \
  bash -c 'marker=$1; shift; exec "${@//"$marker"/$SLURM_PROCID}"' task "$shard_rank_marker" \
  "$rateperf" "${shard_argv[@]}" >"$outdir/shards.txt"

dumps=()
for ((i = 0; i < SLURM_NTASKS; i++)); do dumps+=("$outdir/shard-$i.dump"); done
"$rateperf" merge --json "$outdir/merged.json" "${dumps[@]}" | tee "$outdir/report.txt"
echo "slurm-run: each shard's report in $outdir/shards.txt, the merge in $outdir/report.txt" \
     "and $outdir/merged.json" >&2
