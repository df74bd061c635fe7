#!/usr/bin/env bash
# treport --diff BASE NEW: folded columns summing to each recording's total,
# the differential flame graph, the summary of changes (check_diff.py).
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_diff.py"
