<?php
// The call chain tests/php/test_php_record.sh records: top() -> a method
// -> usort (native) -> a closure -> a DEPTH-deep recursion -> a leaf loop.
// "@calls F->G": F calls G at this line; "@leaf F": F may be innermost
// here (check_stacks.py reads these markers). php chain.php SECONDS [DUMP]
// runs for SECONDS; with DUMP it writes its own stack (debug_backtrace)
// to DUMP once, then spins in the leaf until killed (tests/harness/).
const DEPTH = 24;

function leaf($n, $dump)
{
    if ($dump !== null) {
        dump_stack($dump, __LINE__ + 1);
        for (;;) { $n++; }  // @leaf leaf
    }
    $s = 0;
    for ($i = 0; $i < $n; $i++) {  // @leaf leaf
        $s += $i * $i;  // @leaf leaf
    }  // @leaf leaf
    return $s;  // @leaf leaf
}

function recurse($depth, $n, $dump)
{
    if ($depth > 0) {
        return recurse($depth - 1, $n, $dump) + 1;  // @calls recurse->recurse
    }
    return leaf($n, $dump);  // @calls recurse->leaf
}

class Walker
{
    public function run($seconds, $dump)
    {
        $end = microtime(true) + $seconds;
        $items = [3, 1, 2];
        do {
            usort($items, function ($a, $b) use ($dump) {  // @calls Walker::run->usort
                return recurse(DEPTH, 20000, $dump) * 0 + ($a <=> $b);  // @calls Walker::{closure}->recurse
            });
        } while (microtime(true) < $end);
    }
}

// The script's own view of its stack at the stop point, innermost first,
// one "function TAB file TAB line TAB entered-from-C" line per frame
// (tests/harness/capture.py copies them into the case): frame i is at the
// line debug_backtrace() gives for the call it made; the innermost at
// $line, where it spins; a frame called from C code (usort) has no file
// in its entry, and {main} too was entered from C.
function dump_stack($path, $line)
{
    $bt = debug_backtrace();
    $out = '';
    for ($i = 1; $i < count($bt); $i++) {
        $f = $bt[$i];
        $name = (isset($f['class']) ? $f['class'] . '::' : '') . $f['function'];
        $inner = $bt[$i - 1];
        $file = $i == 1 ? $inner['file'] : ($inner['file'] ?? '[internal]');
        $at = $i == 1 ? $line : ($inner['line'] ?? -1);
        $out .= "$name\t$file\t$at\t" . (isset($f['file']) ? 0 : 1) . "\n";
    }
    $f = end($bt);
    $out .= "{main}\t{$f['file']}\t{$f['line']}\t1\n";
    file_put_contents($path . '.tmp', $out);
    rename($path . '.tmp', $path);
}

function top($seconds, $dump)
{
    (new Walker())->run($seconds, $dump);  // @calls top->Walker::run
}

top((float)($argv[1] ?? 2), $argv[2] ?? null);  // @calls {main}->top
