#!/usr/bin/env bash
# Installs what is missing, builds, and starts softbody-server with the default scene preloaded:
# gRPC on port 50051, /healthz and /metrics on http://localhost:8080 (the browser client joins this
# port with issue 6). Extra arguments go to the server (softbody-server --help); Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
scripts/build.sh softbody-server
exec build/release/server/softbody-server --scenes scenes --preload default "$@"
