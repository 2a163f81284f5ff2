#!/usr/bin/env bash
# grpc-java's own interop peers (io.grpc:grpc-interop-testing), each in its own JVM on its own
# classpath (grpc-java 1.79.0 and its netty 4.1), for the interop runs of issue 22 item 7.
# Run by GrpcJavaInteropTest in every build (the build copies the peer into target/lib).
#
#   run.sh fetch                        copy grpc-interop-testing and its runtime dependencies
#                                       into target/lib (Maven; MVN_ARGS is passed to mvn, e.g.
#                                       MVN_ARGS=-Dmaven.repo.local=/path/to/repo)
#   run.sh server --port P              grpc-java's TestServiceServer, h2c on 127.0.0.1:P, in the
#                                       foreground; prints 'LISTENING P' once the port accepts
#   run.sh client --port P [--host H] [--okhttp] [--cases a,b,...] [--jvm-per-case]
#                                       grpc-java's TestServiceClient, every case in one JVM
#                                       (CasesRunner.java: a fresh client and channel per case, as
#                                       its main makes for one), or with --jvm-per-case one JVM per
#                                       case (as its own runners do): 'PASS <case> (N ms)' or 'FAIL
#                                       <case> (N ms): see LOG' per case, then 'N passed, N failed';
#                                       exit 0 only if all passed. --okhttp: its OkHttp transport.
#                                       In one JVM a case that runs longer than CASE_TIMEOUT_SECONDS
#                                       (default 60) fails ('FAIL <case> (N ms): timed out after
#                                       N s (the case deadline), see LOG') and the next one runs.
#                                       Default cases: the 27 that need no credentials
#                                       (orca_*: with the service config selecting grpc-java's
#                                       test_backend_metrics_load_balancer).
#   run.sh self-check                   grpc-java's client against grpc-java's server (two cases,
#                                       netty and okhttp): shows the peers start and run here
#
# Both peers listen and connect on 127.0.0.1 only. JAVA picks the java binary.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lib="$here/target/lib"
logs="$here/target/logs"
java_bin="${JAVA:-java}"

# grpc-java 1.79.0's test cases that need no credentials, in its enum's order.
ALL_CASES="empty_unary,cacheable_unary,large_unary,client_compressed_unary,client_compressed_unary_noprobe,server_compressed_unary,client_streaming,client_compressed_streaming,client_compressed_streaming_noprobe,server_streaming,server_compressed_streaming,ping_pong,empty_stream,custom_metadata,status_code_and_message,special_status_message,unimplemented_method,unimplemented_service,cancel_after_begin,cancel_after_first_response,timeout_on_sleeping_server,very_large_request,pick_first_unary,rpc_soak,channel_soak,orca_per_rpc,orca_oob"

# The service config the orca_per_rpc and orca_oob cases need: grpc-java's interop test balancer,
# which hands each call's per-call report and the out-of-band reports to the test.
ORCA_SERVICE_CONFIG='{"loadBalancingConfig":[{"test_backend_metrics_load_balancer":{}}]}'

die() { echo "run.sh: $*" >&2; exit 2; }

need_lib() {
  [ -f "$lib/grpc-interop-testing-1.79.0.jar" ] || die "no grpc-java peer yet: run '$0 fetch' first"
}

fetch() {
  # shellcheck disable=SC2086
  "$here/../../mvnw" -B -q ${MVN_ARGS:-} -f "$here/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$lib"
  echo "grpc-java interop peer: $(ls "$lib" | wc -l) jars in $lib"
}

# Refuses to start grpc-java's server where its IPV4 mode would also bind a non-loopback address
# (it listens on 127.0.0.1 and on the address the host name resolves to).
check_loopback_hostname() {
  local addr
  addr="$(getent ahostsv4 "$(hostname)" 2>/dev/null | awk 'NR==1{print $1}')"
  case "$addr" in
    127.*|"") ;;
    *) die "the host name resolves to $addr, not loopback: grpc-java's server would listen there too" ;;
  esac
}

server() {
  local port=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --port) port="$2"; shift 2 ;;
      *) die "server: unknown option $1" ;;
    esac
  done
  [ -n "$port" ] || die "server: --port P is required"
  need_lib
  check_loopback_hostname
  "$java_bin" -cp "$lib/*" io.grpc.testing.integration.TestServiceServer \
    --port="$port" --use_tls=false --address_type=IPV4 &
  local pid=$!
  # The pid is expanded now: the EXIT trap runs after this function returned, when its local pid
  # is gone (under set -u, 'pid: unbound variable' and exit status 1 once the server had exited).
  # shellcheck disable=SC2064
  trap "kill $pid 2>/dev/null || true" EXIT INT TERM
  local i
  for i in $(seq 1 300); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "LISTENING $port"
      wait "$pid"
      return
    fi
    kill -0 "$pid" 2>/dev/null || die "server: grpc-java's TestServiceServer exited"
    sleep 0.1
  done
  die "server: port $port did not open within 30 s"
}

