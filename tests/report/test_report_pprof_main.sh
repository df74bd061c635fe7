#!/usr/bin/env bash
# pprof's main binary (its first mapping) is the sampled executable.
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_pprof_main.py"
