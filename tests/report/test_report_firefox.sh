#!/usr/bin/env bash
# treport --firefox: the Firefox Profiler's processed format checked in
# Python's stdlib: its shape (version 70), samples, weights and stacks
# against --folded thread by thread, names, categories, file and line,
# fork/exec/exit markers, gzip, hostile values and the error cases.
source "$(dirname "$0")/../lib/common.sh"
exec python3 "$TREC_ROOT/tests/report/check_firefox.py"
