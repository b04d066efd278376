#!/usr/bin/env bash
# Installs what is missing, builds, and starts softbody-server with the default scene preloaded:
# the browser client at http://localhost:8080 (with /healthz, /metrics and the WebSocket gateway
# /ws), gRPC on port 50051. Extra arguments go to the server (softbody-server --help); Ctrl-C
# stops it.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
scripts/build.sh softbody-server
scripts/build-web.sh
exec build/release/server/softbody-server --scenes scenes --preload default "$@"
