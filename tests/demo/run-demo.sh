#!/usr/bin/env bash
# make demo: record the bundled workload (no frame pointers, a qsort
# callback and a 150-deep recursion), print the top functions and write
# its flame graph, demo.svg (and demo.folded for other tools).
set -eu
cd "$(dirname "$0")/../.."
make -s -C tests/workloads OUT="$PWD/build/workloads"
# the workload prints one number (so that its work is not optimized out):
# not part of the demo; trecord's summary line goes to stderr
./build/trecord -f -o demo.tr -- ./build/workloads/busy 2 >/dev/null
./build/treport demo.tr | head -n 25
./build/treport --folded demo.tr > demo.folded
./build/treport --flamegraph -o demo.svg demo.tr
echo "wrote demo.folded ($(wc -l < demo.folded) stacks) and demo.svg, the flame graph: open it in a browser"
