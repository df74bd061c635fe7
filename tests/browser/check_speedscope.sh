#!/usr/bin/env bash
# Loads a real `treport --perf-script` recording into speedscope's own app
# (the npm package's built release) in headless Chromium and checks what
# speedscope imported; also checks that broken inputs are rejected.
# Not part of `make test`: it installs Chromium (apt) and npm packages into
# build/browser/ (about 300 MB in all). Run it with `make browser-check`.
#
#   TREC_BROWSER_REUSE=1  reuse build/browser/rec/busy.tr if it exists
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=$ROOT/build/browser
REC=$CACHE/rec
mkdir -p "$REC"

# Debian's chromium: Playwright's own browser download cannot work offline.
if ! command -v chromium >/dev/null; then
	echo "installing: chromium"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

# npm packages pinned by the committed lockfile; reinstalled only when it changes.
if ! cmp -s "$ROOT/tests/browser/package-lock.json" "$CACHE/package-lock.json" ||
	[ ! -d "$CACHE/node_modules/speedscope" ] || [ ! -d "$CACHE/node_modules/playwright-core" ]; then
	cp "$ROOT/tests/browser/package.json" "$ROOT/tests/browser/package-lock.json" "$CACHE/"
	(cd "$CACHE" && npm ci --no-audit --no-fund --loglevel=error)
fi

make -s -C "$ROOT" all
make -s -C "$ROOT/tests/workloads" OUT="$ROOT/build/workloads" >/dev/null

if [ "${TREC_BROWSER_REUSE:-0}" != 1 ] || [ ! -s "$REC/busy.tr" ]; then
	"$ROOT/build/trecord" -q -F 999 -f -o "$REC/busy.tr" -- "$ROOT/build/workloads/busy" 1 >/dev/null
fi
"$ROOT/build/treport" "$REC/busy.tr" --perf-script >"$REC/busy.perf"
"$ROOT/build/treport" "$REC/busy.tr" --folded >"$REC/busy.folded"

echo "versions: chromium $(chromium --version 2>/dev/null | awk '{print $2}')," \
	"speedscope $(node -p "require('$CACHE/node_modules/speedscope/package.json').version")," \
	"playwright-core $(node -p "require('$CACHE/node_modules/playwright-core/package.json').version")," \
	"node $(node --version)"
exec node "$ROOT/tests/browser/check_speedscope.mjs" "$CACHE" "$REC/busy.perf" "$REC/busy.folded"
