# Seed 002's four server set-ups (sourced by examples/seed002/run, after seed_isolate): each
# setup_NAME starts its servers with seed_start on free ports, writing their configurations into
# $seed_out, and sets port to the one the client connects to.
# shellcheck shell=bash

# start_paste NAME: one Paste server on a free port; sets port.
start_paste() {
  port=$(seed_free_port)
  seed_start "$1" "$python" "$here/app.py" "$port"
  seed_wait_http "$port" "$uri" || seed_die "$1 did not start (see $seed_out/$1.log)"
}

# start_uwsgi NAME OPTION: uwsgi serving app.py on a free port with the socket option given
# (--fastcgi-socket or --scgi-socket); sets app_port. --die-on-term: uwsgi 2.0 reloads on TERM
# otherwise. No request log, as the other servers here keep none. --listen 1024 (default 100,
# within Linux's somaxconn of 4096): with 100, a short stall of the workers fills the queue and
# lighttpd then marks the back end down and answers 503 to everything for a while, even at 0.5x.
start_uwsgi() {
  app_port=$(seed_free_port)
  seed_start "$1" uwsgi --plugin python3 "$2" "127.0.0.1:$app_port" \
    --wsgi-file "$here/app.py" --master --processes 2 --die-on-term --need-app \
    --disable-logging --listen 1024
}

# nginx_conf NAME PORT LOCATION_BODY HTTP_EXTRA: writes $seed_out/NAME.conf, a single foreground
# nginx process (no master) listening on 127.0.0.1:PORT, every path it writes in $seed_out.
nginx_conf() {
  local dir=$seed_out/$1
  mkdir -p "$dir"
  cat >"$seed_out/$1.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile 16384;
pid $dir/nginx.pid;
error_log $seed_out/$1.error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $dir/client_body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
  $4
  server {
    listen 127.0.0.1:$2;
    location / {
$3
    }
  }
}
EOF
}

# start_nginx NAME PORT: nginx in the foreground with $seed_out/NAME.conf.
start_nginx() {
  seed_start "$1" nginx -p "$seed_out/$1" -e "$seed_out/$1.error.log" -c "$seed_out/$1.conf"
  seed_wait_http "$2" "$uri" || seed_die "$1 did not start (see $seed_out/$1.log)"
}

# wait_ok PORT NAME: waits (at most 20 s) until 127.0.0.1:PORT answers GET $uri with 200; a
# front server answers at once, with 502 while the uwsgi behind it is still loading the app.
wait_ok() {
  seed_wait_http "$1" "$uri" 20 200 || seed_die "$2 does not answer 200 (see the logs in $seed_out)"
}

# setup_paste: Paste's HTTP server alone; sets port.
setup_paste() {
  start_paste paste
}

# setup_nginx_proxy: nginx reverse proxy, round-robin over two Paste servers; sets port.
setup_nginx_proxy() {
  start_paste paste-1
  local p1=$port
  start_paste paste-2
  local p2=$port
  port=$(seed_free_port)
  nginx_conf nginx-proxy "$port" "      proxy_pass http://paste;" \
    "upstream paste { server 127.0.0.1:$p1; server 127.0.0.1:$p2; }"
  start_nginx nginx-proxy "$port"
}

# setup_nginx_fastcgi: nginx fastcgi_pass to uwsgi's FastCGI socket; sets port. The parameters
# are written out (not /etc/nginx/fastcgi_params) so that the WSGI paths are SCRIPT_NAME ""
# and PATH_INFO the URI.
setup_nginx_fastcgi() {
  start_uwsgi uwsgi-fastcgi --fastcgi-socket
  port=$(seed_free_port)
  nginx_conf nginx-fastcgi "$port" "      fastcgi_pass 127.0.0.1:$app_port;
      fastcgi_param REQUEST_METHOD \$request_method;
      fastcgi_param QUERY_STRING \$query_string;
      fastcgi_param CONTENT_TYPE \$content_type;
      fastcgi_param CONTENT_LENGTH \$content_length;
      fastcgi_param REQUEST_URI \$request_uri;
      fastcgi_param SCRIPT_NAME \"\";
      fastcgi_param PATH_INFO \$uri;
      fastcgi_param SERVER_PROTOCOL \$server_protocol;
      fastcgi_param SERVER_NAME \$server_name;
      fastcgi_param SERVER_PORT \$server_port;
      fastcgi_param REMOTE_ADDR \$remote_addr;
      fastcgi_param REMOTE_PORT \$remote_port;" ""
  start_nginx nginx-fastcgi "$port"
}

# setup_lighttpd_scgi: lighttpd mod_scgi (built into Debian's lighttpd 1.4) to uwsgi's SCGI
# socket; sets port. fix-root-scriptname gives the WSGI app SCRIPT_NAME "" and PATH_INFO the URI.
setup_lighttpd_scgi() {
  start_uwsgi uwsgi-scgi --scgi-socket
  port=$(seed_free_port)
  cat >"$seed_out/lighttpd-scgi.conf" <<EOF
server.modules = ("mod_scgi")
server.bind = "127.0.0.1"
server.port = $port
server.document-root = "$seed_out"
server.errorlog = "$seed_out/lighttpd-scgi.error.log"
server.max-fds = 16384
server.max-connections = 8192
scgi.server = ("/" => ((
  "host" => "127.0.0.1", "port" => $app_port,
  "check-local" => "disable", "fix-root-scriptname" => "enable"
)))
EOF
  seed_start lighttpd-scgi lighttpd -D -f "$seed_out/lighttpd-scgi.conf"
  seed_wait_http "$port" "$uri" || seed_die "lighttpd-scgi did not start (see $seed_out/lighttpd-scgi.log)"
}
