#!/usr/bin/env bash
# Builds softbody's images with Podman on a machine without a Docker engine or a registry (such as
# the project's Debian 12 hosts): the base image comes from debootstrap (docker/base-image.sh),
# Podman runs with runc and raised ulimits (docker/containers.conf), and builds use the host
# network. Usage: docker/build-local.sh [TAG]   (default tag: the git commit, and :latest)
# Produces localhost/softbody-server:TAG and localhost/softbody-tools:TAG.
set -euo pipefail
cd "$(dirname "$0")/.."
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/docker/containers.conf}
tag=${1:-$(git rev-parse --short HEAD 2>/dev/null || echo dev)}
arch=${SOFTBODY_ARCH:-x86-64-v2}
base=${BASE_IMAGE:-localhost/debian:bookworm}

for tool in podman debootstrap runc; do
  command -v "$tool" >/dev/null ||
    { echo "build-local: $tool is missing (apt-get install podman debootstrap runc)" >&2; exit 1; }
done
if [ "$base" = localhost/debian:bookworm ]; then docker/base-image.sh; fi
if [ ! -f client-web/dist/index.html ]; then
  echo "build-local: building the browser client first (scripts/build-web.sh)"
  scripts/build-web.sh
fi

build() {
  local target=$1 name=$2
  echo "build-local: $name:$tag (target $target, -march=$arch, base $base)"
  # Docker's image format: the OCI format has no HEALTHCHECK.
  podman build --format docker --network host --layers -f docker/Dockerfile --target "$target" \
    --build-arg BASE_IMAGE="$base" --build-arg SOFTBODY_ARCH="$arch" \
    -t "localhost/$name:$tag" -t "localhost/$name:latest" .
}
build server softbody-server
build tools softbody-tools
podman image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E 'softbody-(server|tools)'
