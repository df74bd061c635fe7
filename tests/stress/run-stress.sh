#!/usr/bin/env bash
# make stress: the reliability tests of tests/stress at a larger scale
# (STRESS_SCALE, default 10: ten times the processes, dlopen rounds,
# recording time before SIGKILL and hostile files) with a fresh random
# seed for the hostile files (HOSTILE_SEED to repeat a run).
set -u
cd "$(dirname "$0")/../.."
export STRESS_SCALE=${STRESS_SCALE:-10}
export HOSTILE_SEED=${HOSTILE_SEED:-$RANDOM}
echo "stress: STRESS_SCALE=$STRESS_SCALE HOSTILE_SEED=$HOSTILE_SEED"
exec bash tests/run.sh tests/stress/
