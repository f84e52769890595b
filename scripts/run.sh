#!/usr/bin/env bash
# The main job: installs what is missing, builds gpurun, and runs a bundled MPI program with
# `gpurun -np 2`.
# Usage: scripts/run.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

scripts/deps.sh
export CUDACXX=${CUDACXX:-/usr/local/cuda/bin/nvcc}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)"
echo "== gpurun -np 2 $build/examples/hello"
"$build/bin/gpurun" -np 2 "$build/examples/hello"
