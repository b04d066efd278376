#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test suite. The last line is the
# summary over all suites: "N passed, N failed". Exit status is non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")"

scripts/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
if ! scripts/build.sh; then
  echo "build failed"
  echo "0 passed, 1 failed"
  exit 1
fi
if ! scripts/build-web.sh; then
  echo "web client build failed"
  echo "0 passed, 1 failed"
  exit 1
fi

# The counting (scripts/test-summary.sh, tested by tests/test_sh/summary_test.sh): a suite, file
# or test binary that fails to load or crashes counts as failed.
source scripts/test-summary.sh

# C++ unit and integration tests (GoogleTest through CTest).
summarize_ctest ctest ctest --preset release -j "$(nproc)" --timeout 900

# Vitest suites (browser client): unit tests with the WebAssembly codec and the gateway client
# against a real server, then the end-to-end tests in headless Chromium. Counts come from
# Vitest's JSON report.
summarize_vitest "vitest (unit)" client-web
summarize_vitest "vitest (browser end-to-end)" client-web --config e2e/vitest.config.ts

# The summary's own test: suites broken on purpose (a CTest test that aborts, Vitest files that
# throw at import or in a hook) must count as failed.
summarize_suite "test.sh summary" tests/test_sh/summary_test.sh

# Fuzz smoke: each libFuzzer target a few seconds on its seed corpus (scripts/fuzz.sh; long runs
# are recorded in bench/RESULTS.md).
summarize_suite fuzz scripts/fuzz.sh --seconds "${SOFTBODY_FUZZ_SECONDS:-5}"

# Container smoke test: the images built and run with Podman (skipped, saying so, without it;
# SOFTBODY_SKIP_CONTAINER_SMOKE=1 skips it for quick local runs).
if [ "${SOFTBODY_SKIP_CONTAINER_SMOKE:-0}" = 1 ]; then
  echo "container smoke: skipped: SOFTBODY_SKIP_CONTAINER_SMOKE=1"
else
  summarize_suite "container smoke" tests/container/smoke.sh
fi

summary_total
