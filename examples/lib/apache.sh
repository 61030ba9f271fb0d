# Apache for the seed reproductions (sourced by seed.sh).
# shellcheck shell=bash

# seed_apache_conf DIR PORT: prints the start of a minimal Apache configuration for
# `apache2 -f CONF -DFOREGROUND`, independent of /etc/apache2: the event MPM with the limits of
# Debian's mpm_event.conf, authz_core, mime (/etc/mime.types) and dir; pid file, error log,
# mutexes and runtime files in DIR; 127.0.0.1:PORT only; as root, children run as www-data
# (Apache refuses to serve as root). The caller appends its DocumentRoot, modules and the rest.
seed_apache_conf() {
  local dir=$1 port=$2 modules=/usr/lib/apache2/modules
  mkdir -p "$dir/run"
  cat <<CONF
ServerRoot "$dir"
LoadModule mpm_event_module $modules/mod_mpm_event.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule mime_module $modules/mod_mime.so
LoadModule dir_module $modules/mod_dir.so
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile "$dir/run/apache2.pid"
DefaultRuntimeDir "$dir/run"
Mutex file:$dir/run default
ErrorLog "$dir/error.log"
LogLevel warn
StartServers 2
MinSpareThreads 25
MaxSpareThreads 75
ThreadLimit 64
ThreadsPerChild 25
MaxRequestWorkers 150
MaxConnectionsPerChild 0
TypesConfig /etc/mime.types
DirectoryIndex index.html
CONF
  if [[ $(id -u) -eq 0 ]]; then
    printf 'User www-data\nGroup www-data\n'
  fi
}

# seed_wsgi_conf DIR APP_DIR PATH SCRIPT: prints mod_wsgi's lines for seed 001's daemon mode (4
# processes x 15 threads, as the seed ran it; no Python in Apache's own children), its socket
# in DIR/run, the scripts of APP_DIR allowed, and SCRIPT served at PATH (seed_wsgi_script).
seed_wsgi_conf() {
  cat <<CONF
LoadModule wsgi_module /usr/lib/apache2/modules/mod_wsgi.so
WSGISocketPrefix "$1/run/wsgi"
WSGIRestrictEmbedded On
WSGIDaemonProcess seed001 processes=4 threads=15 display-name=%{GROUP}
WSGIProcessGroup seed001
WSGIApplicationGroup %{GLOBAL}
<Directory "$2">
  Require all granted
</Directory>
CONF
  seed_wsgi_script "$3" "$4"
}

# seed_wsgi_script PATH SCRIPT: SCRIPT served at PATH by seed_wsgi_conf's daemons, imported at
# start-up so that no run pays for the first import.
seed_wsgi_script() {
  cat <<CONF
WSGIScriptAlias $1 "$2"
WSGIImportScript "$2" process-group=seed001 application-group=%{GLOBAL}
CONF
}
