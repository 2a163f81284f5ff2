#!/usr/bin/env bash
# Prepares the gRPC-Web client that GrpcWebNodeClientTest runs (this module's Maven build runs it
# in generate-test-resources): copies package.json, package-lock.json, client.mjs and echo.proto
# to target/grpc-web-client, `npm ci` there from the committed lock (again only when the lock
# changed), then protoc (Maven Central's, copied to target/protoc by the build) with
# node_modules/.bin/protoc-gen-es generates gen/echo_pb.js.
#
# Without npm, or when npm or protoc fail, a build outside CI goes on (one warning; the test is
# then skipped). With CI=true, or SLUICE_GRPC_WEB_CLIENT=required, that fails the build instead.
set -uo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
src="$module/src/test/js"
dir="$module/target/grpc-web-client"
required=false
if [ "${CI:-}" = true ] || [ "${SLUICE_GRPC_WEB_CLIENT:-}" = required ]; then required=true; fi

without_client() {
  rm -rf "$dir/gen"
  if $required; then
    echo "[ERROR] sluice-transport-grpc: $1; the gRPC-Web test client is required (CI=true or SLUICE_GRPC_WEB_CLIENT=required)" >&2
    exit 1
  fi
  echo "[WARNING] sluice-transport-grpc: $1; GrpcWebNodeClientTest will be skipped" >&2
  exit 0
}

command -v npm >/dev/null 2>&1 || without_client "npm was not found on PATH"
mkdir -p "$dir"
cp "$src/package.json" "$src/package-lock.json" "$src/client.mjs" "$src/echo.proto" "$dir/"
cd "$dir" || exit 1
# --ignore-scripts: none of these packages needs an install script.
stamp=node_modules/.sluice-installed-lock.json
if ! cmp -s package-lock.json "$stamp"; then
  npm ci --ignore-scripts --no-audit --no-fund --prefer-offline >&2 || without_client "npm ci failed"
  cp package-lock.json "$stamp"
fi
protoc="$module/target/protoc/protoc"
[ -f "$protoc" ] || without_client "protoc was not copied to $protoc"
chmod +x "$protoc"
mkdir -p gen
"$protoc" --plugin=protoc-gen-es=node_modules/.bin/protoc-gen-es --es_out=gen --es_opt=target=js \
  --proto_path=. echo.proto >&2 || without_client "protoc with protoc-gen-es failed"
