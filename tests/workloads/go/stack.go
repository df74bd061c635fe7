// A Go workload for frame-pointer unwinding: gc writes no .eh_frame (and
// with -ldflags='-s -w' no .debug_frame either), but keeps frame pointers.
//   runtime.goexit -> runtime.main -> main.main -> main.mid (x depth)
//   -> main.work -> main.step
// usage: gostack [seconds] [depth]   (default 1 s, depth 8)
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

var sink int

//go:noinline
func step(i int) int {
	return i*i ^ (i >> 3)
}

//go:noinline
func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += step(i) // gdb breaks here: work has its frame set up
	}
	return s
}

//go:noinline
func mid(d, n int) int {
	if d == 0 {
		return work(n)
	}
	return mid(d-1, n) + 1
}

func main() {
	secs, depth := 1.0, 8
	if len(os.Args) > 1 {
		secs, _ = strconv.ParseFloat(os.Args[1], 64)
	}
	if len(os.Args) > 2 {
		depth, _ = strconv.Atoi(os.Args[2])
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	for time.Now().Before(end) {
		sink += mid(depth, 100000)
	}
	fmt.Println(sink & 1)
}
