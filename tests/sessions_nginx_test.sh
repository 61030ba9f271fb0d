#!/usr/bin/env bash
# Sessions (issue 16, point 7) against Debian's nginx, checked on the server's side: a --wsesslog
# file of two session templates with POST and PUT bodies (one with escapes decoded into newline,
# tab, quote and backslash characters, one of 16000 bytes), think times, per-request headers, a
# query string and a burst, run 6 times round-robin; then a --wsess run. nginx proxies every
# request to a second server block of its own, so that it reads each body into memory, and logs
# each one with its method, URI, X-Session and X-Step headers, Content-Length, body and status.
# After each run the log must hold exactly the requests the file sends, each as many times as
# its template ran, bodies and headers whole and no header on a request that gave none; as many
# as rateperf's requests and replies, no error, every session completed, none failed, the
# session figures of the JSON consistent with that (the length histogram, connections per
# session against the connections nginx saw, the lifetime at least the think times). Then the
# usage errors of the session options: exit 2, one stderr line naming the file and line, the
# option or the path.
#   tests/sessions_nginx_test.sh RATEPERF_BIN
# Runs nginx on two free ports of 127.0.0.1, stopped by its PID; as root it installs nginx with
# apt-get when missing. About 1 s of load, 4 s in all.
# Exit status: 0 passed, 1 a check failed, 77 no nginx (not root, or apt-get failed: says why).
set -euo pipefail
(($# == 1)) || { echo "usage: tests/sessions_nginx_test.sh RATEPERF_BIN" >&2; exit 2; }
rateperf=$(realpath "$1")
cd "$(dirname "$0")/.."
# shellcheck source=tests/nginx_lib.sh
. tests/nginx_lib.sh

# The session file: two templates. One: a POST with two headers and think=0.2; a burst of three
# GETs (/page1 with a query string and both headers, then indented /img1.png with no header and
# /img2.png with X-Step alone and timeout=), the default think time after it; a POST whose
# double-quoted body decodes to a newline, a tab, a quote and a backslash. Two: a GET with think=0.1, then a PUT of 16000
# bytes that count up (k0000=v&k0001=v&...), so that a cut or a reordered piece shows.
big=$(printf 'k%04d=v&' {0..1999})
sessions=$work/sessions.log
cat >"$sessions" <<EOF
# session one
/login method=POST contents='user=a&pass=b' header='X-Session: one' header='X-Step: login' think=0.2
/page1?tab=2&x=y header='X-Session: one' header='X-Step: page1'
	/img1.png
  /img2.png header='X-Step: img2' timeout=2
/logout method=POST contents="bye\\nnow\\tthen \\"quoted\\" back\\\\slash" header='X-Session: one'

# session two
/other header='X-Session: two' think=0.1
/upload method=PUT contents='$big' header="X-Session: two" header='X-Step: big'
EOF

# (1) Usage errors, which need no server (usage_error: tests/nginx_lib.sh).
printf '# a comment\n/a\n/b foo=1\n' >"$work/unknown.log"
usage_error "^rateperf: $(ere "$work/unknown.log"):3: .*foo" \
  --wsesslog 1,0,"$work/unknown.log" --rate 10
printf "/a method=POST contents='open\n" >"$work/unclosed.log"
usage_error "^rateperf: $(ere "$work/unclosed.log"):1: .*quote" \
  --wsesslog 1,0,"$work/unclosed.log" --rate 10
usage_error '--wsess' --wsess 1,1,0 --wsesslog 1,0,"$sessions" --rate 10
usage_error "$(ere "$work/missing.log")" --wsesslog 1,0,"$work/missing.log" --rate 10

# (2) nginx: installed as root when missing, else the test is skipped.
nginx_ensure "$work/apt.log" || exit $((fail ? 1 : 77))

# One process, no daemon, everything under $work/nginx. The front server on PORT passes every
# request to the back one on PORT2, which answers "ok"; proxy_pass makes nginx read the body
# (into memory: client_body_buffer_size is above the largest), which fills $request_body for the
# front server's log, one line a request with its values JSON-escaped (a newline reads \n).
# $connection, the serial number of the client's connection, counts the connections that carried
# requests. keepalive_requests is far above any session's calls, so nginx never closes one.
dir=$work/nginx
mkdir -p "$dir/tmp"
log=$dir/access.log
nginx_pid=
for _ in 1 2 3; do
  port=$(ports_free)
  port2=$(ports_free)
  [[ $port2 != "$port" ]] || continue
  cat >"$dir/nginx.conf" <<EOF
$(nginx_conf_head "$dir")
  client_body_buffer_size 64k;
  log_format s escape=json '\$connection \$request_method \$request_uri "\$http_x_session" "\$http_x_step" \$content_length "\$request_body" \$status';
  server {
    listen 127.0.0.1:$port;
    access_log $log s;
    location / { proxy_pass http://127.0.0.1:$port2; }
  }
  server {
    listen 127.0.0.1:$port2;
    location / { return 200 "ok\n"; }
  }
}
EOF
  nginx_run "$dir" "$port" /ok && break
done
nginx_require "$dir"
echo "nginx $(nginx -v 2>&1 | sed 's/^nginx version: //') (pid $nginx_pid) on 127.0.0.1:$port," \
  "proxying to 127.0.0.1:$port2"

# log_compare NAME FROM EXPECTED: the access log's lines after the first FROM against EXPECTED,
# the name of one of the Python's expected sets below: a line "ok: ..." or "FAIL: ..." for each
# expected request (the times it arrived) and each one that was not expected; exit status 1 when
# any differs. Prints last "LINES CONNECTIONS": the requests logged and their distinct
# connections.
log_compare() {
  python3 - "$1" "$2" "$3" "$log" <<'EOF'
import collections, json, re, sys
name, start, expected_set, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
big = "".join("k%04d=v&" % i for i in range(2000))
# (method, uri, X-Session, X-Step, Content-Length, body, status): times arrived.
one = [("POST", "/login", "one", "login", "13", "user=a&pass=b", "200"),
       ("GET", "/page1?tab=2&x=y", "one", "page1", "", "", "200"),
       ("GET", "/img1.png", "", "", "", "", "200"),
       ("GET", "/img2.png", "", "img2", "", "", "200"),
       ("POST", "/logout", "one", "", "32", 'bye\nnow\tthen "quoted" back\\slash', "200")]
two = [("GET", "/other", "two", "", "", "", "200"),
       ("PUT", "/upload", "two", "big", "16000", big, "200")]
expected = {
    "wsesslog": collections.Counter({r: 3 for r in one + two}),
    "wsess": collections.Counter({("GET", "/ok", "", "", "", "", "200"): 20}),
}[expected_set]
quoted = r'"((?:[^"\\]|\\.)*)"'
line_re = re.compile(r"(\d+) (\S+) (\S+) %s %s (\S*) %s (\d{3})$" % (quoted, quoted, quoted))
with open(path, encoding="utf-8", errors="surrogateescape") as f:
    lines = f.read().splitlines()[start:]
got, connections, bad = collections.Counter(), set(), 0
for line in lines:
    m = line_re.match(line)
    if not m:
        print("FAIL: (%s) nginx's log line not understood: %.200r" % (name, line))
        bad = 1
        continue
    c, method, uri, session, step, length, body, status = m.groups()
    decode = lambda s: json.loads('"' + s + '"')
    got[(method, uri, decode(session), decode(step), length, decode(body), status)] += 1
    connections.add(c)

def show(r):
    body = r[5] if len(r[5]) <= 40 else "%s...%s" % (r[5][:12], r[5][-12:])
    return "%s %s X-Session %r X-Step %r Content-Length %r body %r (%d bytes) status %s" % (
        r[0], r[1], r[2], r[3], r[4], body, len(r[5].encode("utf-8", "surrogateescape")), r[6])

for r, n in expected.items():
    word = "ok" if got[r] == n else "FAIL"
    bad |= got[r] != n
    print("%s: (%s) nginx logged %s: %d times%s" % (
        word, name, show(r), got[r], "" if got[r] == n else ", want %d" % n))
for r, n in got.items():
    if r not in expected:
        print("FAIL: (%s) nginx logged a request the run does not send: %s: %d times" % (
            name, show(r), n))
        bad = 1
print(len(lines), len(connections))
sys.exit(bad)
EOF
}

# session_figures JSON: "HISTOGRAM MISSING": the nonzero entries of /sessions/length_histogram
# as LENGTH:SESSIONS joined by ',' ("?" when it is not an array of numbers) and the session
# fields the document lacks joined by ',' ("-" when none).
session_figures() {
  python3 - "$1" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
sessions = doc.get("sessions") if isinstance(doc.get("sessions"), dict) else {}
h = sessions.get("length_histogram")
if isinstance(h, list) and all(isinstance(n, int) for n in h):
    hist = ",".join("%d:%d" % (i, n) for i, n in enumerate(h) if n) or "none"
else:
    hist = "?"
names = ["total", "completed", "failed", "connections_per_session", "lifetime_avg_s",
         "failtime_avg_s", "length_histogram", "rate"]
missing = [n for n in names if n not in sessions]
if "rate" in sessions and "avg_per_s" not in (sessions["rate"] or {}):
    missing.append("rate/avg_per_s")
print(hist, ",".join(missing) or "-")
EOF
}

# (3) The runs. run_case NAME EXPECTED REQUESTS SESSIONS HISTOGRAM LIFETIME ARG...: rateperf ARGs
# against nginx, then nginx's log against the EXPECTED set of log_compare, REQUESTS in all; the
# counts: nginx's, rateperf's requests and replies all equal, calls = replies = 2xx, no error;
# SESSIONS sessions, all completed and none failed, the length histogram HISTOGRAM, a lifetime on
# average of at least LIFETIME seconds (the think times); connections per session times the
# sessions = rateperf's connections = those nginx saw.
run_case() {
  local name=$1 expect=$2 want=$3 nsessions=$4 histogram=$5 lifetime=$6 json=$work/$1.json
  local status=0 start lines conns i fields requests replies calls_made errors opened ok
  local total completed failed per_session life hist missing
  shift 6
  start=$(wc -l <"$log")
  timeout -k 2 30 "$rateperf" -q --server 127.0.0.1 --port "$port" --timeout 5 \
    --json "$json" "$@" >"$work/$name.txt" 2>"$work/$name.err" || status=$?
  [[ -s $json ]] || echo '{}' >"$json"  # no document: every figure reads "?"
  # nginx logs a request once its reply is sent: wait for the last lines to be written.
  for ((i = 0; i < 20; i++)); do
    (($(wc -l <"$log") - start >= want)) && break
    sleep 0.1
  done
  echo "($name) rateperf $*"
  check "($name) exit status" "$status" 0
  if ((status != 0)); then head -n 5 "$work/$name.err"; fi
  if log_compare "$name" "$start" "$expect" >"$work/$name.compare"; then :; else fail=1; fi
  sed '$d' "$work/$name.compare"
  read -r lines conns < <(tail -n 1 "$work/$name.compare")
  fields='{/totals/requests} {/totals/replies} {/totals/calls} {/errors/total}'
  fields+=' {/totals/connections} {/reply_status/2xx} {/sessions/total} {/sessions/completed}'
  fields+=' {/sessions/failed} {/sessions/connections_per_session} {/sessions/lifetime_avg_s}'
  read -r requests replies calls_made errors opened ok total completed failed per_session life \
    < <(result_get "$json" "$fields")
  read -r hist missing < <(session_figures "$json" 2>/dev/null || echo "? ?")
  echo "($name) nginx logged $lines requests on $conns connections; rateperf: requests" \
    "$requests replies $replies (2xx $ok) calls $calls_made errors $errors connections" \
    "$opened; sessions $total completed $completed failed $failed, connections per session" \
    "$per_session, lifetime avg $life s, length histogram $hist"
  check "($name) nginx's requests logged" "$lines" "$want"
  check "($name) rateperf /totals/requests = nginx's" "$requests" "$lines"
  check "($name) rateperf /totals/replies = nginx's" "$replies" "$lines"
  check "($name) rateperf /totals/calls = replies" "$calls_made" "$replies"
  check "($name) rateperf /reply_status/2xx = replies" "$ok" "$replies"
  check "($name) rateperf /errors/total" "$errors" 0
  check "($name) rateperf /sessions fields missing" "$missing" "-"
  check "($name) rateperf /sessions/total" "$total" "$nsessions"
  check "($name) rateperf /sessions/completed" "$completed" "$nsessions"
  check "($name) rateperf /sessions/failed" "$failed" 0
  check "($name) rateperf /sessions/length_histogram (calls:sessions)" "$hist" "$histogram"
  check "($name) nginx's connections = rateperf's /totals/connections" "$conns" "$opened"
  # (connections per session may be rounded: to within 1 %)
  if result_true "$json" "-0.01 * {/sessions/completed} < {/sessions/connections_per_session}
      * {/sessions/completed} - {/totals/connections} < 0.01 * {/sessions/completed}" \
      2>/dev/null; then
    echo "ok: ($name) /sessions/connections_per_session x completed = /totals/connections"
  else
    echo "FAIL: ($name) /sessions/connections_per_session $per_session x completed" \
      "$completed != /totals/connections $opened"
    fail=1
  fi
  if result_true "$json" "{/sessions/lifetime_avg_s} >= $lifetime and
                          {/sessions/rate/avg_per_s} > 0" 2>/dev/null; then
    echo "ok: ($name) /sessions/lifetime_avg_s $life >= $lifetime s (think times), rate > 0"
  else
    echo "FAIL: ($name) /sessions/lifetime_avg_s $life, want >= $lifetime s (think times);" \
      "/sessions/rate/avg_per_s $(result_get "$json" '{/sessions/rate/avg_per_s}'), want > 0"
    fail=1
  fi
}
# 6 sessions, the 2 templates 3 times each: 3 x (5 + 2) requests; lengths 5 and 2 calls. The
# least lifetime: one's think times 0.2 + 0.1 (the default) before its last burst, two's 0.1.
run_case wsesslog wsesslog 21 6 2:3,5:3 0.2 --wsesslog 6,0.1,"$sessions" --rate 20
# 5 sessions of 4 calls with 0.1 s between them: 20 requests, lifetime at least 0.3 s.
run_case wsess wsess 20 5 4:5 0.3 --wsess 5,4,0.1 --rate 10 --uri /ok

nginx_finish sessions_nginx "$dir"
