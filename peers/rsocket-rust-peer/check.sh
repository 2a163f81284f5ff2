#!/usr/bin/env bash
# check.sh TRANSPORT [JAVA_CLASSPATH]: starts the Sluice echo server (./sluice server, or
# io.sluice.cli.Main from JAVA_CLASSPATH) on a free port of 127.0.0.1 with TRANSPORT (tcp or ws),
# runs this rsocket-rust client against it, then stops the server by its PID. Exit 0 iff the
# client's metadata push arrived. Build the client first: cargo build --release.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
transport="${1:-tcp}"
out="$(mktemp)"
if [ -n "${2:-}" ]; then
  java -cp "$2" io.sluice.cli.Main server --transport "$transport" --port 0 >"$out" 2>/dev/null &
else
  "$root/sluice" server --transport "$transport" --port 0 >"$out" 2>/dev/null &
fi
pid=$!
for _ in $(seq 1 600); do grep -q '^LISTENING ' "$out" && break; sleep 0.2; done
port="$(sed -n 's/^LISTENING //p' "$out")"
if [ -z "$port" ]; then
  echo "FAIL server did not start" >&2
  kill "$pid" 2>/dev/null
  rm -f "$out"
  exit 1
fi
if [ "$transport" = tcp ]; then addr="127.0.0.1:$port"; else addr="ws://127.0.0.1:$port/"; fi
timeout 60 "$here/target/release/rsocket-rust-peer" "$transport" "$addr"
rc=$?
kill "$pid"
wait "$pid" 2>/dev/null
rm -f "$out"
exit "$rc"
