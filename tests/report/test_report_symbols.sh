#!/usr/bin/env bash
# treport's names, inlined frames and file:line for real addresses of the
# test workloads, checked against binutils addr2line -i -f.
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_symbols.py"
