#!/usr/bin/env bash
# Installs what is missing, builds, and runs softbody on the default scene.
# Until the server exists (issue 4), this runs the headless simulator on scenes/default.json: a
# progress bar while it runs, then a JSON summary (real-time factor, solver iterations, ...).
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
scripts/build.sh softbody-sim
exec build/release/engine/cli/softbody-sim run scenes/default.json "$@"
