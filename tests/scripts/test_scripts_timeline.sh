#!/usr/bin/env bash
# scripts/timeline.py: a per-thread timeline SVG (check_timeline.py).
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/scripts/check_timeline.py"
