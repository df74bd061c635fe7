#!/usr/bin/env bash
# treport on bad input: unreadable files, non-recordings, truncated and
# corrupt recordings (clear message naming the offset, non-zero exit unless
# --force), hostile values inside valid records, and bad options.
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_hostile.py"
