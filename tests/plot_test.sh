#!/usr/bin/env bash
# Plots a small sweep CSV with scripts/plot and checks what a user relies on: a PNG and an SVG
# next to the CSV (or at the prefix given), both non-empty and of the right format, the same
# figure whatever the column order (columns are found by name, a quoted URI with a comma
# included), and a one-line error naming a missing column.
# It also checks that scripts/plot leaves no stray file in its working directory.
#   tests/plot_test.sh RATEPERF_BIN    (exits 77, meson's skip code, without gnuplot)
set -euo pipefail
(($# == 1)) || { echo "usage: tests/plot_test.sh RATEPERF_BIN" >&2; exit 2; }
rateperf=$(realpath "$1")
cd "$(dirname "$0")/.."
repo=$PWD

if ! command -v gnuplot >/dev/null; then
  if [[ $(id -u) -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox >/dev/null 2>&1 || true
  fi
  command -v gnuplot >/dev/null || { echo "SKIP: gnuplot-nox not installed"; exit 77; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail=0
check() { if ! eval "$2"; then echo "FAIL: $1" >&2; fail=1; fi; }

# A TCP port on 127.0.0.1 where nothing listens: bound by python, then released.
closed_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A sweep against a server with a capacity of about 120 replies/s: below it every connection
# is answered within milliseconds; above it the reply rate stays at capacity, reply times climb
# to seconds and connections time out. The values are given here by column name ("|" between
# fields); the CSV below takes its header, names and order, from a real `rateperf --csv -` run,
# so that a renamed column fails this test, not only users' plots. Columns rateperf writes that
# the table lacks get 0.
names="start_time_utc|server|port|uri|offered_rate_per_s|num_conns|timeout_s|seed|duration_s|\
issue_window_s|issued_rate_per_s|connections|requests|replies|connection_rate_per_s|\
max_concurrent|request_rate_per_s|reply_rate_min_per_s|reply_rate_avg_per_s|\
reply_rate_max_per_s|reply_rate_stddev_per_s|reply_rate_samples|reply_time_response_ms|\
reply_time_transfer_ms|connection_time_avg_ms|connection_time_median_ms|connect_time_avg_ms|\
latency_p50_ms|latency_p90_ms|latency_p99_ms|latency_p999_ms|latency_max_ms|lag_p99_ms|\
max_burst|cpu_total_percent|net_io_kb_per_s|errors_total|client_timo|socket_timo|connrefused|\
connreset|fd_unavail|addrunavail|ftab_full|other|parse_errors|status_1xx|status_2xx|status_3xx|\
status_4xx|status_5xx|interrupted"
rows=(
"2024-05-01T12:00:00Z|127.0.0.1|8080|/search?q=a,b|50.000|1500|2.000|1|30.004|29.980|50.040|1500|1500|1500|49.993|3|49.993|49.800|50.000|50.200|0.130|6|1.210|0.080|1.420|1.500|0.110|1.350|2.100|3.480|5.900|7.200|0.060|1|1.100|14.300|0|0|0|0|0|0|0|0|0|0|0|1500|0|0|0|0"
"2024-05-01T12:00:40Z|127.0.0.1|8080|/search?q=a,b|100.000|3000|2.000|1|30.010|29.990|100.033|3000|3000|3000|99.967|5|99.967|99.400|99.900|100.400|0.350|6|1.530|0.090|1.750|1.500|0.120|1.700|3.300|6.100|11.800|14.500|0.070|1|1.900|28.500|0|0|0|0|0|0|0|0|0|0|0|3000|0|0|0|0"
"2024-05-01T12:01:20Z|127.0.0.1|8080|/search?q=a,b|150.000|4500|2.000|1|32.000|29.993|150.035|4500|4400|4300|140.625|260|137.500|118.200|120.300|121.900|1.300|6|852.400|0.100|870.200|840.500|0.150|905.000|1650.000|2400.000|2990.000|3010.000|0.080|2|3.800|34.100|200|120|0|0|80|0|0|0|0|0|0|4300|0|0|0|0"
"2024-05-01T12:02:00Z|127.0.0.1|8080|/search?q=a,b|200.000|6000|2.000|1|32.100|29.995|200.033|6000|5100|3850|186.916|270|158.879|117.500|119.900|121.800|1.500|6|1910.000|0.100|1950.000|1990.500|0.160|1980.000|2950.000|4800.000|5300.000|5400.000|0.090|2|4.700|33.900|2150|1400|0|0|750|0|0|0|0|0|0|3850|0|0|0|0"
)

# The real header: rateperf's CSV on stdout, from one connection to a port where nothing
# listens (refused at once).
header=$("$rateperf" --server 127.0.0.1 --port "$(closed_port)" --num-conns 1 --csv - 2>/dev/null |
         head -n 1)
IFS=, read -r -a header_columns <<<"$header"
check "rateperf --csv - printed a header (got '$header')" "((${#header_columns[@]} > 10))"
IFS='|' read -r -a names_list <<<"$names"
declare -A known=()
for column in "${header_columns[@]}"; do known[$column]=1; done
for name in "${names_list[@]}"; do
  check "rateperf's CSV still has the column $name" "[[ -n \${known[$name]:-} ]]"
done
((fail == 0)) || exit 1

# Writes the header and the rows as CSV with the columns named in the order given: each value
# looked up by name, quoted where RFC 4180 needs it, 0 for a column the table has no value for.
write_csv() {
  local -a order=("$@") fields
  local -A value_of
  local line name value out i
  out=
  for name in "${order[@]}"; do out+=${out:+,}$name; done
  echo "$out"
  for line in "${rows[@]}"; do
    IFS='|' read -r -a fields <<<"$line"
    value_of=()
    for i in "${!names_list[@]}"; do value_of[${names_list[i]}]=${fields[i]}; done
    out=
    for name in "${order[@]}"; do
      value=${value_of[$name]:-0}
      if [[ $value == *[,\"]* ]]; then value="\"${value//\"/\"\"}\""; fi
      out+=${out:+,}$value
    done
    echo "$out"
  done
}

forward=("${header_columns[@]}")
backward=()
for ((i = ${#header_columns[@]} - 1; i >= 0; i--)); do backward+=("${header_columns[i]}"); done

# scripts/plot runs from an empty directory of its own: it must write nothing but the figures
# it names (an awk "x > 0 ? ..." once wrote a file named "1" into the current directory).
cwd=$work/cwd
mkdir "$cwd"
plot() { (cd "$cwd" && "$repo/scripts/plot" "$@"); }
check_cwd_empty() {
  local left
  left=$(ls -A "$cwd")
  check "scripts/plot $1 left no file in its working directory (found: $left)" "[[ -z '$left' ]]"
}

# (1) Columns in rateperf's order; the default output prefix is the CSV without .csv.
mkdir "$work/a" "$work/b"
write_csv "${forward[@]}" >"$work/a/sweep.csv"
status=0
plot "$work/a/sweep.csv" >"$work/plot.out" 2>&1 || status=$?
check "scripts/plot exits 0 (got $status: $(cat "$work/plot.out"))" "((status == 0))"
check_cwd_empty "(rateperf's column order)"
for ext in png svg; do
  check "sweep.$ext exists next to the CSV and is not empty" "[[ -s '$work/a/sweep.$ext' ]]"
done
magic=$(head -c 8 "$work/a/sweep.png" | od -An -tx1 | tr -d ' \n')
check "the PNG starts with the PNG signature (got '$magic')" "[[ '$magic' == 89504e470d0a1a0a ]]"
check "the SVG is an SVG document" "grep -q '<svg' '$work/a/sweep.svg'"
for title in "Achieved reply rate vs offered rate" "Reply time vs offered rate" \
             "Errors vs offered rate" "offered rate [conn/s]"; do
  check "the figure shows '$title'" "grep -qF '$title' '$work/a/sweep.svg'"
done
check "the title names the target, comma and all" "grep -qF '127.0.0.1:8080/search?q=a,b' '$work/a/sweep.svg'"

# (2) The same data with the columns reversed, to an explicit prefix: the same figure.
write_csv "${backward[@]}" >"$work/b/reversed.csv"
check "the reversed CSV really differs" "! cmp -s '$work/a/sweep.csv' '$work/b/reversed.csv'"
status=0
plot "$work/b/reversed.csv" "$work/b/figure" >"$work/plot.out" 2>&1 || status=$?
check "scripts/plot with a prefix exits 0 (got $status: $(cat "$work/plot.out"))" "((status == 0))"
check_cwd_empty "(reversed columns)"
check "the prefix is used for the PNG" "[[ -s '$work/b/figure.png' ]]"
check "column order does not change the figure" "cmp -s '$work/a/sweep.svg' '$work/b/figure.svg'"

# (3) A CSV without a column the figure needs: a clear error, no figure.
without_p99=()
for column in "${header_columns[@]}"; do
  [[ $column == latency_p99_ms ]] || without_p99+=("$column")
done
write_csv "${without_p99[@]}" >"$work/c.csv"
status=0
plot "$work/c.csv" >"$work/plot.out" 2>&1 || status=$?
check "a missing column fails (got $status)" "((status != 0))"
check "the error names latency_p99_ms" "grep -q 'no column latency_p99_ms' '$work/plot.out'"
check "no figure for a bad CSV" "[[ ! -e '$work/c.png' ]]"
check_cwd_empty "(a missing column)"

((fail == 0)) || exit 1
echo "PASS"
