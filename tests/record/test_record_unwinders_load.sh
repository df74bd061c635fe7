#!/usr/bin/env bash
# Every interpreter unwinder's BPF program passes the kernel's verifier.
# They are loaded on first need (record/bpf_optional.c), so a program the
# verifier rejects shows only when a process of its runtime is recorded:
# trecord then warns "no <lang> stacks: cannot load ..." and records on.
# Here trecord -v records a tiny script of each installed runtime (Python,
# Perl, Ruby, PHP), alone and with --off-cpu (which loads each program's
# off-CPU twin too), and each program must be loaded and verified, in at
# most VERIFIED_MAX instructions: the verifier's time is trecord's start-up
# on that runtime (Python's unwinder once took 237k, 0.55 s of CPU; its
# walkers as BPF subprograms take 17k).
. "$(dirname "$0")/lib.sh"

# The runtimes' binaries (pyenv's python3 is a shell script: the real one).
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
RUBY=$(command -v ruby)
PHP=$(command -v php8.2 || command -v php)
PERL=$(command -v perl)

# Each script spins for about a second: long enough to be synced (where the
# runtime is detected and its unwinder loaded) before it exits.
declare -A cmd=(
	[python]="$PY -c 'import time
t = time.time()
while time.time() - t < 1: pass'"
	[perl]="$PERL -e 'my \$t = time + 1; 1 while time < \$t'"
	[ruby]="$RUBY -e 't = Time.now + 1; nil while Time.now < t'"
	[php]="$PHP -r '\$t = microtime(true) + 1; while (microtime(true) < \$t) {}'"
)
declare -A bin=([python]=$PY [perl]=$PERL [ruby]=$RUBY [php]=$PHP)
# About four times the largest today (PHP's and Perl's 13k).
VERIFIED_MAX=60000
# The two programs every recording verifies at its start: 9.1k and 5.2k
# today, where 26k and 10k took two thirds of trecord -- /bin/true's CPU
# (the verifier went over a bpf_loop callback again for each value its
# stack context held: bpf/trec.bpf.c's native_loop).
START_MAX=15000

# verified LOG PROG: PROG's count of verified instructions in trecord -v's
# end-of-run list (empty when it was not loaded).
verified() { awk -v p="$2" '$1 == "trecord:" && $2 == "prog" && $3 == p { print $4; exit }' "$1"; }

ran=0
for lang in python perl ruby php; do
	if [ -z "${bin[$lang]}" ] || [ ! -x "${bin[$lang]}" ]; then
		echo "SKIP: $lang: not installed"
		continue
	fi
	ran=$((ran + 1))
	prog=trec_unwind_$lang
	for mode in on off; do
		args=(-v -F 99) twins=("$prog")
		[ $mode = off ] && args+=(--off-cpu) twins+=("${prog}_offcpu")
		log=$T/$lang-$mode.log
		"$TRECORD" "${args[@]}" -o "$T/$lang-$mode.tr" -- sh -c "${cmd[$lang]}" >/dev/null 2>"$log"
		rc=$?
		label="unwinders: $lang ${args[*]}"
		check "$label: trecord exits 0 (exit $rc)" [ "$rc" = 0 ] || tail -5 "$log"
		check "$label: $prog loaded on first need" grep -q "^trecord: loaded $prog on first need" "$log" ||
			grep -E "cannot load|no $lang stacks|^libbpf: .*(error|invalid|-E)" "$log" | head -20
		check "$label: no load failure" bash -c "! grep -q 'cannot load' '$log'"
		for p in "${twins[@]}"; do
			n=$(verified "$log" "$p")
			check "$label: $p verified (${n:-no} insns)" [ "${n:-0}" -gt 0 ]
			check "$label: $p verified in at most $VERIFIED_MAX insns (${n:-no})" \
				[ "${n:-0}" -le "$VERIFIED_MAX" ]
		done
	done
done
[ "$ran" -gt 0 ] || skip_all "no interpreter runtime installed"

# The programs every recording loads, from the last run's log.
for p in trec_sample trec_unwind_native; do
	n=$(verified "$log" "$p")
	check "unwinders: $p verified in at most $START_MAX insns (${n:-no})" \
		[ "${n:-0}" -gt 0 -a "${n:-0}" -le "$START_MAX" ]
done
