#!/usr/bin/env bash
# Damaged recordings whose every chunk is intact (duplicated, dropped,
# reordered chunks; a second SUMMARY; unknown header values), and treport -.
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_damage.py"
