# shellcheck shell=bash
# The counting behind ./test.sh's summary line, sourced by test.sh and by its test
# (tests/test_sh/summary_test.sh). Each summarize_* function runs one suite, shows its output,
# prints "NAME: N passed, N failed" (with what was skipped or why a failure was added) and adds
# the counts to SUMMARY_PASSED and SUMMARY_FAILED. What does not run to a count is a failure:
# a test binary that crashes or aborts, a Vitest file that fails to load or whose hooks throw,
# a runner that prints no counts, or exits non-zero without reporting a failed test, counts as
# failed. Skipped tests are neither passed nor failed; the suite's line says how many.

SUMMARY_PASSED=0
SUMMARY_FAILED=0

# summary_add NAME PASSED FAILED [NOTE]
summary_add() {
  echo "$1: $2 passed, $3 failed${4:+ ($4)}"
  SUMMARY_PASSED=$((SUMMARY_PASSED + $2))
  SUMMARY_FAILED=$((SUMMARY_FAILED + $3))
}

# Prints the summary line over every suite counted so far; the status is non-zero if anything
# failed.
summary_total() {
  echo "${SUMMARY_PASSED} passed, ${SUMMARY_FAILED} failed"
  [ "$SUMMARY_FAILED" -eq 0 ]
}

# summarize_ctest NAME COMMAND...: COMMAND runs ctest. Counts come from its last "N% tests
# passed, N tests failed out of N" line. CTest itself counts a test whose process crashed,
# aborted or could not start ("Not Run") as failed, but counts skipped tests as passed: those
# listed "(Skipped)" or "(Disabled)" under "The following tests did not run" are taken out.
summarize_ctest() {
  local name=$1 log status summary total failed skipped note=""
  shift
  log=$(mktemp)
  "$@" </dev/null 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  summary=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -n 1)
  if [ -z "$summary" ]; then
    summary_add "$name" 0 1 "no CTest summary, exit status $status"
  else
    failed=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/' <<<"$summary")
    total=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\2/' <<<"$summary")
    skipped=$(sed -n '/^The following tests did not run:/,/^$/p' "$log" |
      grep -cE '\((Skipped|Disabled)\)[[:space:]]*$')
    [ "$skipped" -gt 0 ] && note="$skipped skipped"
    if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
      failed=1
      note="${note:+$note; }ctest exited with status $status without a failed test"
    fi
    summary_add "$name" $((total - failed - skipped)) "$failed" "$note"
  fi
  rm -f "$log"
}

# Counts from a Vitest JSON report: "PASSED FAILED SKIPPED". A file whose status is "failed"
# although none of its tests failed counts as one failed test: it failed to load (its tests are
# then absent) or a hook threw (beforeAll: its tests are reported skipped; afterAll: passed).
vitest_report_counts() {
  # shellcheck disable=SC2016 # JavaScript, not shell
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const brokenFiles = r.testResults.filter(
      (f) => f.status === "failed" && !f.assertionResults.some((t) => t.status === "failed"));
    for (const f of brokenFiles)
      console.error(`${f.name}: failed outside its tests: ${(f.message || "").split("\n")[0]}`);
    console.log(r.numPassedTests, r.numFailedTests + brokenFiles.length,
                r.numPendingTests + r.numTodoTests);' "$1"
}

# summarize_vitest NAME DIR ARGS...: runs `vitest run ARGS` in DIR (the package that has Vitest
# installed) with its JSON report. Vitest exiting non-zero with nothing counted as failed
# (unhandled errors, a failure outside any file) adds one failure; no report is one failure.
summarize_vitest() {
  local name=$1 dir=$2 report status counts passed failed skipped note=""
  shift 2
  report=$(mktemp --suffix=.json)
  rm -f "$report"
  (cd "$dir" && npx --no-install vitest run "$@" --reporter=default --reporter=json \
    --outputFile.json="$report" </dev/null)
  status=$?
  if [ ! -s "$report" ] || ! counts=$(vitest_report_counts "$report"); then
    summary_add "$name" 0 1 "no Vitest report, exit status $status"
    rm -f "$report"
    return
  fi
  rm -f "$report"
  read -r passed failed skipped <<<"$counts"
  [ "$skipped" -gt 0 ] && note="$skipped skipped"
  if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1
    note="${note:+$note; }vitest exited with status $status without a failed test"
  fi
  summary_add "$name" "$passed" "$failed" "$note"
}

# summarize_suite NAME COMMAND...: a suite whose output ends with "NAME: N passed, N failed" (or
# "NAME: skipped: why"). No such line, or a non-zero exit with no failure counted, adds one
# failure.
summarize_suite() {
  local name=$1 log status summary passed failed note=""
  shift
  log=$(mktemp)
  "$@" </dev/null 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  summary=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1)
  if [ -n "$summary" ]; then
    passed=$(sed -E 's/^.*: ([0-9]+) passed.*/\1/' <<<"$summary")
    failed=$(sed -E 's/^.*, ([0-9]+) failed.*/\1/' <<<"$summary")
  elif grep -q "^$name: skipped" "$log"; then
    passed=0 failed=0 note="skipped"
  else
    passed=0 failed=1 note="no summary line"
  fi
  if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1
    note="${note:+$note; }exited with status $status without a failed test"
  fi
  rm -f "$log"
  summary_add "$name" "$passed" "$failed" "$note"
}
