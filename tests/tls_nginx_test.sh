#!/usr/bin/env bash
# TLS (issue 17, point 5) against Debian's nginx, with a CA and certificates made at test time
# (openssl: a self-signed CA, and leaf certificates for a.test and b.test signed by it, each with
# its subjectAltName). nginx serves HTTPS on one port for both names (a server block each, its own
# certificate), TLS 1.3 alone on a second, plain HTTP on a third (and its stub_status). Checked at
# both ends, rateperf's JSON against nginx's counters and its access log, which records each
# request's connection, whether its session was resumed, its protocol, cipher, SNI name and Host:
#  - HTTPS, one request per connection (--ssl, and an https:// URL): nginx's requests = rateperf's
#    requests and replies, no error, TLS used, full + resumed handshakes = connections, all but
#    the first few resumed (none with --ssl-no-reuse), nginx's resumed = rateperf's resumed,
#    TLSv1.3 and the same cipher at both ends, the SNI name nginx saw; the text report's TLS lines;
#    a plain HTTP run reports no TLS;
#  - keep-alive (--num-calls), request mode and --wsess sessions over TLS: the same counts;
#  - SNI: the body of /sni, where nginx returns the name it was sent, is --tls-server-name's,
#    whatever the Host header (which picks the server block);
#  - a TLS 1.3-only port and --ssl-protocol TLSv1.2, and a plain HTTP port with --ssl: every
#    connection fails in its handshake (tls_alert or tls_handshake), no reply, exit status 0;
#  - a listener (python3) that accepts and never answers: every connection a client timeout,
#    within --timeout;
#  - --ssl-verify: without the CA every connection is a certificate error; with --ssl-ca-file
#    none for a.test and b.test (each its own certificate, by SNI); a name the certificate does
#    not carry, a certificate error;
#  - a TLS server (python3) whose replies end at its close: every reply, none waits for --timeout;
#  - the usage errors of the TLS options: exit 2, one stderr line naming the option or the path.
#   tests/tls_nginx_test.sh RATEPERF_BIN
# Runs nginx on three free ports of 127.0.0.1 and the listener on a fourth, stopped by their PIDs;
# as root it installs nginx with apt-get when missing. About 8 s of load, 15 s in all.
# Exit status: 0 passed, 1 a check failed, 77 no nginx or no openssl (says why).
set -euo pipefail
(($# == 1)) || { echo "usage: tests/tls_nginx_test.sh RATEPERF_BIN" >&2; exit 2; }
rateperf=$(realpath "$1")
cd "$(dirname "$0")/.."
# shellcheck source=tests/nginx_lib.sh
. tests/nginx_lib.sh
# check_true WHAT JSON EXPRESSION: "ok: WHAT" when the expression over the JSON's fields holds
# (result_true), else "FAIL: WHAT" with the fields' values.
check_true() {
  if result_true "$2" "$3" 2>/dev/null; then echo "ok: $1"; else
    echo "FAIL: $1: $(result_get "$2" "$3" 2>/dev/null || echo '?')"; fail=1
  fi
}

# (1) Usage errors, which need no server (usage_error: tests/nginx_lib.sh).
printf 'not a certificate\n' >"$work/not-a-cert.txt"
usage_error '--ssl-protocol' --ssl --ssl-protocol SSLv3
usage_error '--ssl-ciphers' --ssl --ssl-ciphers ''
usage_error '--ssl-ciphers' --ssl --ssl-ciphers NOPE
usage_error '/nonexistent/ca\.pem' --ssl --ssl-verify --ssl-ca-file /nonexistent/ca.pem
usage_error "--ssl-ca-file|$(ere "$work/not-a-cert.txt")" \
  --ssl --ssl-verify --ssl-ca-file "$work/not-a-cert.txt"
usage_error '--ssl-verify' --ssl-verify

# (2) The certificates: a CA of our own, and a.test's and b.test's certificates signed by it.
if ! command -v openssl >/dev/null; then
  echo "SKIP: no openssl command to make the certificates with (apt-get install openssl)"
  exit $((fail ? 1 : 77))
fi
certs=$work/certs
mkdir -p "$certs"
# Our own configuration, not the system's openssl.cnf: its default extensions would clash.
cat >"$certs/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = rateperf test CA
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = DNS:${ENV::LEAF_NAME}
EOF
# make_certs: ca.pem, and NAME.pem and NAME.key for a.test and b.test; false when openssl fails.
make_certs() {
  local name serial=1 ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  export LEAF_NAME=unused
  openssl req -x509 -config "$certs/openssl.cnf" -extensions ca "${ec[@]}" \
    -keyout "$certs/ca.key" -out "$certs/ca.pem" -days 2 || return 1
  for name in a.test b.test; do
    LEAF_NAME=$name
    openssl req -new -config "$certs/openssl.cnf" "${ec[@]}" -subj "/CN=$name" \
      -keyout "$certs/$name.key" -out "$certs/$name.csr" || return 1
    openssl x509 -req -in "$certs/$name.csr" -CA "$certs/ca.pem" -CAkey "$certs/ca.key" \
      -set_serial $((serial++)) -days 2 -extfile "$certs/openssl.cnf" -extensions leaf \
      -out "$certs/$name.pem" || return 1
    openssl verify -CAfile "$certs/ca.pem" "$certs/$name.pem" || return 1
  done
}
if ! make_certs >"$certs/openssl.log" 2>&1; then
  echo "FAIL: openssl could not make the certificates:"; tail -n 10 "$certs/openssl.log"
  exit 1
fi
echo "certificates: CA, a.test and b.test ($(openssl version))"

# (3) nginx: installed as root when missing, else the test is skipped.
nginx_ensure "$work/apt.log" || exit $((fail ? 1 : 77))

# One process, no daemon, everything under $work/nginx. PORT: HTTPS, a.test's server block (the
# default one, for no SNI or an unknown name) and b.test's, each with its own certificate; /sni
# answers the SNI name nginx was sent. PORT13: HTTPS with TLS 1.3 alone. PLAIN: HTTP, and
# stub_status (nginx's counters of every port). The HTTPS ports log each request: its
# connection's serial number, whether its session was resumed ("r") or not ("."), the protocol
# and cipher, the SNI name and the Host. keepalive_requests is far above any run's calls.
dir=$work/nginx
mkdir -p "$dir/www" "$dir/tmp"
printf 'ok\n' >"$dir/www/ok.txt"
log=$dir/access.log
: >"$log"
nginx_pid=
for _ in 1 2 3; do
  port=$(ports_free)
  port13=$(ports_free)
  plain=$(ports_free)
  [[ $port != "$port13" && $port != "$plain" && $port13 != "$plain" ]] || continue
  cat >"$dir/nginx.conf" <<EOF
$(nginx_conf_head "$dir")
  # nginx 1.22's default leaves TLS 1.3 out (it is in from 1.23.4).
  ssl_protocols TLSv1.2 TLSv1.3;
  log_format tls '\$connection \$ssl_session_reused \$ssl_protocol/\$ssl_cipher "\$ssl_server_name" "\$host" \$status \$request_uri';
  server {
    listen 127.0.0.1:$port ssl default_server;
    server_name a.test;
    ssl_certificate $certs/a.test.pem;
    ssl_certificate_key $certs/a.test.key;
    access_log $log tls;
    root $dir/www;
    location /sni { return 200 "\$ssl_server_name\n"; }
  }
  server {
    listen 127.0.0.1:$port ssl;
    server_name b.test;
    ssl_certificate $certs/b.test.pem;
    ssl_certificate_key $certs/b.test.key;
    access_log $log tls;
    root $dir/www;
    location /sni { return 200 "\$ssl_server_name\n"; }
  }
  server {
    listen 127.0.0.1:$port13 ssl;
    server_name a.test;
    ssl_protocols TLSv1.3;
    ssl_certificate $certs/a.test.pem;
    ssl_certificate_key $certs/a.test.key;
    access_log $log tls;
    root $dir/www;
  }
  server {
    listen 127.0.0.1:$plain;
    root $dir/www;
    location /nginx_status { stub_status; }
  }
}
EOF
  nginx_run "$dir" "$plain" /nginx_status && break
done
nginx_require "$dir"
echo "nginx $(nginx -v 2>&1 | sed 's/^nginx version: //') (pid $nginx_pid): HTTPS on" \
  "127.0.0.1:$port (a.test, b.test), TLS 1.3 alone on $port13, HTTP on $plain"


# tls_log FROM: what the access log's lines after the first FROM hold: "LINES CONNECTIONS
# RESUMED PROTOCOLS SNI HOSTS": the requests, their distinct connections, those of them whose
# session was resumed, and the distinct protocol/cipher pairs, SNI names and Hosts, each set
# sorted and joined by ',' ("none" for an empty set, "-" for an empty name); "? ? ? ? ? ?" when
# a line is not understood.
tls_log() {
  "$results_python" - "$1" "$log" <<'EOF'
import re, sys
start, path = int(sys.argv[1]), sys.argv[2]
line_re = re.compile(r'(\d+) (\S+) (\S+) "([^"]*)" "([^"]*)" (\d{3}) (\S+)$')
with open(path, errors="replace") as f:
    lines = f.read().splitlines()[start:]
conns, resumed, protocols, snis, hosts = set(), set(), set(), set(), set()
for line in lines:
    m = line_re.match(line)
    if not m:
        print("? ? ? ? ? ?")
        sys.exit(0)
    conn, reused, protocol, sni, host = m.groups()[:5]
    conns.add(conn)
    if reused == "r":
        resumed.add(conn)
    protocols.add(protocol)
    snis.add(sni or "-")
    hosts.add(host or "-")
show = lambda s: ",".join(sorted(s)) or "none"
print(len(lines), len(conns), len(resumed), show(protocols), show(snis), show(hosts))
EOF
}

# rp NAME ARG...: runs rateperf -q --json $work/NAME.json ARG... (bounded to 30 s), its stdout in
# $work/NAME.txt and stderr in NAME.err. Sets status (its exit status), seconds (its wall time,
# to 0.1 s), served and accepted (the requests and connections nginx counted meanwhile), logged
# (the access log's lines before it) and json. A run that wrote no document reads as '{}', so
# that every figure reads "?".
rp() {
  local name=$1 a0 r0 a1 r1 t0
  shift
  json=$work/$name.json
  status=0
  logged=$(wc -l <"$log")
  read -r a0 r0 < <(nginx_status_counts "$plain")
  t0=$EPOCHREALTIME
  timeout -k 2 30 "$rateperf" -q --json "$json" "$@" >"$work/$name.txt" 2>"$work/$name.err" ||
    status=$?
  seconds=$("$results_python" -c "print('%.1f' % ($EPOCHREALTIME - $t0))")
  read -r a1 r1 < <(nginx_status_counts "$plain")
  served=$((r1 - r0 - 1))
  accepted=$((a1 - a0 - 1))
  [[ -s $json ]] || echo '{}' >"$json"
  echo "($name) rateperf $* (exit $status, $seconds s)"
  if ((status != 0)); then head -n 5 "$work/$name.err"; fi
}

# log_wait N: waits up to 2 s for the access log to have N lines after the run's start (nginx
# logs a request once its reply is sent), then sets the access log's figures of the run:
# log_lines log_conns log_resumed log_protocols log_snis log_hosts.
log_wait() {
  local i
  for ((i = 0; i < 20; i++)); do
    (($(wc -l <"$log") - logged >= $1)) && break
    sleep 0.1
  done
  read -r log_lines log_conns log_resumed log_protocols log_snis log_hosts < <(tls_log "$logged")
}

# run_ok NAME CONNECTIONS REQUESTS RESUMED ARG...: a healthy HTTPS run of rateperf ARGs against
# PORT: exit 0; nginx served REQUESTS, as many as rateperf's requests and replies (all 2xx), no
# error; CONNECTIONS connections ("-": any), as many as nginx accepted and logged; TLS used,
# full + resumed handshakes = connections, the connections nginx logged resumed = rateperf's
# resumed; RESUMED "most": at most 10 full (those opened before the first ticket came), "some":
# resumed > 0, "none": resumed 0; TLSv1.3 (tls_protocol's when set) at both ends, with the same
# cipher; the SNI name nginx saw, --tls-server-name's or none ("-").
run_ok() {
  local name=$1 conns=$2 want=$3 resume=$4 sni=- arg prev='' fields
  local requests replies ok errors opened used full resumed protocol cipher
  shift 4
  for arg in "$@"; do
    [[ $prev == --tls-server-name ]] && sni=$arg
    prev=$arg
  done
  rp "$name" "$@"
  log_wait "$served"
  fields='{/totals/requests} {/totals/replies} {/reply_status/2xx} {/errors/total}'
  fields+=' {/totals/connections} {/tls/used} {/tls/handshakes_full} {/tls/handshakes_resumed}'
  fields+=' {/tls/protocol} {/tls/cipher}'
  read -r requests replies ok errors opened used full resumed protocol cipher \
    < <(result_get "$json" "$fields")
  echo "($name) nginx served $served requests on $accepted connections, logged $log_lines on" \
    "$log_conns ($log_resumed resumed; $log_protocols; SNI $log_snis; Host $log_hosts);" \
    "rateperf: requests $requests replies $replies (2xx $ok) errors $errors connections" \
    "$opened; TLS used $used, handshakes full $full resumed $resumed, $protocol $cipher"
  check "($name) exit status" "$status" 0
  check "($name) nginx's requests served" "$served" "$want"
  check "($name) rateperf /totals/requests = nginx's" "$requests" "$served"
  check "($name) rateperf /totals/replies = nginx's" "$replies" "$served"
  check "($name) rateperf /reply_status/2xx = replies" "$ok" "$replies"
  check "($name) rateperf /errors/total" "$errors" 0
  [[ $conns == - ]] || check "($name) rateperf /totals/connections" "$opened" "$conns"
  check "($name) nginx's connections accepted = rateperf's" "$accepted" "$opened"
  check "($name) nginx's requests logged = served" "$log_lines" "$served"
  check "($name) nginx's connections logged = rateperf's" "$log_conns" "$opened"
  check "($name) rateperf /tls/used" "$used" True
  check_true "($name) /tls/handshakes_full + /tls/handshakes_resumed = /totals/connections" \
    "$json" '{/tls/handshakes_full} + {/tls/handshakes_resumed} == {/totals/connections}'
  check "($name) nginx's resumed connections = rateperf's /tls/handshakes_resumed" \
    "$log_resumed" "$resumed"
  case $resume in
    most) check_true "($name) /tls/handshakes_full <= 10 (each connection resumes the newest session)" \
            "$json" '{/tls/handshakes_full} <= 10' ;;
    some) check_true "($name) /tls/handshakes_resumed > 0 (resumption on by default)" "$json" \
            '{/tls/handshakes_resumed} > 0' ;;
    none) check "($name) /tls/handshakes_resumed" "$resumed" 0
          check "($name) /tls/handshakes_full = /totals/connections" "$full" "$opened" ;;
  esac
  check "($name) rateperf /tls/protocol" "$protocol" "${tls_protocol:-TLSv1.3}"
  check "($name) nginx's protocol/cipher = rateperf's" "$log_protocols" "$protocol/$cipher"
  check "($name) the SNI name nginx saw" "$log_snis" "$sni"
}

