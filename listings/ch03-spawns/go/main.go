// Chapter 3's workloads as goroutines, measured beside the Rust variants in the same run: the
// listing starts this program once per cell, with GOMAXPROCS set to the Rust run's worker count,
// and reads the one JSON line it prints (the fields of the Rust child's report that apply).
//
//	spawn N                 spawns and joins N goroutines that store their index (after one
//	                        untimed pass); the median pass's seconds
//	idle N                  parks N goroutines on a channel; resident and stack bytes per goroutine
//	cpu TASKS ITEMS ROUNDS  hashes ITEMS items as TASKS goroutines; the median of three passes
package main

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// report holds the fields of the Rust child's Report that a Go probe fills.
type report struct {
	Seconds      float64 `json:"seconds"`
	Checksum     uint64  `json:"checksum"`
	BytesPerTask float64 `json:"bytes_per_task,omitempty"`
	StackPerTask float64 `json:"stack_per_task,omitempty"`
	GCPerPass    float64 `json:"gc_per_pass"`
}

// work is the Rust listing's `work`: rounds of a multiply-rotate chain, a digest of the item.
func work(rounds, item uint64) uint64 {
	x := item
	for i := uint64(0); i < rounds; i++ {
		x = (bits.RotateLeft64(x, 5) ^ i) * 0x9E3779B97F4A7C15
	}
	return x
}

// ANCHOR: spawn_goroutines
// spawnAndJoin starts n goroutines that store their index, and waits for them all.
func spawnAndJoin(n int) uint64 {
	results := make([]uint64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i] = uint64(i) })
	}
	wg.Wait()
	var sum uint64
	for _, r := range results {
		sum += r
	}
	return sum
}

// ANCHOR_END: spawn_goroutines

// median runs f once untimed, then `passes` times, and returns the median pass's seconds and the
// collections Go ran per timed pass; every pass must return want.
func median(passes int, want uint64, f func() uint64) (float64, float64, error) {
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	times := make([]float64, 0, passes)
	for range passes {
		t := time.Now()
		got := f()
		times = append(times, time.Since(t).Seconds())
		if got != want {
			return 0, 0, fmt.Errorf("checksum %d, expected %d", got, want)
		}
	}
	runtime.ReadMemStats(&after)
	slices.Sort(times)
	return times[len(times)/2], float64(after.NumGC-before.NumGC) / float64(passes), nil
}

func spawn(n int) (report, error) {
	want := uint64(n) * uint64(n-1) / 2
	// As the Rust child: passes until at least 200,000 spawns, and at least 3.
	passes := max((200_000+n-1)/n, 3)
	s, gcs, err := median(passes, want, func() uint64 { return spawnAndJoin(n) })
	return report{Seconds: s, Checksum: want, GCPerPass: gcs}, err
}

// resident is this process's resident memory in bytes, from /proc/self/status.
func resident() (uint64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kib, err := strconv.ParseUint(strings.Fields(rest)[0], 10, 64)
			return kib * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status")
}

// ANCHOR: idle_goroutines
// idle parks n goroutines, each blocked receiving from a channel that opens once they are
// measured: the goroutine counterpart of the Rust idle task waiting on a Semaphore.
func idle(n int) (report, error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rssBefore, err := resident()
	if err != nil {
		return report{}, err
	}
	gate := make(chan struct{})
	var started, joined atomic.Int64
	var wg sync.WaitGroup
	t := time.Now()
	for range n {
		wg.Go(func() {
			started.Add(1)
			<-gate
			joined.Add(1)
		})
	}
	for started.Load() < int64(n) {
		runtime.Gosched()
	}
	seconds := time.Since(t).Seconds()
	rssAfter, err := resident()
	if err != nil {
		return report{}, err
	}
	runtime.ReadMemStats(&after)
	close(gate)
	wg.Wait()
	return report{
		Seconds:      seconds,
		Checksum:     uint64(joined.Load()),
		BytesPerTask: float64(int64(rssAfter)-int64(rssBefore)) / float64(n),
		StackPerTask: float64(int64(after.StackInuse)-int64(before.StackInuse)) / float64(n),
	}, nil
}

// ANCHOR_END: idle_goroutines

// ANCHOR: hash_goroutines
// hash runs the hashing as `tasks` goroutines, each summing its contiguous share of the items.
func hash(tasks, items, rounds uint64) uint64 {
	sums := make([]uint64, tasks)
	var wg sync.WaitGroup
	for t := range tasks {
		wg.Go(func() {
			var sum uint64
			// The share's end computed once, as Rust's range does.
			for item, end := t*items/tasks, (t+1)*items/tasks; item < end; item++ {
				sum += work(rounds, item)
			}
			sums[t] = sum
		})
	}
	wg.Wait()
	var sum uint64
	for _, s := range sums {
		sum += s
	}
	return sum
}

// ANCHOR_END: hash_goroutines

func cpu(tasks, items, rounds uint64) (report, error) {
	var want uint64
	for item := range items {
		want += work(rounds, item)
	}
	s, gcs, err := median(3, want, func() uint64 { return hash(tasks, items, rounds) })
	return report{Seconds: s, Checksum: want, GCPerPass: gcs}, err
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
	fmt.Fprintln(os.Stderr, "usage: ch03-spawns spawn N | idle N | cpu TASKS ITEMS ROUNDS")
	os.Exit(2)
}

func main() {
	args := os.Args[1:]
	var r report
	var err error
	switch {
	case len(args) == 2 && args[0] == "spawn":
		r, err = spawn(int(count(args[1])))
	case len(args) == 2 && args[0] == "idle":
		r, err = idle(int(count(args[1])))
	case len(args) == 4 && args[0] == "cpu":
		r, err = cpu(count(args[1]), count(args[2]), count(args[3]))
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
}
