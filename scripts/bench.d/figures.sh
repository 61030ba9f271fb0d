# scripts/bench: figures over the repetitions, and the table's rows; sourced. Each measurement
# appends one value per repetition to $out/values/NAME (NAME ends in the tool: _rateperf,
# _baseline, _httperf); the table prints the median and min..max.
# shellcheck shell=bash

# record NAME VALUE: one repetition's value ("?" when the run had none; it is left out).
record() { echo "$2" >>"$out/values/$1"; }

# spread DIGITS: "median (min..max)" of the numbers on standard input, or "n/a" without any.
spread() {
  sort -g | awk -v digits="$1" '
    { v[NR] = $1 }
    END {
      if (NR == 0) { print "n/a"; exit }
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      f = "%." digits "f"
      if (NR == 1) printf f "\n", m
      else printf f " (" f ".." f ")\n", m, v[1], v[NR]
    }'
}
# median NAME [DIGITS]: "median (min..max)" of the recorded values, or "n/a".
median() {
  local file=$out/values/$1
  [[ -s $file ]] || { echo "n/a"; return; }
  grep -v '^?$' "$file" | spread "${2:-1}"
}
# value NAME: the bare median, for ratios.
value() {
  local file=$out/values/$1
  [[ -s $file ]] || { echo ""; return; }
  grep -v '^?$' "$file" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR) printf "%.9g\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# sum_of NAME: the sum of the recorded values (0 without any).
sum_of() {
  local file=$out/values/$1
  [[ -s $file ]] || { echo 0; return; }
  grep -v '^?$' "$file" | awk '{ t += $1 } END { printf "%.9g\n", t }'
}
# tally NAME: "K of N" for values recorded as 1 (yes) or 0 (no, or "?"), or "n/a".
tally() {
  local file=$out/values/$1
  [[ -s $file ]] || { echo "n/a"; return; }
  awk '$1 == 1 { k++ } END { printf "%d of %d\n", k, NR }' "$file"
}
# ratio NAME NAME: the ratio of the two medians, "n/a" when either is missing or the second is 0.
ratio() {
  local a b
  a=$(value "$1"); b=$(value "$2")
  if [[ -z $a || -z $b ]]; then echo "n/a"; return; fi
  awk -v a="$a" -v b="$b" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f\n", a / b }'
}
# paired NAME NAME: the median of the repetitions' own ratios (the first's value of repetition i
# over the second's of repetition i), "n/a" without one: for figures measured in the same spell
# of the machine each repetition and apart between repetitions, where the ratio of the two
# medians would pair one spell's figure with another's.
paired() {
  local a=$out/values/$1 b=$out/values/$2
  [[ -s $a && -s $b ]] || { echo "n/a"; return; }
  paste "$a" "$b" | awk '$1 != "?" && $2 != "?" && $2 != 0 { print $1 / $2 }' | spread 2
}

# row FIGURE RATEPERF BASELINE HTTPERF WRK RATEPERF/BASELINE RATEPERF/HTTPERF RATEPERF/WRK TARGET:
# one row of the table; the baseline's two columns only with --baseline.
row() {
  if [[ -n $baseline ]]; then
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@"
  else
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$4" "$5" "$7" "$8" "$9"
  fi
}

# tool_row FIGURE NAME DIGITS WRK RATEPERF/WRK TARGET: the row of a figure recorded for every
# tool as NAME_rateperf, NAME_baseline and NAME_httperf.
tool_row() {
  local name=$2 digits=$3
  row "$1" "$(median "${name}_rateperf" "$digits")" "$(median "${name}_baseline" "$digits")" \
    "$(median "${name}_httperf" "$digits")" "$4" "$(ratio "${name}_rateperf" "${name}_baseline")" \
    "$(ratio "${name}_rateperf" "${name}_httperf")" "$5" "$6"
}
