#!/usr/bin/env bash
# Prints the Debian packages that own the shared libraries the given binaries load (one line,
# space-separated), for the runtime image to install.
set -euo pipefail
libs=$(ldd "$@" | awk '$3 ~ /^\// {print $3}' | sort -u)
for lib in $libs; do
  real=$(readlink -f "$lib")
  # usrmerge: dpkg may know a library under /lib or /usr/lib; alternatives (BLAS) resolve to the
  # real file.
  dpkg -S "$lib" 2>/dev/null || dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null ||
    dpkg -S "/usr$lib" 2>/dev/null || { echo "runtime-packages: no package owns $lib" >&2; exit 1; }
done | cut -d: -f1 | sort -u | tr '\n' ' '
echo
