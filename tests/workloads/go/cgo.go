// A cgo workload for tests/runtimes/test_go_roots.sh: the main goroutine
// calls a C loop through cgo (runtime.asmcgocall moves to the g0 stack and
// realigns sp for C: an SPWRITE function, where Go's own traceback stops),
// and the runtime's threads start from cgo's crosscall_amd64 (C, without
// an unwind table) before runtime.mstart (a TOPFRAME function).
//
//	usage: gocgo [seconds (2)]
package main

/*
#include <stdint.h>
static uint64_t cSpin(uint64_t x)
{
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

//go:noinline
func cgoPhase(x uint64) uint64 { return uint64(C.cSpin(C.uint64_t(x))) }

func main() {
	secs := 2.0
	if len(os.Args) > 1 {
		if v, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			secs = v
		}
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var acc uint64
	n := 0
	for ; time.Now().Before(end); n++ {
		acc ^= cgoPhase(uint64(n))
	}
	fmt.Printf("gocgo: %d calls %x\n", n, acc)
}
