#!/usr/bin/env bash
# Builds the browser page's script with the machine's npm (run by this module's Maven build, in
# generate-resources): `npm ci` from the committed package-lock.json (again only when the lock
# changed), then esbuild bundles src/main/js into
# target/generated-resources/browser/io/sluice/browserdemo/page/app.js, which goes into the jar.
#
# Without npm, or when npm or esbuild fail, a build outside CI goes on without the page (one
# warning; ./sluice demo --browser then says the page is unavailable, everything else works).
# With CI=true, or SLUICE_BROWSER_BUNDLE=required, that fails the build instead.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
out=target/generated-resources/browser/io/sluice/browserdemo/page/app.js
# Where process-resources copied the bundle of an earlier build: gone too when this one has none.
copied=target/classes/io/sluice/browserdemo/page/app.js
required=false
if [ "${CI:-}" = true ] || [ "${SLUICE_BROWSER_BUNDLE:-}" = required ]; then required=true; fi

without_page() {
  rm -f "$out" "$copied"
  if $required; then
    echo "[ERROR] sluice-browser-demo: $1; the browser page's bundle is required (CI=true or SLUICE_BROWSER_BUNDLE=required)" >&2
    exit 1
  fi
  echo "[WARNING] sluice-browser-demo: $1; building without the browser page (./sluice demo --browser will say it is unavailable)" >&2
  exit 0
}

command -v npm >/dev/null 2>&1 || without_page "npm was not found on PATH"
# npm ci empties node_modules and installs exactly the lock; the stamp skips it when nothing
# changed. --ignore-scripts: none of these packages needs an install script (esbuild finds its
# binary in the @esbuild/<platform> package the lock pins).
stamp=node_modules/.sluice-installed-lock.json
if ! cmp -s package-lock.json "$stamp"; then
  npm ci --ignore-scripts --no-audit --no-fund --prefer-offline >&2 || without_page "npm ci failed"
  cp package-lock.json "$stamp"
fi
npm run --silent bundle >&2 || without_page "the esbuild bundle failed"
