#!/usr/bin/env bash
# Builds the browser client: npm packages from the committed lockfile (npm ci, only when they
# changed), the WebAssembly codec (scripts/build-wasm.sh), then `npm run build` into
# client-web/dist/, which softbody-server serves.
set -euo pipefail
cd "$(dirname "$0")/.."
cd client-web
stamp=node_modules/.softbody-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "build-web: npm ci"
  if ! npm ci --no-audit --no-fund --loglevel=error 2>/tmp/softbody-npm-ci.log; then
    # npm ci refuses a lockfile without entries for other platforms' optional packages (rollup's
    # and esbuild's native binaries); registry mirrors that carry only this platform's packages
    # make such lockfiles. npm install --no-save installs the same locked versions and leaves the
    # lockfile as it is.
    if grep -q "Missing: .* from lock file" /tmp/softbody-npm-ci.log; then
      echo "build-web: npm ci refused the lockfile (other platforms' optional packages missing);" \
        "installing the locked versions with npm install --no-save"
      npm install --no-save --no-audit --no-fund --loglevel=error
    else
      cat /tmp/softbody-npm-ci.log >&2
      exit 1
    fi
  fi
  cp package-lock.json "$stamp"
fi
cd ..
scripts/build-wasm.sh
cd client-web
npm run --silent build
