#!/usr/bin/env bash
# A file rebuilt at the recorded path (new build-id) is never used for the
# old recording: treport names frames from the embedded symbols, and when
# told to use local files only it warns once about the mismatch and leaves
# the frames unresolved rather than naming them from the wrong binary.
source "$(dirname "$0")/workload.sh"
arc_setup   # $d: a fresh directory holding the workload
old=$(build_id_of "$d/arcdemo")
record "$d/rec.tr" -- "$d/arcdemo" 1 || { fail "record the workload"; exit 1; }

build_arcdemo "$d" -DVARIANT || { fail "rebuild the workload"; exit 1; }
new=$(build_id_of "$d/arcdemo")
check "the rebuilt executable has a new build-id" test "$old" != "$new"
check "the rebuilt files define other names" \
	bash -c "nm '$d/arcdemo' | grep -q renamed_main_loop && nm '$d/libarcdemo.so' | grep -q renamed_lib_spin"

"$TREPORT" --folded "$d/rec.tr" > "$d/emb.folded" 2> "$d/emb.err"
check "frames are named from the embedded symbols" \
	bash -c "grep -q arcdemo_main_loop '$d/emb.folded' && grep -q arcdemo_lib_spin '$d/emb.folded'"
check "nothing is named from the rebuilt files" bash -c "! grep -q renamed_ '$d/emb.folded'"

"$TREPORT" --folded --symbol-source=local "$d/rec.tr" > "$d/local.folded" 2> "$d/local.err"
cat "$d/local.err"
check "local only: one warning about the executable's build-id" \
	test "$(grep -c "not using $d/arcdemo: build-id $new, recorded $old" "$d/local.err")" = 1
check "local only: one warning about the library" \
	test "$(grep -c "not using $d/libarcdemo.so: build-id" "$d/local.err")" = 1
check "local only: the rebuilt files are not used" \
	bash -c "! grep -q 'renamed_\|arcdemo_main_loop\|arcdemo_lib_spin' '$d/local.folded'"
check "local only: libc still symbolizes (its build-id matches)" \
	grep -q '__libc_start_call_main' "$d/local.folded"
exit 0