# (4) HTTPS, one request per connection: with SNI; without resumption; an https:// URL (no SNI
# for an address).
https=(--ssl --server 127.0.0.1 --port "$port")
run_ok https 200 200 most "${https[@]}" --tls-server-name a.test --uri /ok.txt --num-conns 200 \
  --rate 200 --timeout 5
# The text report's TLS lines agree with the document.
read -r full resumed cipher < <(result_get "$work/https.json" \
  '{/tls/handshakes_full} {/tls/handshakes_resumed} {/tls/cipher}')
want="TLS: handshakes full $full resumed $resumed, protocol TLSv1.3, cipher $cipher"
if grep -qxF "$want" "$work/https.txt"; then echo "ok: (https) text report: $want"; else
  echo "FAIL: (https) text report: no line '$want':"; grep '^TLS' "$work/https.txt"; fail=1
fi
if grep -qE '^TLS handshake \[ms\]: p50 [0-9]' "$work/https.txt"; then
  echo "ok: (https) text report: $(grep -E '^TLS handshake \[ms\]' "$work/https.txt")"
else
  echo "FAIL: (https) text report: no line 'TLS handshake [ms]: p50 ...'"; fail=1
fi
check_true "(https) /tls/handshake/p50_ms > 0" "$work/https.json" '{/tls/handshake/p50_ms} > 0'
# TLS falls back to the client's clock (OpenSSL reads the socket), and says so.
check "(https) /clock/kernel, /clock/replies" \
  "$(result_get "$work/https.json" '{/clock/kernel} {/clock/replies}')" "False user"
