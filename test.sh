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

total_passed=0
total_failed=0

# C++ unit and integration tests (GoogleTest through CTest).
ctest_log=$(mktemp)
ctest --preset release -j "$(nproc)" --timeout 900 2>&1 | tee "$ctest_log"
summary=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$ctest_log" | tail -n 1)
if [ -n "$summary" ]; then
  failed=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/' <<<"$summary")
  total=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\2/' <<<"$summary")
  total_passed=$((total_passed + total - failed))
  total_failed=$((total_failed + failed))
else
  echo "ctest produced no summary"
  total_failed=$((total_failed + 1))
fi
rm -f "$ctest_log"

# Vitest suites (browser client): unit tests with the WebAssembly codec and the gateway client
# against a real server, then the end-to-end tests in headless Chromium. Counts come from
# Vitest's JSON report.
run_vitest() {
  local name=$1
  shift
  local report
  report=$(mktemp --suffix=.json)
  (cd client-web && npx --no-install vitest run "$@" --reporter=default --reporter=json \
    --outputFile.json="$report" </dev/null)
  local counts
  counts=$(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const failedSuites = r.testResults.filter((t) => t.status === "failed" && t.assertionResults.length === 0).length;
    console.log(r.numPassedTests, r.numFailedTests + failedSuites);' "$report" 2>/dev/null)
  rm -f "$report"
  if [ -z "$counts" ]; then
    echo "$name: no report"
    total_failed=$((total_failed + 1))
    return
  fi
  read -r passed failed <<<"$counts"
  echo "$name: ${passed} passed, ${failed} failed"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
}
run_vitest "vitest (unit)"
run_vitest "vitest (browser end-to-end)" --config e2e/vitest.config.ts

# Runs a suite whose output ends with "NAME: N passed, N failed" (or "NAME: skipped: why") and
# adds its counts to the totals; a suite with neither line counts as one failure.
run_summarized() {
  local name=$1 log summary
  shift
  log=$(mktemp)
  "$@" </dev/null 2>&1 | tee "$log"
  summary=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1)
  if [ -n "$summary" ]; then
    total_passed=$((total_passed + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$summary")))
    total_failed=$((total_failed + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$summary")))
  elif ! grep -q "^$name: skipped" "$log"; then
    echo "$name: no summary"
    total_failed=$((total_failed + 1))
  fi
  rm -f "$log"
}

# Fuzz smoke: each libFuzzer target a few seconds on its seed corpus (scripts/fuzz.sh; long runs
# are recorded in bench/RESULTS.md).
run_summarized fuzz scripts/fuzz.sh --seconds "${SOFTBODY_FUZZ_SECONDS:-5}"

# Container smoke test: the images built and run with Podman (skipped, saying so, without it;
# SOFTBODY_SKIP_CONTAINER_SMOKE=1 skips it for quick local runs).
if [ "${SOFTBODY_SKIP_CONTAINER_SMOKE:-0}" = 1 ]; then
  echo "container smoke: skipped: SOFTBODY_SKIP_CONTAINER_SMOKE=1"
else
  run_summarized "container smoke" tests/container/smoke.sh
fi

echo "${total_passed} passed, ${total_failed} failed"
[ "$total_failed" -eq 0 ]
