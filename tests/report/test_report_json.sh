#!/usr/bin/env bash
# treport --json: one object per sample, its fields, stacks equal to --folded's,
# filters, merging and hostile names (check_json.py).
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_json.py"
