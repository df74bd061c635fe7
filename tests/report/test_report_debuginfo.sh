#!/usr/bin/env bash
# Separate debug info: .build-id/xx/yyyy.debug under --debug-dir (binary
# stripped, missing, or replaced by a different build), .gnu_debuglink,
# and .gnu_debugdata MiniDebugInfo.
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_debuginfo.py"
