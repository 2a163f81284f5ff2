#!/usr/bin/env bash
# ./sluice bench ... and ./sluice jmh ... land here (see the ./sluice script).
# Builds sluice-benchmarks (and what it depends on) and the standalone rsocket-java / Spring RSocket
# peer jar when missing or older than their sources, then runs the benchmark front door.
# Nothing here runs during `./mvnw verify`: the peer pom is not in the root module list.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="$root/sluice-benchmarks"
peers="$root/peers/rsocket-java-bench"
peers_jar="$peers/target/peers-rsocket.jar"
java_bin="${SLUICE_JAVA:-java}"

# --help builds nothing: the texts BenchMain prints too.
for a in "$@"; do
  if [ "$a" = --help ]; then
    cat "$bench/src/main/resources/io/sluice/benchmarks/${1:-bench}-usage.txt"
    exit 0
  fi
done

stale() { # stale <stamp file> <dir>...: true when the stamp is missing or a source/pom is newer
  local stamp="$1"
  shift
  [ -f "$stamp" ] || return 0
  [ -n "$(find "$@" \( -path '*/src/main/*' -o -path '*/src/harness/*' -o -name pom.xml \) \
    -not -path '*/target/*' -newer "$stamp" -print -quit 2>/dev/null)" ]
}

# On JDK 21+ the build adds the sluice-virtualthreads impl (Maven profile jdk21); a build made
# earlier on JDK 17 lacks it, so build again when the JDK that builds and runs is newer than that.
needs_jdk21_build() {
  local feature
  [ ! -f "$bench/target/classes/io/sluice/benchmarks/flavor/VirtualThreadsImpl.class" ] || return 1
  feature="$("$java_bin" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  [ "${feature:-0}" -ge 21 ] 2>/dev/null
}

# The native I/O engines (epoll, io_uring) need netty's native jars, served for netty 4.2.18.Final
# but not for the 4.2.20.Final the build uses (docs/guide/transports.md, "Netty version"): a run
# that asks for them (--compare-transports, --io epoll|io_uring, an impl sluice@tcp/epoll, or
# SLUICE_BENCH_NATIVE=1) builds everything with -Pnative-io, whose netty is 4.2.18.Final.
profile=""
case " $* " in
  *" --compare-transports "* | *" --io epoll "* | *" --io io_uring "* | *"/epoll"* | *"/io_uring"*) profile="-Pnative-io" ;;
esac
[ "${SLUICE_BENCH_NATIVE:-}" != 1 ] || profile="-Pnative-io"
# A build of the other kind is rebuilt (the stamp says which the last build was).
profile_stamp="$bench/target/build-profile"
if [ -f "$bench/target/classpath.txt" ] && [ "$(cat "$profile_stamp" 2>/dev/null)" != "$profile" ]; then
  rm -f "$bench/target/classpath.txt"
fi

# Everything sluice-benchmarks depends on: the core, the transport, every flavor impl's module, the
# RPC runtime and its compiler (which generates the sluice-rpc impl's service).
if stale "$bench/target/classpath.txt" "$root/pom.xml" "$root/sluice-api" "$root/sluice-core" \
  "$root/sluice-transport-netty" "$root/sluice-transport-websocket" "$root/sluice-transport-http2" "$root/sluice-transport-grpc" "$root/sluice-reactor" "$root/sluice-flavor-support" \
  "$root/sluice-futures" "$root/sluice-rxjava" "$root/sluice-mutiny" "$root/sluice-grpc-stub" \
  "$root/sluice-rpc" "$root/sluice-rpc-reactor" "$root/sluice-rpc-compiler" \
  "$root/sluice-virtualthreads" "$root/sluice-balancer" "$root/sluice-lease" "$root/sluice-micrometer" "$bench" || needs_jdk21_build; then
  echo "sluice: building sluice-benchmarks (first run or sources changed)..." >&2
  # shellcheck disable=SC2086
  (cd "$root" && "${SLUICE_MVN:-$root/mvnw}" -q -B $profile -Dmaven.test.skip=true -pl sluice-benchmarks -am install >&2) || {
    echo "sluice: build of sluice-benchmarks failed" >&2
    exit 1
  }
  echo "$profile" > "$profile_stamp"
  # The class path file is the stamp of this build; the dependency plugin leaves it untouched when
  # its content is the same, and every later run then built again.
  touch "$bench/target/classpath.txt"
fi

if [ "${1:-}" = bench ] && stale "$peers_jar" "$peers" "$bench/src/harness"; then
  echo "sluice: building the rsocket-java / Spring RSocket peers (first run or sources changed)..." >&2
  (cd "$peers" && "${SLUICE_MVN:-$root/mvnw}" -q -B -Dmaven.test.skip=true package >&2) || {
    echo "sluice: build of peers/rsocket-java-bench failed" >&2
    exit 1
  }
fi

# --compare-grpc --h2load: grpc-java's benchmark server on its own class path (peers/grpc-java-bench).
grpc_peer="$root/peers/grpc-java-bench"
case " $* " in
  *" --h2load "*)
    if [ ! -d "$grpc_peer/target/lib" ] || [ "$grpc_peer/pom.xml" -nt "$grpc_peer/target/lib" ]; then
      echo "sluice: fetching grpc-java's benchmark server (first run)..." >&2
      (cd "$grpc_peer" && "${SLUICE_MVN:-$root/mvnw}" -q -B package >&2) || {
        echo "sluice: build of peers/grpc-java-bench failed" >&2
        exit 1
      }
    fi ;;
esac

# Sluice's modules from this checkout's own build: the class path file names them in the local
# Maven repository when sluice-benchmarks was built alone (without -am), and every checkout on
# the machine installs there, so two checkouts benchmarked side by side could both run whichever
# installed last. Only a module's main jar (<module>-<version>.jar) is mapped; a module without
# target/classes here is an error.
own_modules() {
  local IFS=: out="" e m v
  set -f
  for e in $1; do
    case "$e" in
      */io/sluice/*.jar)
        v="${e%/*}"; m="${v%/*}"; v="${v##*/}"; m="${m##*/}"
        if [ "${e##*/}" = "$m-$v.jar" ]; then
          if [ ! -d "$root/$m/target/classes" ]; then
            echo "sluice: $m is not built in this checkout ($root/$m/target/classes is missing):" \
              "delete $bench/target/classpath.txt and run again to build it" >&2
            return 1
          fi
          e="$root/$m/target/classes"
        fi ;;
    esac
    out="${out:+$out:}$e"
  done
  set +f
  printf '%s' "$out"
}
listed="$(cat "$bench/target/classpath.txt")"
mapped="$(own_modules "$listed")"
cp="$bench/target/classes:$mapped"
# ./sluice bench --print-classpath: this checkout's class path, for runs of two builds side by side.
if [ "${2:-}" = --print-classpath ]; then
  printf '%s\n' "$cp"
  exit 0
fi
# --scale holds a socket per connection in each child: the soft open-file limit up to the hard one
# (the run says what to raise when even that is too low).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
cd "$root"
# java.lang opened for --vt-costs (EventLoopThreads in this JVM); harmless otherwise.
# shellcheck disable=SC2086
exec "$java_bin" --add-opens java.base/java.lang=ALL-UNNAMED ${JAVA_OPTS:-} -Dsluice.bench.peers="$peers_jar" -cp "$cp" \
  io.sluice.benchmarks.BenchMain "$@"
