# Seed 003's three servers (sourced by examples/seed003/run, after seed_isolate): each
# start_NAME PORT writes a minimal configuration into $seed_out that serves $docroot on
# 127.0.0.1:PORT, and starts the server in the foreground with seed_start (stopped by its PID).
# shellcheck shell=bash

# start_apache PORT: Apache with the event MPM (seed_apache_conf), the files and nothing else.
start_apache() {
  local dir=$seed_out/apache
  {
    seed_apache_conf "$dir" "$1"
    cat <<CONF
DocumentRoot "$docroot"
<Directory "$docroot">
  Require all granted
</Directory>
CONF
  } >"$seed_out/apache.conf"
  seed_start apache apache2 -f "$seed_out/apache.conf" -DFOREGROUND
}

# start_nginx PORT: nginx with the worker settings of Debian's nginx.conf; its temporary
# directories in $seed_out, so that it needs nothing writable in /var/lib/nginx.
start_nginx() {
  local dir=$seed_out/nginx user=
  mkdir -p "$dir"
  if [[ $(id -u) -eq 0 ]]; then user="user www-data;"; fi
  cat >"$seed_out/nginx.conf" <<CONF
$user
worker_processes auto;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 768; }
http {
  types { text/html html; image/jpeg jpg; }
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  access_log off;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
  server {
    listen 127.0.0.1:$1;
    root $docroot;
    index index.html;
  }
}
CONF
  seed_start nginx nginx -p "$dir" -c "$seed_out/nginx.conf" -e "$dir/error.log" -g 'daemon off;'
}

# start_lighttpd PORT: lighttpd in the foreground (-D) with its default modules.
start_lighttpd() {
  local dir=$seed_out/lighttpd user=
  mkdir -p "$dir"
  # As root it drops to www-data before it opens its error log.
  if [[ $(id -u) -eq 0 ]]; then
    chown www-data:www-data "$dir"
    user='server.username = "www-data"
server.groupname = "www-data"'
  fi
  cat >"$seed_out/lighttpd.conf" <<CONF
$user
server.bind = "127.0.0.1"
server.port = $1
server.document-root = "$docroot"
server.errorlog = "$dir/error.log"
index-file.names = ( "index.html" )
mimetype.assign = ( ".html" => "text/html", ".jpg" => "image/jpeg" )
CONF
  seed_start lighttpd lighttpd -D -f "$seed_out/lighttpd.conf"
}
