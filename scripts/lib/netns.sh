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

# in_netns: the prefix (an array) that runs a command in a namespace of netns_new's, or nothing
# for the current one. A caller sets it (`local -a in_netns=(...)`: bash's dynamic scope hands it
# to the functions it calls) and the functions that start programs for it put it first:
# server_wait_http, and the scripts' own (nginx, the clients of scripts/bench).
in_netns=()

# netns_new: a new network namespace (`unshare --net`) with loopback up and the whole local port
# range, held by a process that only sleeps (an hour at most), started with server_start
# (servers.sh): stopping it by its PID, and every program started in the namespace, ends the
# namespace. Sets netns_pid and in_netns to nsenter's prefix for it. Fails when not root, or
# without unshare, nsenter or ip, or when the kernel refuses.
netns_new() {
  local PATH=$PATH:/usr/sbin:/sbin ours i
  [[ $(id -u) -eq 0 ]] && command -v unshare >/dev/null && command -v nsenter >/dev/null &&
    command -v ip >/dev/null && command -v sysctl >/dev/null || return 1
  ours=$(readlink /proc/self/ns/net)
  server_start /dev/null unshare --net -- sleep 3600
  netns_pid=$server_pid
  # unshare() takes a moment after the fork: the namespace is new once it differs from ours.
  for ((i = 0; i < 50; i++)); do
    [[ $(readlink "/proc/$netns_pid/ns/net" 2>/dev/null || echo "$ours") != "$ours" ]] && break
    kill -0 "$netns_pid" 2>/dev/null || break
    sleep 0.05
  done
  in_netns=(nsenter "--net=/proc/$netns_pid/ns/net")
  if [[ $(readlink "/proc/$netns_pid/ns/net" 2>/dev/null) == "$ours" ]] ||
     ! "${in_netns[@]}" ip link set lo up ||
     ! "${in_netns[@]}" sysctl -q -w net.ipv4.ip_local_port_range="1024 65535"; then
    server_stop "$netns_pid"
    in_netns=()
    return 1
  fi
}
