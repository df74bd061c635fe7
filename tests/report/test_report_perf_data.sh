#!/usr/bin/env bash
# treport --perf-data read by the machine's perf: sample counts, stacks
# through stackcollapse-perf's rules against --folded --no-inline, process
# and mapping records, the build-id cache (a recording whose binary is
# gone), the top functions of perf report --stdio, and the error cases.
source "$(dirname "$0")/../lib/common.sh"
command -v perf >/dev/null || skip_all "perf is not installed (Debian: linux-perf)"
exec python3 "$TREC_ROOT/tests/report/check_perf_data.py"
