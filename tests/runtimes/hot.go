// A Go workload with a known hot leaf and caller chain, for
// tests/runtimes (chain_share.py). Two goroutines do the same work:
//
//	runtime.main -> main.main -> main.hotMain -> main.hotOuter ->
//	    main.hotMiddle -> main.hotLeaf
//	runtime.goexit -> main.worker -> main.hotMain -> ...the same
//
// hotLeaf takes nearly all the CPU.
//
//	usage: CGO_ENABLED=0 go build -o hot hot.go && ./hot [SECONDS (2.5)]
//
// go:noinline keeps each link a real frame. hotLeaf works on an array on
// its stack so the compiler gives it a frame (and so a saved frame
// pointer): a frameless leaf would hide its caller from any frame-pointer
// unwinder, which is a different gap than the one this measures.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

//go:noinline
func hotLeaf(seed uint64) uint64 {
	var v [16]uint64
	for i := range v {
		v[i] = seed + uint64(i)*0x9e3779b97f4a7c15
	}
	for i := 0; i < 2000; i++ {
		j := i & 15
		v[j] += v[(j+1)&15] * 0x85ebca6b
		v[(j+5)&15] ^= v[j] >> 13
		v[(j+9)&15] += v[(j+3)&15] << 3
	}
	return v[0] ^ v[7] ^ v[15]
}

//go:noinline
func hotMiddle(seed uint64) uint64 {
	var acc uint64
	for i := uint64(0); i < 4; i++ {
		acc += hotLeaf(seed + i)
	}
	return acc
}

//go:noinline
func hotOuter(seed uint64) uint64 {
	var acc uint64
	for i := uint64(0); i < 4; i++ {
		acc ^= hotMiddle(seed + i)
	}
	return acc
}

//go:noinline
func hotMain(seed uint64) uint64 {
	return hotOuter(seed) ^ hotOuter(seed+1)
}

//go:noinline
func worker(end time.Time, out chan<- uint64) {
	var acc, n uint64
	for time.Now().Before(end) {
		acc += hotMain(n)
		n++
	}
	out <- acc
}

func main() {
	fmt.Printf("hot.go: pid %d\n", os.Getpid())
	secs := 2.5
	if len(os.Args) > 1 {
		if s, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			secs = s
		}
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	out := make(chan uint64)
	go worker(end, out)
	var acc, n uint64
	for time.Now().Before(end) {
		acc += hotMain(n + 1<<32)
		n++
	}
	acc ^= <-out
	fmt.Printf("hot.go: %d rounds in main, checksum %d\n", n, acc)
}
