// Chapter 2's `which_mutex` as goroutines, measured beside the Rust variants in the same run: the
// listing starts this program once per cell, with GOMAXPROCS set to the Rust run's worker count,
// and reads the one JSON line it prints.
//
//	mutex TASKS UPDATES  TASKS goroutines each make UPDATES updates of one map behind a
//	                     sync.Mutex, with the Rust tasks' keys, after an untimed quarter pass;
//	                     the timed pass's seconds, and the sum of its counters as the checksum
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// report holds what the listing reads: the timed pass and its checksum.
type report struct {
	Seconds  float64 `json:"seconds"`
	Checksum uint64  `json:"checksum"`
}

// ANCHOR: go_mutex
// counters is a map of counters behind Go's sync.Mutex: a compare-and-swap to lock when it is
// free; when it is not, the goroutine parks on the runtime's semaphore (after a short spin, but
// only while its thread has no other goroutine queued).
type counters struct {
	mu     sync.Mutex
	counts map[uint64]uint64
}

// count makes one update under the lock, with nothing else under it.
func (c *counters) count(key uint64) {
	c.mu.Lock()
	c.counts[key]++
	c.mu.Unlock()
}

// ANCHOR_END: go_mutex

// key is the Rust listing's: (t*7919 + i) mod 1024, different per task.
func key(t, i uint64) uint64 {
	return (t*7919 + i) % 1024
}

// updates runs `tasks` goroutines of `n` updates each on one map and waits for them, as the Rust
// variants do: one pass, from the first spawn to the last join.
func updates(tasks, n uint64) report {
	c := &counters{counts: make(map[uint64]uint64)}
	start := time.Now()
	var wg sync.WaitGroup
	for t := range tasks {
		wg.Go(func() {
			for i := range n {
				c.count(key(t, i))
			}
		})
	}
	wg.Wait()
	seconds := time.Since(start).Seconds()
	var total uint64
	for _, v := range c.counts {
		total += v
	}
	return report{Seconds: seconds, Checksum: total}
}

// count parses a positive count, or exits with the usage.
func count(arg string) uint64 {
	n, err := strconv.ParseUint(arg, 10, 64)
	if err != nil || n == 0 {
		usage()
	}
	return n
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: ch02-mutexes mutex TASKS UPDATES")
	os.Exit(2)
}

func main() {
	args := os.Args[1:]
	if len(args) != 3 || args[0] != "mutex" {
		usage()
	}
	tasks, n := count(args[1]), count(args[2])
	// Go starts its threads as goroutines need them; Tokio's workers start with the runtime,
	// before the Rust variants' timing. An untimed quarter pass starts Go's.
	updates(tasks, max(n/4, 1))
	out, _ := json.Marshal(updates(tasks, n))
	fmt.Println(string(out))
}
