#!/usr/bin/env bash
# Runs the README's demo in a short form (8 s per rate) and checks the shape a user should see:
# no errors below the demo server's capacity (200 replies/s); above it, a reply rate that stays
# near capacity, reply times in the seconds, and errors.
#   tests/demo_test.sh RATEPERF_BIN DEMO_SERVER_BIN
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
table=$(RATEPERF=$1 RATEPERF_DEMO_SERVER=$2 scripts/demo --build-dir "$work" --seconds 8 \
        --rates "100 400" 2>"$work/stderr") || { cat "$work/stderr" >&2; exit 1; }
echo "$table"

# Columns: rate, connection time avg, CPU %, reply time, reply rate avg, errors, client-timo.
row() { echo "$table" | awk -F'|' -v rate="$1" '$2 + 0 == rate { print $3, $4, $5, $6, $7, $8 }'; }
read -r _ cpu100 reply100 rate100 errors100 timo100 <<<"$(row 100)"
read -r _ _ reply400 rate400 errors400 _ <<<"$(row 400)"

fail=0
check() { if ! awk "BEGIN { exit !($2) }"; then echo "FAIL: $1 ($2)" >&2; fail=1; fi; }
check "no errors at 100/s" "$errors100 == 0 && $timo100 == 0"
check "every reply at 100/s" "$rate100 > 90 && $rate100 < 110"
check "fast replies at 100/s" "$reply100 < 500"
check "reply rate flat near capacity at 400/s" "$rate400 > 170 && $rate400 < 230"
check "reply time in the seconds at 400/s" "$reply400 > 1000"
check "errors at 400/s" "$errors400 > 0"
# A client that sleeps between arrivals spends 1 to 2 % of a core at 100 conn/s (measured 0.8
# to 2.1 in CI's runs); one that polled its loop would spend a whole core, and one that spent
# three times as much per connection would fail too.
report=$(sed -n 's/^HTML report: //p' <<<"$table")
sections=$(grep -o 'data-kind="run"' "$report" 2>/dev/null | wc -l)
check "the HTML report of the two runs ($report: $sections run sections)" "$sections == 2"
# Under the sanitizers (scripts/test-sanitizers sets ASAN_OPTIONS) the instrumented client,
# sharing two cores with the other instrumented suites, spent 5.8 % (CI of 3c1d763): there the
# bound only tells a sleeping loop from a polling one.
cpu_bound=5
[[ -n ${ASAN_OPTIONS:-} ]] && cpu_bound=25
check "cheap client (CPU $cpu100 % at 100/s)" "$cpu100 < $cpu_bound"
exit "$fail"
