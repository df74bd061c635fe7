#!/usr/bin/env bash
# End to end: trecord records the busy workload, treport writes each
# output, and the outputs agree with each other and with the recording.
source "$(dirname "$0")/../lib/common.sh"
[ -x "$TRECORD" ] || skip_all "trecord not built ($TRECORD)"
[ "$(id -u)" = 0 ] || skip_all "trecord needs root"
exec python3 "$TREC_ROOT/tests/report/check_e2e.py"
