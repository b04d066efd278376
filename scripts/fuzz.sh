#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with ASan + UBSan, the fuzz preset) and runs each on
# its seed corpus (fuzz/corpus/NAME/). Usage:
#   scripts/fuzz.sh [--seconds S | --runs N] [TARGET...]
# Default: a smoke run of 10 s per target (./test.sh). A long run, e.g. --runs 10000000, is what
# bench/RESULTS.md records. New inputs go to build/fuzz/corpus/NAME/ (the seeds stay untouched);
# crashes to build/fuzz/artifacts/. Last line: "fuzz: N passed, N failed" (a target fails on a
# crash, a sanitizer report, a leak or a timeout).
set -uo pipefail
cd "$(dirname "$0")/.."
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
limit=(-max_total_time=10)
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) limit=(-max_total_time="$2"); shift 2 ;;
    --runs) limit=(-runs="$2"); shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(mesh_loader_fuzzer scene_parser_fuzzer frame_decoder_fuzzer
                                    gateway_message_fuzzer)
if ! command -v clang++ >/dev/null; then
  echo "fuzz: skipped: clang++ is not installed (scripts/install-deps.sh installs it)"
  exit 0
fi
if [ ! -f build/fuzz/build.ninja ]; then
  cmake --preset fuzz -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    >/dev/null || { echo "fuzz: 0 passed, 1 failed (configure)"; exit 1; }
fi
cmake --build build/fuzz --target fuzzers >/dev/null || { echo "fuzz: 0 passed, 1 failed (build)"; exit 1; }
passed=0 failed=0
mkdir -p build/fuzz/artifacts
for t in "${targets[@]}"; do
  work=build/fuzz/corpus/${t%_fuzzer}
  mkdir -p "$work"
  log=build/fuzz/$t.log
  # One job, the seeds read-only (first directory gets new inputs), no leak check for the engine's
  # process-lifetime caches (OpenBLAS threads), a second per input at most.
  if ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "build/fuzz/fuzz/$t" "${limit[@]}" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/artifacts/"$t"- "$work" "fuzz/corpus/${t%_fuzzer}" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    echo "fuzz: $t: ok, ${runs:-?} executions ($log)"
    passed=$((passed + 1))
  else
    echo "fuzz: $t: FAILED (see $log; reproducer in build/fuzz/artifacts/)"
    grep -E "ERROR|SUMMARY|runtime error" "$log" | head -5
    failed=$((failed + 1))
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
