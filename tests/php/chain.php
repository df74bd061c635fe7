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
        dump_stack($dump);
        for (;;) {
            $n++;  // @leaf leaf
        }
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
        while (microtime(true) < $end) {
            usort($items, function ($a, $b) use ($dump) {  // @calls Walker::run->usort
                return recurse(DEPTH, 20000, $dump) * 0 + ($a <=> $b);  // @calls Walker::{closure}->recurse
            });
        }
    }
}

// The script's own view: function and line of each frame, root first.
function dump_stack($path)
{
    $lines = [];
    foreach (array_reverse(debug_backtrace()) as $f) {
        $name = (isset($f['class']) ? $f['class'] . '::' : '') . $f['function'];
        $lines[] = $name . ' ' . ($f['line'] ?? '-');
    }
    file_put_contents($path . '.tmp', implode("\n", $lines) . "\n");
    rename($path . '.tmp', $path);
}

function top($seconds, $dump)
{
    (new Walker())->run($seconds, $dump);  // @calls top->Walker::run
}

top((float)($argv[1] ?? 2), $argv[2] ?? null);  // @calls {main}->top
