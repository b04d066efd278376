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

echo "${total_passed} passed, ${total_failed} failed"
[ "$total_failed" -eq 0 ]