client() {
  local host=127.0.0.1 port="" okhttp=false cases="$ALL_CASES" per_case=false
  while [ $# -gt 0 ]; do
    case "$1" in
      --host) host="$2"; shift 2 ;;
      --port) port="$2"; shift 2 ;;
      --okhttp) okhttp=true; shift ;;
      --cases) cases="$2"; shift 2 ;;
      --jvm-per-case) per_case=true; shift ;;
      *) die "client: unknown option $1" ;;
    esac
  done
  [ -n "$port" ] || die "client: --port P is required"
  need_lib
  mkdir -p "$logs"
  local passed=0 failed=0 c start end log suffix=""
  [ "$okhttp" = false ] || suffix=-okhttp
  if [ "$per_case" = false ]; then
    # One JVM for every case: 48 JVM starts per build were most of GrpcJavaInteropTest's time.
    # Its own output (grpc-java's log lines) in client$suffix.log, each case's in its own log.
    # shellcheck disable=SC2086
    "$java_bin" ${CLIENT_JAVA_OPTS--XX:+UseSerialGC} -Dsluice.caseTimeoutSeconds="${CASE_TIMEOUT_SECONDS:-60}" \
      -cp "$lib/*" "$here/CasesRunner.java" \
      "$logs" "$suffix" "$cases" "$ORCA_SERVICE_CONFIG" \
      --server_host="$host" --server_port="$port" --use_tls=false --use_okhttp="$okhttp" \
      2>"$logs/client$suffix.log"
    return
  fi
  for c in ${cases//,/ }; do
    log="$logs/$c$suffix.log"
    # The ORCA cases read their reports through the client's test load balancer, which only a
    # service config selects (as grpc-java's own interop runs do).
    local extra=()
    case "$c" in
      orca_*) extra=(--service_config_json="$ORCA_SERVICE_CONFIG") ;;
      # An iteration counts as failed past 1 s by default; its first one opens the channel in a
      # cold JVM, which took 1.2-2.1 s on a loaded 2-core machine against grpc-java's own server
      # too. The soak checks that the connection keeps serving, not speed: 10 s per iteration.
      *_soak) extra=(--soak_per_iteration_max_acceptable_latency_ms=10000) ;;
    esac
    start=$(date +%s%N)
    # A short-lived client JVM: C1 only and the serial collector start faster (48 of them per run).
    # shellcheck disable=SC2086
    if "$java_bin" ${CLIENT_JAVA_OPTS--XX:TieredStopAtLevel=1 -XX:+UseSerialGC} -cp "$lib/*" \
        io.grpc.testing.integration.TestServiceClient \
        --server_host="$host" --server_port="$port" --use_tls=false --use_okhttp="$okhttp" \
        --test_case="$c" "${extra[@]}" >"$log" 2>&1; then
      end=$(date +%s%N)
      echo "PASS $c ($(( (end - start) / 1000000 )) ms)"
      passed=$((passed + 1))
    else
      end=$(date +%s%N)
      echo "FAIL $c ($(( (end - start) / 1000000 )) ms): see $log"
      failed=$((failed + 1))
    fi
  done
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

self_check() {
  need_lib
  local port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
  "$0" server --port "$port" > "$here/target/self-check-server.log" 2>&1 &
  local spid=$!
  local i
  for i in $(seq 1 300); do
    grep -q "^LISTENING" "$here/target/self-check-server.log" 2>/dev/null && break
    kill -0 "$spid" 2>/dev/null || { cat "$here/target/self-check-server.log" >&2; die "self-check: server did not start"; }
    sleep 0.1
  done
  local rc=0
  echo "grpc-java client (netty) -> grpc-java server on 127.0.0.1:$port"
  client --port "$port" --cases empty_unary,large_unary || rc=1
  echo "grpc-java client (okhttp) -> grpc-java server on 127.0.0.1:$port"
  client --port "$port" --okhttp --cases empty_unary,large_unary || rc=1
  kill "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  return "$rc"
}

case "${1:-}" in
  fetch) shift; fetch "$@" ;;
  server) shift; server "$@" ;;
  client) shift; client "$@" ;;
  self-check) shift; self_check "$@" ;;
  *) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
