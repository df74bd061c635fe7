// A Go workload whose threads run every kind of Go stack root, for
// tests/runtimes/test_go_roots.sh and the harness: goroutines that
// allocate (GC workers, mark assists and span allocation run on the g0
// stack through runtime.systemstack), read the clock (time.Now calls the
// vdso on the g0 stack), block on channels (runtime.mcall into the
// scheduler) and spin in a loop without calls (sysmon preempts it with a
// signal: runtime.sigtramp), besides sysmon and idle threads
// (runtime.mstart).
//
//	usage: goroots [seconds (2)] [allocating goroutines (4)]
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

type node struct {
	next *node
	pad  [48]byte
}

var sink *node

//go:noinline
func allocList(n int) *node {
	var h *node
	for i := 0; i < n; i++ {
		h = &node{next: h}
	}
	return h
}

//go:noinline
func allocator(end time.Time, done chan<- int) {
	n := 0
	for time.Now().Before(end) {
		sink = allocList(2000)
		n++
	}
	done <- n
}

//go:noinline
func clockReader(end time.Time, done chan<- int) {
	n := 0
	for {
		for i := 0; i < 1000; i++ {
			_ = time.Now()
		}
		n++
		if !time.Now().Before(end) {
			break
		}
	}
	done <- n
}

//go:noinline
func pingPong(end time.Time, ping, pong chan int, done chan<- int) {
	n := 0
	for time.Now().Before(end) {
		ping <- n
		n = <-pong
	}
	close(ping)
	done <- n
}

func echo(ping <-chan int, pong chan<- int) {
	for v := range ping {
		pong <- v + 1
	}
}

//go:noinline
func spinner(end time.Time, done chan<- int) {
	x := 0
	for time.Now().Before(end) {
		for i := 0; i < 50000000; i++ { // no calls: preempted by signal
			x = x*7 + i
		}
	}
	done <- x & 1
}

func main() {
	secs, workers := 2.0, 4
	if len(os.Args) > 1 {
		if s, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			secs = s
		}
	}
	if len(os.Args) > 2 {
		if w, err := strconv.Atoi(os.Args[2]); err == nil && w > 0 {
			workers = w
		}
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	done := make(chan int)
	ping, pong := make(chan int), make(chan int)
	for i := 0; i < workers; i++ {
		go allocator(end, done)
	}
	go clockReader(end, done)
	go echo(ping, pong)
	go pingPong(end, ping, pong, done)
	go spinner(end, done)
	total := 0
	for i := 0; i < workers+3; i++ {
		total += <-done
	}
	fmt.Println("goroots:", total&1)
}
