#!/usr/bin/env bash
# Runs the test command given when this machine can give it a network namespace of its own:
# root, unshare, ip, sysctl and python3, and a kernel that lets unshare --net work. Otherwise it
# says what is missing and exits 77, meson's "skipped", so that the test counts as neither
# passed nor failed. scripts/setup installs the packages.
#   tests/needs_netns.sh COMMAND [ARG]...
set -uo pipefail
export PATH=$PATH:/usr/sbin:/sbin
missing=()
[[ $(id -u) -eq 0 ]] || missing+=("root")
for tool in unshare ip sysctl python3; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if ((${#missing[@]} == 0)) && ! unshare --net true 2>/dev/null; then
  missing+=("a kernel that allows 'unshare --net' here")
fi
if ((${#missing[@]})); then
  echo "SKIP: this test needs a network namespace of its own; missing: ${missing[*]}"
  exit 77
fi
exec "$@"
