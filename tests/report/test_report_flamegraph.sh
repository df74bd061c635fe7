#!/usr/bin/env bash
# treport --flamegraph: the SVG's XML, titles, total, call tree, colours by
# frame kind, filters, hostile names and its script (check_flamegraph.py).
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_flamegraph.py"
