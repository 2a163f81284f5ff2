#!/usr/bin/env bash
# Builds and runs the getting-started user project (docs/getting-started/project) as a user would:
# a copy in a new directory, its own pom, Sluice from the local Maven repository, everything else
# from Maven Central. Fails unless its output is exactly expected-output.txt.
#
#   bash docs/getting-started/check.sh              # installs the Sluice modules it needs first
#   bash docs/getting-started/check.sh --no-install # uses what is already installed
#
# The local repository is Maven's default; set MAVEN_OPTS=-Dmaven.repo.local=DIR to use another
# (it applies to both builds).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

install=true
case "${1:-}" in
  --no-install) install=false ;;
  "") ;;
  *) echo "usage: $0 [--no-install]" >&2; exit 2 ;;
esac

# The version the main build installs (the user project defaults to the same; kept in step here).
version="$(sed -n '0,/<version>/s/.*<version>\(.*\)<\/version>.*/\1/p' "$root/pom.xml")"

if $install; then
  echo "getting-started: installing the Sluice modules the project uses (${version})..." >&2
  (cd "$root" && "$root/mvnw" -B -q -Dstyle.color=never -Dmaven.test.skip=true install \
      -pl sluice-rpc-reactor,sluice-transport-netty,sluice-rpc-compiler -am >&2)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$here/project" "$work/project"
rm -rf "$work/project/target"

echo "getting-started: building and running the user project in $work/project..." >&2
out="$work/output.txt"
(cd "$work/project" && "$root/mvnw" -B -q -Dstyle.color=never -Dsluice.version="$version" compile exec:exec) \
  | sed 's/\x1b\[[0-9;]*m//g' | grep -v '^$' | tee "$out"   # Maven 3.8 -q still prints colour resets

if ! diff -u "$here/expected-output.txt" "$out"; then
  echo "getting-started: FAILED, output differs from docs/getting-started/expected-output.txt" >&2
  exit 1
fi
echo "getting-started: OK" >&2
