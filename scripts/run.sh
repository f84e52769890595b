#!/usr/bin/env bash
# The main job: installs what is missing, builds gpurun, runs a bundled MPI program with
# `gpurun -np 2`, then the quick benchmark comparison of gpurun against the other MPIs on this
# machine (bench/compare --quick), and says where its tables and plots are.
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
echo "== bench/compare --quick (gpurun, Open MPI and MPICH, as installed and tuned)"
bench/compare --quick --build "$build" --out "$build/bench-compare"
