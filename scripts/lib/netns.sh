# A network namespace of the script's own; sourced.
#
# One-request connections from one address to one port can only be opened as fast as the kernel
# finds a local port whose 4-tuple is free, and each client-closed connection holds its port in
# TIME_WAIT for 60 s. With the default range of 28,232 local ports that, not the client or the
# server, caps a run near 14,000 conn/s for 2 s, and a 40,000-connection run slows every
# connect() to a crawl. A namespace of our own has loopback only, the whole range 1024-65535, no
# TIME_WAIT sockets of earlier runs or other programs, and disappears with its last process.
# shellcheck shell=bash

netns_where="the machine's network namespace"  # where the runs are, for the tables

# netns_enter SCRIPT ARGS...: as root, with unshare and ip, starts `bash SCRIPT ARGS...` again
# in a new network namespace and does not return (exec); there, where it is called again, sets
# up loopback and the port range, sets netns_where and returns. Otherwise (not root, or a kernel
# that refuses) returns and the script runs in the machine's namespace. Call it once everything
# that needs the machine's network (apt-get) is done; what the second start needs (a rateperf
# already built) goes in the environment or ARGS.
netns_enter() {
  local PATH=$PATH:/usr/sbin:/sbin
  # The namespace is recognised by its identity, not by a flag: a flag would also reach the
  # scripts that this one starts, which would then take our namespace for one of their own.
  if [[ -n ${RATEPERF_NETNS:-} && $RATEPERF_NETNS == "$(readlink /proc/self/ns/net)" ]]; then
    ip link set lo up && sysctl -q -w net.ipv4.ip_local_port_range="1024 65535" || return 1
    netns_where="own network namespace, local ports 1024-65535"
    return 0
  fi
  if [[ $(id -u) -eq 0 ]] && command -v unshare >/dev/null && command -v ip >/dev/null &&
     command -v sysctl >/dev/null && unshare --net true 2>/dev/null; then
    # shellcheck disable=SC2016  # expanded by the bash inside the namespace
    exec unshare --net -- bash -c \
      'RATEPERF_NETNS=$(readlink /proc/self/ns/net) && export RATEPERF_NETNS && exec bash "$@"' \
      netns "$@"
  fi
  return 0
}
