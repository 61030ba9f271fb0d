#!/usr/bin/env bash
# The closed loop (issue 20) side by side with ab and siege themselves, against Debian's nginx:
# the same -n/-c runs, each report read by one parser of ab's (or siege's) output, which must
# find every figure in both; the counts must agree exactly (complete requests, failures, bytes,
# transactions, nginx's own count of what it served), and the rates within a sanity bound (no
# timing is asserted: speed is scripts/bench's). Then the usage errors of the new options.
#   tests/closed_loop_nginx_test.sh RATEPERF_BIN
# Runs nginx on a free port of 127.0.0.1, stopped by its PID; as root it installs nginx,
# apache2-utils (ab) and siege with apt-get when missing. About 10 s.
# Exit status: 0 passed, 1 a check failed, 77 a tool is missing (not root, or apt-get failed).
set -euo pipefail
(($# == 1)) || { echo "usage: tests/closed_loop_nginx_test.sh RATEPERF_BIN" >&2; exit 2; }
rateperf=$(realpath "$1")
cd "$(dirname "$0")/.."
# shellcheck source=tests/nginx_lib.sh
. tests/nginx_lib.sh

# (1) Usage errors, which need no server (usage_error: tests/nginx_lib.sh).
usage_error '--concurrency' --concurrency 0 --num-conns 5
usage_error '--rate' --concurrency 5 --rate 10 --num-conns 50
usage_error '--period' --concurrency 5 --period e0.1 --num-conns 50
usage_error '--requests' --concurrency 10 --requests 5
usage_error '--num-conns' --concurrency 10 --num-conns 5
usage_error '--format' --format xml --num-conns 1
usage_error '--think' --think 1 --num-conns 1

# (2) nginx, ab and siege: installed as root when missing, else the test is skipped.
nginx_ensure "$work/apt.log" || exit $((fail ? 1 : 77))
read -r -a missing <<<"$(pkg_missing apache2-utils siege)"
if ((${#missing[@]})) && ! timeout -k 5 200 bash -c '. scripts/lib/packages.sh && pkg_install "$@"' \
    _ "$work/apt.log" "${missing[@]}"; then
  echo "SKIP: cannot install ${missing[*]} (as root: apt-get install -y ${missing[*]})"
  exit $((fail ? 1 : 77))
fi

dir=$work/nginx
mkdir -p "$dir/www" "$dir/tmp"
# A page of 612 bytes, as nginx's own index.html.
head -c 612 /dev/zero | tr '\0' 'x' >"$dir/www/page.html"
for _ in 1 2 3; do
  port=$(ports_free)
  cat >"$dir/nginx.conf" <<EOF
$(nginx_conf_head "$dir")
  server {
    listen 127.0.0.1:$port backlog=4096;
    root $dir/www;
    location /nginx_status { stub_status; }
  }
}
EOF
  nginx_run "$dir" "$port" /nginx_status && break
done
nginx_require "$dir"
url=http://127.0.0.1:$port/page.html
echo "nginx $(nginx -v 2>&1 | sed 's/^nginx version: //') (pid $nginx_pid) on 127.0.0.1:$port"

# within_ratio A B: "yes" when A / B is within 0.2 .. 5 (a sanity bound, not a timing check).
within_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > 0 && a / b >= 0.2 && a / b <= 5) ? "yes" : "no" }'; }

# served_by_nginx CMD...: runs CMD (output in $work/out), prints the requests nginx served for it.
served_by_nginx() {
  local a0 r0 a1 r1
  read -r a0 r0 < <(nginx_status_counts "$port")
  timeout -k 2 60 "$@" >"$work/out" 2>&1 || echo "(exit status $?)" >>"$work/out"
  read -r a1 r1 < <(nginx_status_counts "$port")
  echo "$((r1 - r0 - 1)) $((a1 - a0 - 1))"
}

# (3) ab -n 2000 -c 10, and rateperf's closed loop of the same shape (ab speaks HTTP/1.0).
read -r ab_served _ < <(served_by_nginx ab -n 2000 -c 10 "$url")
cp "$work/out" "$work/ab.txt"
read -r rp_served _ < <(served_by_nginx "$rateperf" -q --concurrency 10 --num-conns 2000 \
  --http-version 1.0 --timeout 5 --format ab "$url")
cp "$work/out" "$work/rateperf-ab.txt"
read -r a_c a_f a_d a_t a_h _ a_r a_p a_rows a_pc < <(ab_fields "$work/ab.txt")
read -r r_c r_f r_d r_t r_h _ r_r r_p r_rows r_pc < <(ab_fields "$work/rateperf-ab.txt")
echo "ab -n 2000 -c 10: complete $a_c failed $a_f, $a_r req/s, $a_p ms per request"
echo "rateperf --concurrency 10 --num-conns 2000 --format ab: complete $r_c failed $r_f, $r_r req/s, $r_p ms per request"
check "ab: nginx served" "$ab_served" 2000
check "rateperf: nginx served" "$rp_served" 2000
check "Complete requests (rateperf, ab)" "$r_c $a_c" "2000 2000"
check "Failed requests (rateperf, ab)" "$r_f $a_f" "0 0"
check "Document Length: rateperf's = ab's" "$r_d" "$a_d"
check "Total transferred: rateperf's = ab's" "$r_t" "$a_t"
check "HTML transferred: rateperf's = ab's" "$r_h" "$a_h"
check "Connection Times rows and percentage lines (rateperf)" "$r_rows $r_pc" "4 9"
check "Connection Times rows and percentage lines (ab)" "$a_rows $a_pc" "4 9"
check "Requests per second within 5x of ab's" "$(within_ratio "$r_r" "$a_r")" yes
check "Time per request within 5x of ab's" "$(within_ratio "$r_p" "$a_p")" yes

# (4) ab -k: persistent connections, one a slot.
read -r ab_served _ < <(served_by_nginx ab -k -n 2000 -c 10 "$url")
cp "$work/out" "$work/ab-k.txt"
read -r rp_served rp_accepted < <(served_by_nginx "$rateperf" -q --concurrency 10 \
  --requests 2000 --timeout 5 --format ab "$url")
cp "$work/out" "$work/rateperf-ab-k.txt"
read -r a_c a_f _ _ a_h a_k _ _ _ _ < <(ab_fields "$work/ab-k.txt")
read -r r_c r_f _ _ r_h r_k _ _ _ _ < <(ab_fields "$work/rateperf-ab-k.txt")
check "-k: nginx served (rateperf, ab)" "$rp_served $ab_served" "2000 2000"
check "-k: rateperf's connections (one a slot)" "$rp_accepted" 10
check "-k: Complete and Keep-Alive requests (rateperf)" "$r_c $r_k" "2000 2000"
check "-k: Complete and Keep-Alive requests (ab)" "$a_c $a_k" "2000 2000"
check "-k: Failed requests (rateperf, ab)" "$r_f $a_f" "0 0"
check "-k: HTML transferred: rateperf's = ab's" "$r_h" "$a_h"
# The closed loop's clock: the client's by default (as ab's), the kernel's when asked for.
for clock in default kernel; do
  extra=()
  [[ $clock == kernel ]] && extra=(--clock kernel)
  "$rateperf" -q --concurrency 10 --requests 500 --timeout 5 --json "$work/k-$clock.json" \
    ${extra[@]+"${extra[@]}"} "$url" >/dev/null 2>&1 || true
done
read -r c_default k_default < <(result_get "$work/k-default.json" '{/config/clock} {/clock/kernel_replies}')
read -r c_kernel k_kernel < <(result_get "$work/k-kernel.json" '{/config/clock} {/clock/kernel_replies}')
echo "closed loop's clock: by default $c_default ($k_default kernel-timed replies), with --clock kernel $c_kernel ($k_kernel)"
check "closed loop's clock by default: the client's" "$c_default $k_default" "user 0"
check "closed loop with --clock kernel: the kernel's, most replies kernel-timed" \
  "$c_kernel $(( k_kernel >= 450 ))" "kernel 1"

# (5) siege -c 5 -r 100 -b (a new connection each request, as its default "connection = close").
printf 'json_output = false\nconnection = close\nprotocol = HTTP/1.1\nparser = false\n' >"$work/siegerc"
read -r sg_served _ < <(served_by_nginx siege -R "$work/siegerc" -c 5 -r 100 -b "$url")
cp "$work/out" "$work/siege.txt"
read -r rp_served _ < <(served_by_nginx "$rateperf" -q --concurrency 5 --num-conns 500 \
  --timeout 5 --format siege "$url")
cp "$work/out" "$work/rateperf-siege.txt"
read -r s_t s_a s_d s_s s_f s_r s_c < <(siege_fields "$work/siege.txt")
read -r r_t r_a r_d r_s r_f r_r r_c < <(siege_fields "$work/rateperf-siege.txt")
echo "siege -c 5 -r 100 -b: $s_t transactions, $s_r trans/s, concurrency $s_c"
echo "rateperf --concurrency 5 --num-conns 500 --format siege: $r_t transactions, $r_r trans/s, concurrency $r_c"
check "siege: nginx served (rateperf, siege)" "$rp_served $sg_served" "500 500"
check "Transactions (rateperf, siege)" "$r_t $s_t" "500 500"
check "Availability (rateperf, siege)" "$r_a $s_a" "100.00 100.00"
check "Successful and Failed transactions (rateperf, siege)" "$r_s $r_f $s_s $s_f" "500 0 500 0"
check "Data transferred: rateperf's = siege's" "$r_d" "$s_d"
check "Transaction rate within 5x of siege's" "$(within_ratio "$r_r" "$s_r")" yes

nginx_finish closed_loop_nginx "$dir"
