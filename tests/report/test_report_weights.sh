#!/usr/bin/env bash
# What samples and waits weigh: -c's period, merged rates, --time on waits,
# --info's counts after filters (check_weights.py).
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_weights.py"
