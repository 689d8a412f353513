#!/bin/bash
# usage: stop.sh DIR  -- SIGTERM every recorded PID, wait (~2 s), SIGKILL leftovers, remove DIR.
D=$1; pids=$(cat "$D"/run/*.pid 2>/dev/null)
[ -n "$pids" ] && kill -TERM $pids 2>/dev/null
for i in $(seq 1 100); do alive=; for p in $pids; do kill -0 $p 2>/dev/null && alive=1; done; [ -z "$alive" ] && break; sleep 0.1; done
for p in $pids; do kill -0 $p 2>/dev/null && kill -KILL $p; done
rm -rf "$D"
