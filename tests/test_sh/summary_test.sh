#!/usr/bin/env bash
# The test of ./test.sh's counting (scripts/test-summary.sh): real CTest and Vitest runs over
# suites broken on purpose (a test process that aborts, one that cannot start, Vitest files that
# throw at import or in a hook, an error after the tests passed) must count as failed, and
# skipped tests as neither passed nor failed. Needs cmake/ctest and the browser client's
# node_modules (scripts/build-web.sh installs them). Last line: "test.sh summary: N passed,
# N failed".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD
source scripts/test-summary.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

# check WHAT "EXPECTED SUMMARY LINE" FUNCTION ARGS...: runs one summarize_* function from a clean
# count in a subshell and compares the line it prints and the totals it adds.
check() {
  local what=$1 expected=$2 out
  shift 2
  out=$(
    SUMMARY_PASSED=0 SUMMARY_FAILED=0
    "$@" >"$work/output" 2>&1
    tail -n 1 "$work/output"
    echo "totals: $SUMMARY_PASSED $SUMMARY_FAILED"
  )
  local line totals want_totals
  line=$(head -n 1 <<<"$out")
  totals=$(tail -n 1 <<<"$out")
  want_totals="totals: $(sed -E 's/^.*: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$expected")"
  if [ "$line" = "$expected" ] && [ "$totals" = "$want_totals" ]; then
    echo "ok: $what"
    passed=$((passed + 1))
  else
    echo "FAILED: $what"
    echo "  expected: $expected ($want_totals)"
    echo "  got:      $line ($totals)"
    sed 's/^/  | /' "$work/output" | tail -n 40
    failed=$((failed + 1))
  fi
}

# CTest: a project whose tests pass, fail, abort (SIGABRT, as a crashing test binary does),
# cannot start (the binary was not built) and skip.
mkdir -p "$work/ctest"
cat >"$work/ctest/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(summary_fixture NONE)
enable_testing()
add_test(NAME Passes COMMAND ${CMAKE_COMMAND} -E true)
add_test(NAME AlsoPasses COMMAND ${CMAKE_COMMAND} -E true)
add_test(NAME Fails COMMAND ${CMAKE_COMMAND} -E false)
add_test(NAME Aborts COMMAND sh -c "kill -ABRT $$")
add_test(NAME NotBuilt COMMAND ${CMAKE_BINARY_DIR}/not-built)
add_test(NAME Skips COMMAND sh -c "exit 77")
set_tests_properties(Skips PROPERTIES SKIP_RETURN_CODE 77)
EOF
if cmake -S "$work/ctest" -B "$work/ctest/build" >"$work/cmake.log" 2>&1; then
  check "ctest: an aborting test and a missing test binary count as failed, a skip as neither" \
    "ctest: 2 passed, 3 failed (1 skipped)" \
    summarize_ctest ctest ctest --test-dir "$work/ctest/build"
  check "ctest: only passing tests" \
    "ctest: 2 passed, 0 failed" summarize_ctest ctest ctest --test-dir "$work/ctest/build" -R Passes
else
  echo "FAILED: configuring the CTest fixture"
  cat "$work/cmake.log"
  failed=$((failed + 1))
fi
check "ctest: a run that prints no summary counts as failed" \
  "ctest: 0 passed, 1 failed (no CTest summary, exit status 1)" summarize_ctest ctest false

# Vitest: files run by the browser client's Vitest (globals on, so the files import nothing).
vt=$work/vitest
mkdir -p "$vt/broken" "$vt/clean" "$vt/unhandled"
echo 'export default {};' | tee "$vt/broken/vitest.config.mjs" "$vt/clean/vitest.config.mjs" \
  "$vt/unhandled/vitest.config.mjs" >/dev/null
cat >"$vt/broken/passes.test.js" <<'EOF'
it("passes", () => expect(1).toBe(1));
it.skip("is skipped", () => {});
EOF
cat >"$vt/broken/fails.test.js" <<'EOF'
it("fails", () => expect(1).toBe(2));
EOF
cat >"$vt/broken/throws-at-import.test.js" <<'EOF'
throw new Error("broken on purpose: this file throws while it is imported");
EOF
cat >"$vt/broken/before-all-throws.test.js" <<'EOF'
beforeAll(() => {
  throw new Error("broken on purpose: the fixture cannot be made");
});
it("needs the fixture", () => {});
it("needs the fixture too", () => {});
EOF
cat >"$vt/broken/after-all-throws.test.js" <<'EOF'
afterAll(() => {
  throw new Error("broken on purpose: teardown throws");
});
it("passes before the teardown", () => {});
EOF
cp "$vt/broken/passes.test.js" "$vt/clean/"
cat >"$vt/unhandled/late-error.test.js" <<'EOF'
it("passes but leaves an error behind", async () => {
  setTimeout(() => {
    throw new Error("broken on purpose: thrown after the test");
  }, 0);
  await new Promise((resolve) => setTimeout(resolve, 50));
});
EOF
vitest_in() {
  summarize_vitest vitest "$repo/client-web" --root "$1" --config "$1/vitest.config.mjs" --globals
}
check "vitest: files that throw at import, in beforeAll and in afterAll count as failed" \
  "vitest: 2 passed, 4 failed (3 skipped)" vitest_in "$vt/broken"
check "vitest: only passing files" "vitest: 1 passed, 0 failed (1 skipped)" vitest_in "$vt/clean"
check "vitest: an unhandled error after passing tests counts as failed" \
  "vitest: 1 passed, 1 failed (vitest exited with status 1 without a failed test)" \
  vitest_in "$vt/unhandled"
check "vitest: no report counts as failed" \
  "vitest: 0 passed, 1 failed (no Vitest report, exit status 1)" \
  summarize_vitest vitest "$repo/client-web" --config "$vt/no-such-config.mjs"

# Suites that print their own counts (fuzz, container smoke).
check "suite: its own counts" "demo: 3 passed, 1 failed" \
  summarize_suite demo bash -c 'echo "demo: 3 passed, 1 failed"; exit 1'
check "suite: counts, then a crash" \
  "demo: 3 passed, 1 failed (exited with status 134 without a failed test)" \
  summarize_suite demo bash -c 'echo "demo: 3 passed, 0 failed"; kill -ABRT $$'
check "suite: no summary line" "demo: 0 passed, 1 failed (no summary line)" \
  summarize_suite demo bash -c 'echo "demo: starting"'
check "suite: skipped, saying why" "demo: 0 passed, 0 failed (skipped)" \
  summarize_suite demo bash -c 'echo "demo: skipped: no podman"'

# The totals over several suites, and the last line's exit status.
totals=$(
  SUMMARY_PASSED=0 SUMMARY_FAILED=0
  summarize_suite a bash -c 'echo "a: 5 passed, 0 failed"' >/dev/null
  summarize_suite b bash -c 'echo "b: 2 passed, 1 failed"' >/dev/null
  summary_total
  echo "status $?"
)
if [ "$totals" = $'7 passed, 1 failed\nstatus 1' ]; then
  echo "ok: totals over suites, non-zero status on a failure"
  passed=$((passed + 1))
else
  echo "FAILED: totals over suites: got: $totals"
  failed=$((failed + 1))
fi

echo "test.sh summary: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
