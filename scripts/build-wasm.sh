#!/usr/bin/env bash
# Builds the browser's WebAssembly codec (codec/wasm) with Emscripten through emcmake and puts the
# module where the web client imports it: client-web/src/gen/softbody_codec.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's emscripten finds its node modules (acorn, ...) only through NODE_PATH.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
if [ ! -f build/wasm/build.ninja ]; then
  emcmake cmake -S codec/wasm -B build/wasm -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm
mkdir -p client-web/src/gen
cp build/wasm/softbody_codec.mjs client-web/src/gen/softbody_codec.mjs
echo "build-wasm: client-web/src/gen/softbody_codec.mjs ($(stat -c %s client-web/src/gen/softbody_codec.mjs) bytes)"
