# Free TCP ports on 127.0.0.1; sourced. A port is free when a socket can bind it now: another
# program may take it before the server does, so the callers' start-up checks stay.
# shellcheck shell=bash

# ports_free: a port of 127.0.0.1 that nothing listens on now (the kernel's choice).
ports_free() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ports_free_run N: the first of N consecutive ports of 127.0.0.1, all free now, between 20000
# and 32000 (below the default local port range, which clients take their ports from); nothing
# when 50 random tries found none. In the namespace in_netns names (netns.sh), when set.
ports_free_run() {
  ${in_netns[@]+"${in_netns[@]}"} python3 - "$1" <<'EOF'
import random, socket, sys
n = int(sys.argv[1])
for _ in range(50):
    first = random.randrange(20000, 32000 - n)
    held = []
    try:
        for p in range(first, first + n):
            s = socket.socket()
            s.bind(("127.0.0.1", p))
            held.append(s)
    except OSError:
        continue
    print(first)
    break
EOF
}
