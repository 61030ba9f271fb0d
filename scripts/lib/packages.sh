# Debian packages the scripts need, installed when missing; sourced.
# shellcheck shell=bash

# pkg_missing PKG...: prints those of the packages that are not installed, space-separated.
pkg_missing() {
  local pkg missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
  done
  echo "${missing[*]}"
}

# pkg_install LOG PKG...: installs the packages with apt-get (the package lists refreshed only
# when a first try fails), its output in LOG. Without letting their maintainer scripts start
# services on the machine: a policy-rc.d that denies keeps apache2, nginx or lighttpd off port
# 80 (one the machine already has is left alone). Fails when not root or apt-get fails.
pkg_install() {
  local log=$1 policy=/usr/sbin/policy-rc.d own_policy=0 status=0
  shift
  (($#)) || return 0
  [[ $(id -u) -eq 0 ]] || return 1
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && own_policy=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >"$log" 2>&1 ||
    { apt-get update -qq >>"$log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >>"$log" 2>&1; } ||
    status=$?
  ((own_policy)) && rm -f "$policy"
  return "$status"
}
