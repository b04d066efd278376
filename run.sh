#!/usr/bin/env bash
# Installs what is missing, builds, and runs softbody on the default scene.
# Until the server exists (issue 4), this runs the headless engine on the default mesh: it prints
# the mesh statistics and verifies the force models on a large deformation.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
scripts/build.sh softbody-sim
sim=build/release/engine/cli/softbody-sim
default_mesh=meshes/knight.node
echo "== mesh statistics ($default_mesh)"
"$sim" info "$default_mesh"
for model in stvk-edge corotational; do
  echo "== force model check: $model with the volumetric term"
  "$sim" check "$default_mesh" --model "$model" --volumetric cubic
done