check_true "(https) /clock/fallback names TLS" "$work/https.json" "'TLS' in {/clock/fallback}"
if grep -q "^Reply clock: the client's reads (TLS reads go through OpenSSL" "$work/https.txt"; then
  echo "ok: (https) text report: the client's clock, and why"
else
  echo "FAIL: (https) text report: no 'Reply clock: the client's reads (TLS ...' line"; fail=1
fi
run_ok no-reuse 200 200 none "${https[@]}" --tls-server-name a.test --uri /ok.txt \
  --num-conns 200 --rate 200 --timeout 5 --ssl-no-reuse
run_ok url 200 200 most "https://127.0.0.1:$port/ok.txt" --num-conns 200 --rate 200 --timeout 5
# The default TLS 1.3 suites are offered in the browsers' order, so nginx (which takes the
# client's order) picks AES-128-GCM; --tls-ciphersuites makes it another.
check "(https) the default suite order's cipher" "$cipher" TLS_AES_128_GCM_SHA256
run_ok suites 20 20 some "${https[@]}" --uri /ok.txt --num-conns 20 --rate 100 --timeout 5 \
  --tls-ciphersuites TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256
check "(suites) --tls-ciphersuites' first suite" "$(result_get "$json" '{/tls/cipher}')" \
  TLS_CHACHA20_POLY1305_SHA256
