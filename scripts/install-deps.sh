#!/usr/bin/env bash
# Installs the Debian packages the build and tests need, skipping what is already installed.
# Idempotent and non-interactive; needs root (or sudo) only when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libeigen3-dev libboost-graph-dev libpugixml-dev libb64-dev libmuparser-dev
  nlohmann-json3-dev libcli11-dev libspdlog-dev libboost-dev
  libsuitesparse-dev libblas-dev liblapack-dev libopenblas0-pthread
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc libssl-dev libjwt-dev
  libgtest-dev libgmock-dev
  libglfw3-dev libgl-dev libgl1-mesa-dri libglm-dev libstb-dev xvfb xauth
  emscripten nodejs chromium fonts-liberation libnss3-tools
  python3 python3-yaml
  podman debootstrap runc bc
  clang libclang-rt-14-dev libomp-14-dev
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

# The browser client's build (Vite 7) needs node >= 20.19; Debian 12's own nodejs is 18.
check_node() {
  local version
  version=$(node -p 'process.versions.node' 2>/dev/null || echo 0)
  if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' 2>/dev/null; then
    echo "install-deps: node $version found; the web client needs node >= 20.19 (e.g. NodeSource's nodejs 20)" >&2
    exit 1
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} Debian packages present"
  check_node
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo -n"; else
    echo "install-deps: missing packages and not root: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
check_node
