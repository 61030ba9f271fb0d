# Readers of ab's and siege's text reports, as scripts written for those tools read them (by
# their labels), for rateperf --format ab / --format siege and the tools themselves alike;
# sourced.
# shellcheck shell=bash

# ab_fields FILE: what a script written for ab's output reads from it, one line:
# "COMPLETE FAILED DOCLEN TOTAL HTML KEEPALIVE RPS TPR CONNECT_ROWS PERCENT_ROWS", "?" for a
# label it does not find. The same parser for ab's report and rateperf's --format ab.
ab_fields() {
  awk -F':' '
    function val(s) { sub(/^[ \t]+/, "", s); split(s, w, " "); return w[1] }
    /^Complete requests:/ { c = val($2) } /^Failed requests:/ { f = val($2) }
    /^Document Length:/ { d = val($2) } /^Total transferred:/ { t = val($2) }
    /^HTML transferred:/ { h = val($2) } /^Keep-Alive requests:/ { k = val($2) }
    /^Requests per second:/ { r = val($2) }
    /^Time per request:/ && !p { p = val($2) }
    /^(Connect|Processing|Waiting|Total): +[0-9]/ { rows++ }
    /^ +[0-9]+%  +[0-9]+/ { percents++ }
    END { printf "%s %s %s %s %s %s %s %s %d %d\n", c == "" ? "?" : c, f == "" ? "?" : f,
          d == "" ? "?" : d, t == "" ? "?" : t, h == "" ? "?" : h, k == "" ? 0 : k,
          r == "" ? "?" : r, p == "" ? "?" : p, rows, percents }' "$1"
}

# siege_fields FILE: "TRANSACTIONS AVAILABILITY DATA_MB SUCCESSFUL FAILED RATE CONCURRENCY" as a
# parser of siege's report reads them.
siege_fields() {
  awk -F':' '
    function val(s) { sub(/^[ \t]+/, "", s); split(s, w, " "); return w[1] }
    /^Transactions:/ { t = val($2) } /^Availability:/ { a = val($2) }
    /^Data transferred:/ { d = val($2) } /^Successful transactions:/ { s = val($2) }
    /^Failed transactions:/ { f = val($2) } /^Transaction rate:/ { r = val($2) }
    /^Concurrency:/ { c = val($2) }
    END { printf "%s %s %s %s %s %s %s\n", t == "" ? "?" : t, a == "" ? "?" : a,
          d == "" ? "?" : d, s == "" ? "?" : s, f == "" ? "?" : f, r == "" ? "?" : r,
          c == "" ? "?" : c }' "$1"
}