# TLS 1.2's default list is OpenSSL's set in the browsers' order, ECDHE's AES-128-GCM first
# (OpenSSL's own order would make nginx pick AES-256-GCM-SHA384); --ssl-ciphers makes it another.
tls12=("${https[@]}" --uri /ok.txt --num-conns 20 --rate 100 --timeout 5 --ssl-protocol TLSv1.2)
tls_protocol=TLSv1.2 run_ok tls12 20 20 some "${tls12[@]}"
check "(tls12) the default cipher order's cipher" "$(result_get "$json" '{/tls/cipher}')" \
  ECDHE-ECDSA-AES128-GCM-SHA256
tls_protocol=TLSv1.2 run_ok tls12-ciphers 20 20 some "${tls12[@]}" \
  --ssl-ciphers ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256
check "(tls12-ciphers) --ssl-ciphers' first cipher" "$(result_get "$json" '{/tls/cipher}')" \
  ECDHE-ECDSA-AES256-GCM-SHA384

# A plain HTTP run reports no TLS.
rp plain --server 127.0.0.1 --port "$plain" --uri /ok.txt --num-conns 5 --rate 50 --timeout 5
read -r replies errors used < <(result_get "$json" '{/totals/replies} {/errors/total} {/tls/used}')
check "(plain) exit status" "$status" 0
check "(plain) /totals/replies, /errors/total" "$replies $errors" "5 0"
check "(plain) /tls/used" "$used" False
check "(plain) text report lines starting 'TLS'" "$(grep -c '^TLS' "$work/plain.txt" || true)" 0

