#!/usr/bin/env bash
# treport's outputs on a synthetic recording with real workload addresses:
# folded against an independent expectation, perf script through a
# stackcollapse-perf reimplementation, pprof through go tool pprof,
# kernel and error frames, filters, merging, summary and --info.
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_outputs.py"
