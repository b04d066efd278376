#!/usr/bin/env bash
# Makes the Debian 12 base image localhost/debian:bookworm without a registry: debootstrap's
# minimal variant from the mirror apt already uses, imported into Podman. Does nothing when the
# image exists (pass --force to rebuild). Needs root, debootstrap and podman.
set -euo pipefail
IMAGE=${BASE_IMAGE_NAME:-localhost/debian:bookworm}
if [ "${1:-}" != "--force" ] && podman image exists "$IMAGE"; then
  echo "base-image: $IMAGE exists"
  exit 0
fi
# The first deb.debian.org-style URI apt is configured with (deb822 or one-line format).
mirror=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' |
  grep -v security | head -n 1 || true)
if [ -z "$mirror" ]; then
  mirror=$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | head -n 1 || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}
root=$(mktemp -d /var/tmp/softbody-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
echo "base-image: debootstrap --variant=minbase bookworm from $mirror (a few minutes)"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 ||
  { tail -n 20 "$root.log" >&2; echo "base-image: debootstrap failed (log $root.log)" >&2; exit 1; }
rm -f "$root.log"
# Security updates as in debian:bookworm-slim; apt lists dropped to keep the image small.
echo "deb $mirror bookworm-updates main" >>"$root/etc/apt/sources.list"
echo "deb ${mirror%/debian}/debian-security bookworm-security main" >>"$root/etc/apt/sources.list"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
tar -C "$root" -c . | podman import --change 'CMD ["/bin/bash"]' - "$IMAGE" >/dev/null
echo "base-image: $IMAGE ($(podman image inspect --format '{{.Size}}' "$IMAGE") bytes)"
