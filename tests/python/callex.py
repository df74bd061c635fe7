# Calls through f(*args) (CALL_FUNCTION_EX): on 3.11 the eval loop runs it
# in do_call_core, inlined into _PyEval_EvalFrameDefault, on behalf of the
# Python frame that made the call (test_python_record.sh: inlined frames
# go above the interpreter frames of their loop).
import sys
import time


def spin(secs):
    end = time.time() + secs
    x = 0
    while time.time() < end:
        x += 1


def caller(args):
    spin(*args)


caller((float(sys.argv[1]) if len(sys.argv) > 1 else 2.0,))
