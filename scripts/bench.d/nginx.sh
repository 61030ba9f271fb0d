# scripts/bench: the server every client measures, and the port each run connects to; sourced.
# shellcheck shell=bash

# nginx listens on nports consecutive ports from port0; run after run, next_port takes the next
# one, so that a port comes round again only after nports runs (more than TIME_WAIT's 60 s).
nports=64
port_index=0
next_port() { port=$((port0 + port_index % nports)); port_index=$((port_index + 1)); }

# start_nginx [DIR]: our own nginx, one process pinned to CPU 1, serving ok.txt ("ok\n") on
# nports free ports, its files in DIR (default $work/nginx), in the network namespace in_netns
# names (netns.sh) when set; sets port0 (and port) and server_pid; stopped by its PID
# (server_stop_all) on exit. With nginx_tls set (a directory with cert.pem and key.pem), every
# port speaks TLS; with nginx_tls_noresume=1 as well, nginx resumes no session (no session
# cache, no tickets), so that every handshake is a full one whatever the client offers. With
# nginx_multi_accept=1, nginx accepts every waiting connection when the listening socket is
# ready (multi_accept on), not one per turn of its event loop: (j)'s --num-calls opens a
# connection every 2 ms beside hundreds that are busy, and with nginx's default a slow second
# of the machine left them waiting 1-2 s in the listen queue, which at 95 % of capacity takes
# the rest of the run to drain (docs/benchmarks.md, "One accept per turn").
start_nginx() {
  local try listens p dir=${1:-$work/nginx}
  mkdir -p "$dir/www" "$dir/tmp"
  printf 'ok\n' >"$dir/www/ok.txt"
  for try in 1 2 3 4 5; do
    port0=$(ports_free_run "$nports")
    [[ -n $port0 ]] || continue
    listens=
    for ((p = port0; p < port0 + nports; p++)); do
      listens+="    listen 127.0.0.1:$p backlog=4096;"$'\n'
    done
    port=$port0
    # TLS (k): every port speaks it, with the certificate of nginx_tls (DIR/cert.pem, key.pem).
    if [[ -n ${nginx_tls:-} ]]; then
      listens=${listens// backlog=4096;/ backlog=4096 ssl;}
      listens+="    ssl_certificate $nginx_tls/cert.pem;"$'\n'
      listens+="    ssl_certificate_key $nginx_tls/key.pem;"$'\n'
      listens+="    ssl_protocols TLSv1.2 TLSv1.3;"$'\n'
      if [[ ${nginx_tls_noresume:-0} == 1 ]]; then
        listens+="    ssl_session_cache off;"$'\n'
        listens+="    ssl_session_tickets off;"$'\n'
      fi
    fi
    cat >"$dir/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile 20000;
error_log $dir/error.log warn;
pid $dir/nginx.pid;
events { worker_connections 20000;${nginx_multi_accept:+ multi_accept on;} }
http {
  access_log off;
  # (j)'s persistent connections make up to some 100,000 requests each: nginx's default (1000)
  # would close them on the way, and the requests pipelined behind the last one would go
  # unanswered. The other measurements make one request per connection.
  keepalive_requests 1000000;
$(nginx_temp_paths "$dir/tmp")
  server {
$listens    root $dir/www;
  }
}
EOF
    server_start "$dir/stderr" ${in_netns[@]+"${in_netns[@]}"} taskset -c 1 \
      nginx -p "$dir" -c "$dir/nginx.conf"
    if [[ -n ${nginx_tls:-} ]] && kill -0 "$server_pid" 2>/dev/null &&
       wait_tls_port "$port"; then
      log "nginx TLS (pid $server_pid) on 127.0.0.1:$port0-$((port0 + nports - 1)), CPU 1"
      return 0
    fi
    if [[ -z ${nginx_tls:-} ]] && nginx_answers "$dir" 5 "$port" /ok.txt; then
      log "nginx (pid $server_pid) on 127.0.0.1:$port0-$((port0 + nports - 1)), CPU 1 (attempt $try)"
      return 0
    fi
  done
  echo "bench: nginx did not start:" >&2
  cat "$dir/stderr" >&2
  exit 1
}

# wait_tls_port PORT: true once an HTTPS request to 127.0.0.1:PORT gets a reply (5 s at most).
wait_tls_port() {
  local i
  for ((i = 0; i < 50; i++)); do
    ${in_netns[@]+"${in_netns[@]}"} openssl s_client -connect "127.0.0.1:$1" -quiet \
      </dev/null >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}
