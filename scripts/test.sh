#!/usr/bin/env bash
# The whole test suite: installs the Debian packages it needs (scripts/deps.sh), builds gpurun
# with CUDA support when nvcc is present, and runs every CTest test. GPU tests report
# "skipped" on machines without a GPU.
# Usage: scripts/test.sh [build-dir] [extra ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true

scripts/deps.sh
export CUDACXX=${CUDACXX:-/usr/local/cuda/bin/nvcc}
jobs=$(nproc)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 300 "$@"
