#!/usr/bin/env bash
# make demo: record the bundled workload (no frame pointers, a qsort
# callback and a 150-deep recursion) and write flame graph input.
set -eu
cd "$(dirname "$0")/../.."
make -s -C tests/workloads OUT="$PWD/build/workloads"
./build/trecord -f -o demo.tr -- ./build/workloads/busy 2
./build/treport --folded demo.tr > demo.folded
echo "wrote demo.folded ($(wc -l < demo.folded) stacks); render it with: flamegraph.pl demo.folded > demo.svg"
./build/treport demo.tr | head -n 25
