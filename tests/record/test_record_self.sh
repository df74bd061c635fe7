#!/usr/bin/env bash
# trecord's own threads under -a (and --off-cpu): their samples and waits
# are kept, one SELF error frame each, not walked; every other process is
# walked as before, and a trecord recorded by another (-p) is walked too.
. "$(dirname "$0")/lib.sh"

# trec_errors.h: SELF is error 8; a dump's frames are kind/flags/file/addr,
# leaf first (an error frame: 0/1/0/code).
SELF_FRAME=0/1/0/8

"$WORKLOADS/busy" 12 >/dev/null & busy=$!
BG_PIDS+=("$busy")

# -F 4000 beside a busy loop: trecord's writer runs enough to be sampled.
"$TRECORD" -q -a --off-cpu -F 4000 -d 3 -o "$T/a.tr" 2>"$T/a.err" & rec=$!
wait "$rec"
check "self: trecord -a --off-cpu exits 0" [ "$?" = 0 ]
dump "$T/a.tr" >"$T/a.dump" || { fail "self: recording reads back"; exit 1; }

# S time pid tid cpu comm nk nu frames... (trdump.c)
awk -v p="$rec" '$1 == "S" && $3 == p' "$T/a.dump" >"$T/own"
own=$(wc -l <"$T/own")
bare=$(awk -v f="$SELF_FRAME" '$7 == 0 && $8 == 1 && $9 == f' "$T/own" | wc -l)
check "self: trecord's own threads were sampled ($own samples)" [ "$own" -gt 0 ]
check "self: each has the SELF frame alone ($bare of $own)" [ "$bare" = "$own" ]
others=$(awk -v p="$rec" -v f="$SELF_FRAME" '$1 == "S" && $3 != p && index($0, " " f)' "$T/a.dump" | wc -l)
check "self: no other process has a SELF frame ($others)" [ "$others" = 0 ]
"$TREPORT" --event offcpu-time --folded --pid "$rec" "$T/a.tr" >"$T/own.waits" 2>/dev/null
waits=$(wc -l <"$T/own.waits")
bare_waits=$(grep -c '^[^;]*;\[error: SELF\] [0-9]*$' "$T/own.waits")
check "self: trecord's own waits carry the SELF frame alone ($bare_waits of $waits stacks)" \
	[ "$waits" -gt 0 -a "$bare_waits" = "$waits" ]
# The dump has both; a wait is counted when it starts, written if it lasts
# (OFFCPU_SHORT otherwise) and ends (OFFCPU_UNFINISHED, NO_SWITCH_IN).
selfm=$(metric "$T/a.tr" SELF_SAMPLES)
unwritten=$(($(metric "$T/a.tr" OFFCPU_SHORT) + $(metric "$T/a.tr" OFFCPU_UNFINISHED) +
	$(metric "$T/a.tr" OFFCPU_NO_SWITCH_IN)))
check "self: SELF_SAMPLES counts them ($own <= $selfm <= $own + $unwritten waits not written)" \
	[ "$selfm" -ge "$own" -a "$selfm" -le $((own + unwritten)) ]

main=$(func_arg "$WORKLOADS/busy" main busy) || { fail "self: main of busy"; exit 1; }
$TRCHECK "$T/a.dump" --pid "$busy" --warmup-ms 1000 $main >"$T/busy.stats"
late=$(stat_of late_samples <"$T/busy.stats")
reach=$(stat_of samples_reaching_main <"$T/busy.stats")
check "self: the busy loop is still walked: >= 95% of its samples reach main ($reach of $late)" \
	[ "${late:-0}" -gt 0 -a $((reach * 100)) -ge $((late * 95)) ]

# A trecord profiling another: the other is an ordinary process to it.
"$TRECORD" -q -a -F 4000 -d 5 -o "$T/b.tr" 2>/dev/null & target=$!
BG_PIDS+=("$target")
sleep 1
"$TRECORD" -q -p "$target" -F 2000 -d 2 -o "$T/c.tr" 2>"$T/c.err"
check "self: trecord -p another trecord exits 0" [ "$?" = 0 ]
wait "$target"
dump "$T/c.tr" >"$T/c.dump" || { fail "self: the -p recording reads back"; exit 1; }
n=$(awk -v p="$target" '$1 == "S" && $3 == p' "$T/c.dump" | wc -l)
walked=$(awk -v p="$target" '$1 == "S" && $3 == p && $8 > 1' "$T/c.dump" | wc -l)
selfs=$(awk -v f="$SELF_FRAME" '$1 == "S" && index($0, " " f)' "$T/c.dump" | wc -l)
check "self: the other trecord's samples are walked ($walked of $n have more than one frame, $selfs SELF)" \
	[ "$n" -gt 0 -a "$walked" -gt 0 -a "$selfs" = 0 ]