# (5) Keep-alive, request mode and sessions over TLS.
tls=("${https[@]}" --tls-server-name a.test --uri /ok.txt --timeout 5)
run_ok keepalive 50 500 - "${tls[@]}" --num-calls 10 --num-conns 50 --rate 50
run_ok request-mode 5 1000 - "${tls[@]}" --request-rate 500 --connections 5 --requests 1000
run_ok wsess - 20 - "${tls[@]}" --wsess 5,4,0.1 --rate 10

# (6) SNI: nginx takes the certificate's server block by the SNI name and the request's by Host;
# /sni answers the SNI name, whatever the Host.
sni_case() {
  local sni=$1 host=$2 name=sni-$1 body
  rp "$name" "${https[@]}" --tls-server-name "$sni" --server-name "$host" --uri /sni \
    --num-conns 1 --timeout 5 --print-reply=body
  log_wait 1
  body=$(grep '^RB' "$work/$name.txt" || true)
  check "($name) exit status" "$status" 0
  check "($name) the reply's body (Host $host)" "$body" "RB0:$sni"
  check "($name) /totals/replies, /errors/total" \
    "$(result_get "$json" '{/totals/replies} {/errors/total}')" "1 0"
  check "($name) nginx's SNI name and Host" "$log_snis $log_hosts" "$sni $host"
}
sni_case b.test a.test
sni_case a.test b.test

