#!/usr/bin/env bash
# scripts/callers.py: callers of a function with their shares (check_callers.py).
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/scripts/check_callers.py"
