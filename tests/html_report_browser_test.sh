#!/usr/bin/env bash
# rateperf report in a real browser (docs/report.md): an overload run and a sweep of three rates
# against the demo server, rendered into one page, which headless Chromium loads with every
# host name unresolvable. Checks: no console errors, no request made for the page (Chromium's
# net log), the documented DOM (each chart's series and points, counted from Chromium's DOM, as
# many as the inputs have; the onset and capacity markers), and screenshots that show
# something. The screenshots stay in the directory printed at the end (RATEPERF_SCREENSHOT_DIR
# when set). Skipped (exit 77) without Chromium, which it installs when run as root.
#   tests/html_report_browser_test.sh RATEPERF_BIN DEMO_SERVER_BIN
set -euo pipefail
(($# == 2)) || { echo "usage: tests/html_report_browser_test.sh RATEPERF_BIN DEMO_SERVER_BIN" >&2; exit 2; }
rateperf=$(realpath "$1")
server=$(realpath "$2")
shots=${RATEPERF_SCREENSHOT_DIR:-$PWD/html-report-screenshots}
cd "$(dirname "$0")/.."
# shellcheck source=tests/demo_server_lib.sh
. tests/demo_server_lib.sh

if ! command -v chromium >/dev/null; then
  if [[ $(id -u) -eq 0 ]]; then
    echo "installing chromium" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 || true
  fi
  command -v chromium >/dev/null ||
    { echo "SKIP: chromium is not installed (as root: apt-get install -y chromium)"; exit 77; }
fi

work=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n $server_pid ]]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$shots"

fail=0
check() { if ! eval "$2"; then echo "FAIL: $1" >&2; fail=1; fi; }

# Headless Chromium on a file: no network (every name unresolvable), its log on stderr.
browse() {
  local page=$1
  shift
  timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --host-resolver-rules='MAP * ~NOTFOUND' --enable-logging=stderr --v=0 \
    --user-data-dir="$work/profile" "$@" "file://$page"
}
# The console errors in a Chromium log: script errors and resources that failed to load.
console_errors() { grep -E 'CONSOLE.*(ERROR|Uncaught)|Failed to load resource' "$1" || true; }
# The URLs a page asked for, from Chromium's net log (--log-net-log): the requests made on
# behalf of a file:// page, not the browser's own (updates, accounts).
page_fetches() {
  python3 -c 'import json, sys
urls = {e["params"]["url"] for e in json.load(open(sys.argv[1]))["events"]
        if str(e.get("params", {}).get("network_isolation_key", "")).startswith("file://")
        and "url" in e["params"]}
print("\n".join(sorted(urls)))' "$1"
}

# (1) The detectors themselves, on a page that fetches an image and throws: they must see both.
printf '%s\n' '<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body>' \
  '<img src="http://example.com/x.png"><script>undefined_function();</script></body></html>' \
  >"$work/control.html"
browse "$work/control.html" --dump-dom --log-net-log="$work/control.net.json" >/dev/null \
  2>"$work/control.log"
check "the console check sees a script error" "[[ -n \$(console_errors '$work/control.log') ]]"
check "the net log shows the page's fetch" \
  "[[ \$(page_fetches '$work/control.net.json') == http://example.com/x.png ]]"

# (2) The demo server (capacity 200/s) on a free port; it prints "listening on HOST:PORT".
if ! demo_server_start "$server" "$work"; then
  echo "FAIL: the demo server did not start:" >&2; cat "$work/server.log" >&2; exit 1
fi
server_pid=$demo_pid port=$demo_port
target=(--server 127.0.0.1 --port "$port" --uri / --timeout 2)

# (3) A run at 1.5 x capacity for 5 s (about 7 s with its drain), and a sweep at 100, 200 and
# 300/s (400 connections each).
timeout 60 "$rateperf" "${target[@]}" --rate 300 --num-conns 1500 --interval 0.5 \
  --json "$work/run.json" >"$work/run.txt" 2>&1 || { cat "$work/run.txt" >&2; exit 1; }
scripts/sweep --rates 100,200,300 --csv "$work/sweep.csv" --rateperf "$rateperf" -- \
  "${target[@]}" --num-conns 400 --interval 0.5 >"$work/sweep.txt" 2>&1 ||
  { cat "$work/sweep.txt" >&2; exit 1; }
kill -TERM "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=

# (4) The page, and the command's refusals as a user meets them.
"$rateperf" report "$work/run.json" "$work/sweep.csv" -o "$work/report.html"
"$rateperf" report "$work/run.json" --output "$work/run-report.html"
status=0
"$rateperf" report "$work/run.txt" -o "$work/x.html" 2>"$work/refused.err" || status=$?
check "a text report is refused with status 2, naming it (got $status)" \
  "((status == 2)) && grep -qF '$work/run.txt: not a rateperf result' '$work/refused.err'"
