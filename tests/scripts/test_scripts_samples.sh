#!/usr/bin/env bash
# scripts/trec_samples.py, the module the scripts share (check_samples.py).
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/scripts/check_samples.py"
