#!/usr/bin/env bash
# Prints one SHA-256 over every step's positions and velocities (VTU, base64 doubles) of a scene
# run headless: two builds that print the same digest stepped the scene bit for bit alike. Used to
# check that a refactor changed no arithmetic (not a test: floating-point results legitimately
# differ between CPUs and compilers).
#   scripts/trajectory-digest.sh BUILD_DIR SCENE [STEPS] [--set ...]
set -euo pipefail
build=$1 scene=$2 steps=${3:-200}
shift $(($# < 3 ? $# : 3))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$build/engine/cli/softbody-sim" run "$scene" --steps "$steps" --threads 2 --vtu-every 1 "$dir" \
  "$@" --json >"$dir/steps.jsonl"
rollbacks=$(grep -c '"rolled_back":[1-9]' "$dir/steps.jsonl" || true)
digest=$(cat "$dir"/*.vtu | sha256sum | cut -c1-16)
echo "$(basename "$scene") steps=$steps rollback_steps=$rollbacks digest=$digest"