# (7) Handshakes that fail. fail_case NAME N KINDS ARG...: rateperf ARGs exit 0 with N errors in
# all, the sum of the error kinds KINDS (a result_calc expression) N too, no request written, no
# reply, and nothing in nginx's access log.
fail_case() {
  local name=$1 n=$2 kinds=$3
  shift 3
  rp "$name" "$@"
  check "($name) exit status" "$status" 0
  check "($name) $kinds" "$(result_calc "$json" d "$kinds")" "$n"
  check "($name) /errors/total" "$(result_get "$json" '{/errors/total}')" "$n"
  check "($name) /totals/requests, /totals/replies" \
    "$(result_get "$json" '{/totals/requests} {/totals/replies}')" "0 0"
  check "($name) nginx's requests logged" "$(($(wc -l <"$log") - logged))" 0
}
# TLS 1.2 against TLS 1.3 alone: the server's alert (protocol_version), or the handshake's error.
fail_case tls12-vs-13 20 '{/errors/tls_alert} + {/errors/tls_handshake}' --ssl \
  --server 127.0.0.1 --port "$port13" --tls-server-name a.test --uri /ok.txt --num-conns 20 \
  --rate 50 --timeout 5 --ssl-protocol TLSv1.2
check "(tls12-vs-13) nginx's connections accepted" "$accepted" 20
# TLS against plain HTTP: nginx answers the ClientHello with a 400 in clear text.
fail_case tls-vs-http 10 '{/errors/tls_alert} + {/errors/tls_handshake}' --ssl \
  --server 127.0.0.1 --port "$plain" --uri /ok.txt --num-conns 10 --rate 50 --timeout 5
check "(tls-vs-http) nginx's connections accepted" "$accepted" 10
# --ssl-verify without our CA: the system's do not sign a.test's certificate.
fail_case verify-no-ca 5 '{/errors/tls_cert}' "${tls[@]}" --num-conns 5 --rate 50 --ssl-verify
# --ssl-verify with our CA: a.test's and b.test's certificates, each chosen by the SNI name.
run_ok verify-a 5 5 - "${tls[@]}" --num-conns 5 --rate 50 --ssl-verify \
  --ssl-ca-file "$certs/ca.pem"
run_ok verify-b 5 5 - "${https[@]}" --tls-server-name b.test --uri /ok.txt --timeout 5 \
  --num-conns 5 --rate 50 --ssl-verify --ssl-ca-file "$certs/ca.pem"
