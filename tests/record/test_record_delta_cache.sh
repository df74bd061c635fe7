#!/usr/bin/env bash
# The persistent stack-delta cache end to end (record/unwind/delta_cache.h):
#   first recording        writes an entry per file with a build-id
#   second recording       loads them (DELTA_CACHE_HITS), stacks as good
#   --no-delta-cache       neither reads nor writes
#   a damaged entry        ignored with one warning (DELTA_CACHE_REJECTED),
#                          the deltas extracted again, the entry rewritten
. "$(dirname "$0")/lib.sh"

export TREC_CACHE_DIR=$T/cache
# reach FILE: samples whose stack holds busy's main (of all busy samples).
reach() {
	"$TREPORT" --folded --no-kernel "$1" 2>/dev/null |
		awk '/^busy;/ { all += $NF; if ($0 ~ /;main;/) n += $NF } END { print n + 0, all + 0 }'
}
# busy -n 300: a fixed half second of CPU, about 250 samples at 499 Hz
# however loaded the machine is (busy 1, one second of wall time, could
# get too few CPU time for the checks' 50 samples).
rec() { "$TRECORD" -F 499 "${@:2}" -o "$T/$1.tr" -- "$WORKLOADS/busy" -n 300 >/dev/null 2>"$T/$1.err"; }

rec cold
sub=$(ls -d "$TREC_CACHE_DIR"/deltas-x* 2>/dev/null | head -n 1)
entries=$(ls "$sub" 2>/dev/null | wc -l)
check "delta cache: the first recording writes entries ($entries)" [ "$entries" -ge 3 ]
check "delta cache: ... private to the user" [ "$(stat -c %a "$sub")" = 700 ]
check "delta cache: no hits on the first recording" [ "$(metric "$T/cold.tr" DELTA_CACHE_HITS)" = 0 ]

rec warm
hits=$(metric "$T/warm.tr" DELTA_CACHE_HITS)
check "delta cache: the second recording loads them ($hits hits)" [ "${hits:-0}" -ge 3 ]
read -r n all < <(reach "$T/warm.tr")
check "delta cache: stacks from cached deltas reach main ($n of $all)" [ "$all" -gt 50 -a $((n * 10)) -ge $((all * 9)) ]

rm -rf "$TREC_CACHE_DIR"
rec off --no-delta-cache
check "delta cache: --no-delta-cache writes no deltas" \
	[ -z "$(ls -d "$TREC_CACHE_DIR"/deltas-x* 2>/dev/null)" ]
rm -rf "$TREC_CACHE_DIR"
rec off --no-delta-cache --no-symbol-cache
check "delta cache: ... and with --no-symbol-cache nothing at all" [ ! -e "$TREC_CACHE_DIR" ]

# A HOME that does not exist (Debian's /nonexistent for system users) is
# not made: no cache, and the recording as good.
TREC_CACHE_DIR= XDG_CACHE_HOME= HOME=$T/nonexistent rec nohome
check "delta cache: a HOME that does not exist records (exit 0)" [ "$?" = 0 ]
check "delta cache: ... and is not created" [ ! -e "$T/nonexistent" ]
check "delta cache: --no-delta-cache reads nothing" [ "$(metric "$T/off.tr" DELTA_CACHE_HITS)" = 0 ]

rec again
bid=$(readelf -n "$WORKLOADS/busy" | awk '/Build ID/ { print $3 }')
entry=$(ls "$TREC_CACHE_DIR"/deltas-x*/"$bid" 2>/dev/null | head -n 1)
check "delta cache: busy's entry is named by its build-id (${entry#$TREC_CACHE_DIR/})" [ -s "$entry" ]
size=$(stat -c %s "$entry")
printf '\377\377\377\377' | dd of="$entry" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
rec damaged
check "delta cache: a damaged entry is counted" [ "$(metric "$T/damaged.tr" DELTA_CACHE_REJECTED)" = 1 ]
check "delta cache: ... with one warning" \
	[ "$(grep -c "warning: ignoring the damaged delta cache entry $entry: checksum mismatch" "$T/damaged.err")" = 1 ]
read -r n all < <(reach "$T/damaged.tr")
check "delta cache: ... and busy still unwinds, from extracted deltas ($n of $all)" \
	[ "$all" -gt 50 -a $((n * 10)) -ge $((all * 9)) ]
rec healed
check "delta cache: the entry was rewritten (no warning)" bash -c "! grep -q warning '$T/healed.err'"
check "delta cache: ... and it hits again (rejected: $(metric "$T/healed.tr" DELTA_CACHE_REJECTED))" \
	[ "$(metric "$T/healed.tr" DELTA_CACHE_REJECTED)" = 0 ]
