#!/usr/bin/env bash
# Install the build dependencies (Debian 12), build and install neuroc under ./_install,
# then compile and run the CUBA example (the README's first command).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends build-essential cmake re2c lemon python3 >/dev/null
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
cmake --install build --prefix "$PWD/_install" >/dev/null
./_install/bin/neuroc examples/cuba.neuro -o cuba
./cuba
echo "neuroc is in $PWD/_install/bin, not on your PATH; to use it by name (docs/tutorial.md):"
echo "  export PATH=\"$PWD/_install/bin:\$PATH\""
