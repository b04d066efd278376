#!/usr/bin/env bash
# Configures (once) and builds the release preset with ccache. Extra arguments name targets.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
# Paths below the checkout hash as relative ones: another clone or worktree reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
if [ ! -f build/release/build.ninja ]; then
  cmake --preset release >/dev/null
fi
if [ $# -gt 0 ]; then
  cmake --build --preset release --target "$@"
else
  cmake --build --preset release
fi