status=0
"$rateperf" report "$work/run.json" -o /nonexistent/report.html 2>"$work/output.err" || status=$?
check "an unwritable -o fails with status 1 and one line (got $status)" \
  "((status == 1)) && [[ \$(cat '$work/output.err') == 'rateperf: -o: /nonexistent/report.html: No such file or directory' ]]"
check "the page fetches nothing" "! grep -qE 'https?://|src=' '$work/report.html'"

# (5) Chromium: the DOM as it parsed it, and screenshots of the whole page and of a run alone.
browse "$work/report.html" --dump-dom --log-net-log="$work/dom.net.json" >"$work/dom.html" \
  2>"$work/dom.log"
fetches=$(page_fetches "$work/dom.net.json")
[[ -z $fetches ]] || { echo "FAIL: the page fetched: $fetches" >&2; fail=1; }
browse "$work/report.html" --screenshot="$shots/report.png" --window-size=1280,5600 \
  >/dev/null 2>"$work/shot.log"
browse "$work/run-report.html" --screenshot="$shots/report-run.png" --window-size=1100,1500 \
  >/dev/null 2>"$work/shot-run.log"
for log in dom shot shot-run; do
  errors=$(console_errors "$work/$log.log")
  [[ -z $errors ]] || { echo "FAIL: console errors ($log): $errors" >&2; fail=1; }
done
for png in report report-run; do
  size=$(stat -c %s "$shots/$png.png" 2>/dev/null || echo 0)
  check "$png.png is a PNG of more than 10 KB ($size bytes)" \
    "((size > 10240)) && [[ \$(head -c 4 '$shots/$png.png' | tail -c 3) == PNG ]]"
done

# The DOM against the inputs: the run's charts have a point per interval of its series, the
# sweep's a point per rate; the run has an onset (it was overloaded), the sweep a capacity.
python3 - "$work/dom.html" "$work/run.json" "$work/sweep.csv" <<'EOF' || fail=1
import html.parser, json, sys

class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.open_series, self.marker = [], None, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and a.get("class") == "input":
            self.sections.append({"kind": a.get("data-kind"), "charts": {}})
        elif tag == "svg" and a.get("class") == "chart":
            self.chart = self.sections[-1]["charts"].setdefault(
                a["data-chart"], {"series": [], "markers": {}})
        elif tag == "g" and a.get("class") == "series":
            self.open_series = [a["data-series"], int(a["data-points"]), 0]
            self.chart["series"].append(self.open_series)
        elif tag == "g" and a.get("class") == "marker":
            self.marker = a["data-marker"]
            self.chart["markers"][self.marker] = ""
        elif tag == "circle" and a.get("class") == "point" and self.open_series:
            self.open_series[2] += 1
    def handle_endtag(self, tag):
        if tag == "g":
            self.open_series, self.marker = None, None
    def handle_data(self, data):
        if self.marker:
            self.chart["markers"][self.marker] += data

dom = Dom()
dom.feed(open(sys.argv[1], encoding="utf-8").read())
points = len(json.load(open(sys.argv[2]))["series"]["points"])
rows = sum(1 for line in open(sys.argv[3]) if not line.startswith("start_time_utc,"))
expected = {
    "run": (points, "onset", {"rates": 2, "latency": 4, "connections": 1, "errors": None}),
    "table": (rows, "capacity", {"reply-rate": 2, "latency": 3, "errors": 1}),
}
failures = []
kinds = [s["kind"] for s in dom.sections]
if kinds != ["run", "table"]:
    failures.append(f"sections {kinds}, expected ['run', 'table']")
for section in dom.sections:
    n, marker, charts = expected[section["kind"]]
    if set(section["charts"]) != set(charts):
        failures.append(f"{section['kind']}: charts {sorted(section['charts'])}")
    for name, chart in section["charts"].items():
        want = charts.get(name)
        series = chart["series"]
        print(f"{section['kind']} {name}: " + ", ".join(f"{s[0]} ({s[2]} points)" for s in series)
              + "".join(f"; {k}: {v.strip()}" for k, v in chart["markers"].items()))
        if (want is not None and len(series) != want) or not series:
            failures.append(f"{section['kind']} {name}: {len(series)} series, expected {want}")
        failures += [f"{section['kind']} {name} {s[0]}: {s[1]} declared, {s[2]} drawn, {n} expected"
                     for s in series if not s[1] == s[2] == n]
        if marker not in chart["markers"]:
            failures.append(f"{section['kind']} {name}: no {marker} marker")
if rows != 3:
    failures.append(f"the sweep has {rows} rows, expected 3")
capacity = dom.sections[-1]["charts"].get("reply-rate", {}).get("markers", {}).get("capacity", "")
if capacity.strip() not in ("capacity 100/s", "capacity 200/s"):
    failures.append(f"sweep capacity '{capacity.strip()}', expected 100/s or 200/s")
for failure in failures:
    print("FAIL:", failure, file=sys.stderr)
sys.exit(1 if failures else 0)
EOF

echo "screenshots: $shots"
exit "$fail"
