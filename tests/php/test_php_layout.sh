#!/usr/bin/env bash
# The per-API struct offsets trecord uses for PHP (record/interp/php/
# php_layouts.c) against the installed PHP headers (php-dev): a probe
# compiled against both compares them field by field.
source "$(dirname "$0")/../lib/common.sh"

command -v php-config >/dev/null || skip_all "no php-config (make deps installs php-dev)"
dir=$(mktemp -d /tmp/trec-phplayout.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# memrchr: the PHP headers use it, <string.h> declares it under _GNU_SOURCE.
if ! cc -D_GNU_SOURCE -I"$TREC_ROOT" -I"$TREC_ROOT/bpf" $(php-config --includes) \
	-o "$dir/probe" "$TREC_ROOT/tests/php/layout_probe.c" \
	"$TREC_ROOT/record/interp/php/php_layouts.c" 2>"$dir/cc.log"; then
	fail "the layout probe builds against $(php-config --include-dir)"
	sed 's/^/  | /' "$dir/cc.log"
	exit 1
fi
"$dir/probe"
