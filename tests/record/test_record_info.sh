#!/usr/bin/env bash
# treport --info on a real recording: every metric it lists, BPF's
# (bpf/trec_errors.h) and trecord's own (format/trecord_metrics.h), has
# its one-line description.
. "$(dirname "$0")/lib.sh"

"$TRECORD" -q -o "$T/busy.tr" -- "$WORKLOADS/busy" 0.3 >/dev/null 2>"$T/err"
check "info: the recording succeeds" reads_back "$T/busy.tr"
"$TREPORT" --info "$T/busy.tr" >"$T/info"
# the metrics section: "    NAME  VALUE  DESCRIPTION" lines after "  metrics:"
awk '/^  metrics:$/ { on = 1; next } on && !/^    / { on = 0 } on' "$T/info" >"$T/metrics"
n=$(wc -l <"$T/metrics")
bare=$(awk 'NF < 3 { print $1 }' "$T/metrics" | tr '\n' ' ')
check "info: every metric listed ($n) has a description (none: ${bare:-none})" \
	[ "$n" -gt 0 -a -z "$bare" ]
check "info: BPF's metrics are among them (TRACES_SENT)" \
	grep -qE '^    TRACES_SENT +[0-9]+  traces written to the ring buffer$' "$T/metrics"
check "info: trecord's own are among them (SAMPLES_WRITTEN, id 1003)" \
	grep -qE '^    SAMPLES_WRITTEN +[0-9]+  sample records written$' "$T/metrics"
# all of trecord's: as many as the list in format/trecord_metrics.h has
listed=$(sed -n '/TRECORD_METRIC_LIST(X)/,/^$/p' "$TREC_ROOT/format/trecord_metrics.h" | grep -c '^	X(')
own=$(grep -cE "^    ($(sed -n 's/^	X(\([A-Z0-9_]*\),.*/\1/p' "$TREC_ROOT/format/trecord_metrics.h" | paste -sd'|')) " "$T/metrics")
check "info: every trecord metric is listed ($own of $listed)" [ "$own" = "$listed" ]