# A name no certificate carries: nginx's default block gives a.test's, which is not c.test's.
fail_case verify-name 5 '{/errors/tls_cert}' "${https[@]}" --tls-server-name c.test \
  --uri /ok.txt --timeout 5 --num-conns 5 --rate 50 --ssl-verify --ssl-ca-file "$certs/ca.pem"

# listener_start NAME ARG...: runs python3 on $work/NAME.py, after a start of its own: a socket
# `s` listening on a free port of 127.0.0.1 (accept() times out every 0.2 s), its port written
# to a file, and `deadline`, 60 s on; the script's arguments are ARGs. Sets listener_pid, and
# listener_port (empty when it did not start in 5 s).
listener_start() {
  local name=$1 i
  shift
  { cat <<'EOF'
import os, socket, ssl, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
s.settimeout(0.2)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
deadline = time.monotonic() + 60
EOF
    cat "$work/$name.body"; } >"$work/$name.py"
  server_start "$work/$name.log" "$results_python" "$work/$name.py" "$work/$name.port" "$@"
  listener_pid=$server_pid
  listener_port=''
  for ((i = 0; i < 50; i++)); do
    [[ -s $work/$name.port ]] && { listener_port=$(cat "$work/$name.port"); return 0; }
    sleep 0.1
  done
  echo "FAIL: the $name listener did not start:"; tail -n 5 "$work/$name.log"; fail=1
}

# (8) A listener that accepts and never writes (at most 60 s): every handshake waits for the
# ServerHello until --timeout.
cat >"$work/stall.body" <<'EOF'
held = []
while time.monotonic() < deadline:
    try:
        held.append(s.accept()[0])
    except socket.timeout:
        pass
EOF
listener_start stall
if [[ -n $listener_port ]]; then
  fail_case stall 3 '{/errors/client_timo}' --ssl --server 127.0.0.1 --port "$listener_port" \
    --tls-server-name a.test --uri /ok.txt --timeout 1 --num-conns 3 --rate 10
  check "(stall) /errors/client_timo" "$(result_get "$json" '{/errors/client_timo}')" 3
  if "$results_python" -c "import sys; sys.exit(not $seconds < 10)"; then
    echo "ok: (stall) the run ended within 10 s: $seconds s"
  else
    echo "FAIL: (stall) the run took $seconds s, want < 10 s"; fail=1
  fi
fi
server_stop "$listener_pid"

# (9) A TLS server (python3) whose replies end at its close (HTTP/1.0, no Content-Length), the
# close right behind the body: each reply ends at the end of the stream, which the read edge
# that brings the body reports too, and which no later edge announces again.
cat >"$work/close.body" <<'EOF'
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[2], sys.argv[3])
while time.monotonic() < deadline:
    try:
        raw = s.accept()[0]
    except socket.timeout:
        continue
    raw.settimeout(2)
    conn = raw
    try:
        conn = context.wrap_socket(raw, server_side=True)
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = conn.recv(4096)
            if not chunk:
                break
            request += chunk
        conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nto the close\n")
    except (OSError, ssl.SSLError):
        pass
    conn.close()  # the TLS socket holds the descriptor now: its close is the TCP close
EOF
listener_start close "$certs/a.test.pem" "$certs/a.test.key"
if [[ -n $listener_port ]]; then
  rp close --ssl --server 127.0.0.1 --port "$listener_port" --tls-server-name a.test \
    --uri /ok.txt --timeout 5 --num-conns 30 --rate 30
  check "(close) exit status" "$status" 0
  check "(close) /totals/replies, /reply_status/2xx, /errors/total" \
    "$(result_get "$json" '{/totals/replies} {/reply_status/2xx} {/errors/total}')" "30 30 0"
  check_true "(close) /connection_time/max_ms < 1000 (each reply ended at its close)" \
    "$json" '{/connection_time/max_ms} < 1000'
fi
server_stop "$listener_pid"

nginx_finish tls_nginx "$dir"
