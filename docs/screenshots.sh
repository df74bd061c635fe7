#!/usr/bin/env bash
# Renders README's screenshots: the flame graph and the timeline of the
# pipeline workload (named threads in phases), in headless Chromium
# (Debian's chromium). Run as root from anywhere: bash docs/screenshots.sh
set -eu
cd "$(dirname "$0")/.."
make -s all
make -s -C tests/workloads OUT="$PWD/build/workloads" >/dev/null
out=build/screenshots
mkdir -p "$out"
build/trecord -q -f -F 999 -o "$out/pipeline.tr" -- build/workloads/pipeline 2
build/treport --flamegraph -o "$out/pipeline.svg" "$out/pipeline.tr"
python3 scripts/timeline.py "$out/pipeline.tr" -o "$out/timeline.svg"
for svg in "$out/pipeline.svg" "$out/timeline.svg"; do xmllint --noout "$svg"; done
shot() { # SVG PNG HEIGHT
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --hide-scrollbars \
		--user-data-dir="$(mktemp -d)" --screenshot="$2" --window-size=1200,"$3" \
		"file://$PWD/$1" >/dev/null 2>&1
}
height() { sed -n 's/^<svg [^>]* height="\([0-9]*\)".*/\1/p' "$1"; }
shot "$out/pipeline.svg" docs/flamegraph.png "$(height "$out/pipeline.svg")"
shot "$out/timeline.svg" docs/timeline.png "$(height "$out/timeline.svg")"
echo "wrote docs/flamegraph.png docs/timeline.png"
