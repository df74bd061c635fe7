#!/usr/bin/env bash
# Names as perf prints them: NAME@plt for PLT stubs (also stripped, also
# .plt.sec), and perf's choice among aliases, from both symbol sources.
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_names.py"
