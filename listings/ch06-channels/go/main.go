// Chapter 6's channel workloads on Go's channels, measured beside the Rust variants in the same
// run: the listing starts this program once per cell, with GOMAXPROCS set to the Rust run's
// worker count, and reads the one JSON line it prints (the fields of the Rust child's report
// that apply). Like the Rust child, a cell makes an untimed pass of a quarter of the messages,
// then repeats its timed pass until it has timed at least LEAST_MS.
//
//	throughput SENDERS RECEIVERS CAPACITY N LEAST_MS   N messages through one channel
//	pingpong N LEAST_MS                                N round trips over two channels of capacity 1
//	select CAPACITY N LEAST_MS                         N messages from two channels into one select
//
// Every message i is a uint64; the receivers add up mix(i), and the checksum is that sum over
// the timed passes, which the listing checks against its own.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
)

// report holds the fields of the Rust child's Report that a Go cell fills.
type report struct {
	Seconds    float64 `json:"seconds"`
	Messages   uint64  `json:"messages"`
	Checksum   uint64  `json:"checksum"`
	RTTP50ns   float64 `json:"rtt_p50_ns,omitempty"`
	RTTP99ns   float64 `json:"rtt_p99_ns,omitempty"`
	RTTOver1us float64 `json:"rtt_over_1us,omitempty"`
}

// mix is the Rust listing's digest (measure::checksum::mix, SplitMix64's finaliser): a lost or
// a duplicated message changes the sum.
func mix(x uint64) uint64 {
	z := x + 0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// send sends sender s's share of the messages 0..n: every i with i % senders == s.
func send(ch chan<- uint64, n uint64, senders, s int) {
	for i := uint64(s); i < n; i += uint64(senders) {
		ch <- i
	}
}

// ANCHOR: throughput
// throughput moves n messages from `senders` goroutines to `receivers` goroutines through one
// channel of `capacity`; each receiver adds up what it gets. It returns the seconds, the count
// and the sum.
func throughput(senders, receivers, capacity int, n uint64) (float64, uint64, uint64) {
	ch := make(chan uint64, capacity)
	start := time.Now()
	var sending, receiving sync.WaitGroup
	sums := make([]uint64, receivers)
	counts := make([]uint64, receivers)
	for r := range receivers {
		receiving.Go(func() {
			// Locals, as the Rust receivers' are: four receivers storing into one slice on
			// every message would share its cache line.
			var sum, count uint64
			for v := range ch {
				sum += mix(v)
				count++
			}
			sums[r], counts[r] = sum, count
		})
	}
	for s := range senders {
		sending.Go(func() { send(ch, n, senders, s) })
	}
	sending.Wait()
	close(ch) // the receivers end when the channel is drained
	receiving.Wait()
	seconds := time.Since(start).Seconds()
	var sum, count uint64
	for r := range receivers {
		sum += sums[r]
		count += counts[r]
	}
	return seconds, count, sum
}

// ANCHOR_END: throughput

// ANCHOR: ping_pong
// pingPong makes n round trips between two goroutines over two channels of capacity 1, each
// timed from the send of the ping to the receipt of the pong.
func pingPong(n uint64) ([]time.Duration, float64, uint64, error) {
	ping, pong := make(chan uint64, 1), make(chan uint64, 1)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	defer close(ping)
	rtts := make([]time.Duration, 0, n)
	var sum uint64
	// One wall-clock read per pass; each round trip then reads the monotonic clock twice
	// (time.Since), as the Rust variants' two Instant::now calls do.
	start := time.Now()
	for i := range n {
		t := time.Since(start)
		ping <- i
		if v := <-pong; v != i {
			return nil, 0, 0, fmt.Errorf("round trip %d came back as %d", i, v)
		}
		rtts = append(rtts, time.Since(start)-t)
		sum += mix(i)
	}
	return rtts, time.Since(start).Seconds(), sum, nil
}

// ANCHOR_END: ping_pong

// ANCHOR: select
// selectTwo moves n messages from two senders, each on a channel of its own, into one goroutine
// that receives from both with select until both are closed.
func selectTwo(capacity int, n uint64) (float64, uint64, uint64) {
	a, b := make(chan uint64, capacity), make(chan uint64, capacity)
	start := time.Now()
	for s, ch := range []chan uint64{a, b} {
		go func() {
			send(ch, n, 2, s)
			close(ch)
		}()
	}
	var sum, count uint64
	for a != nil || b != nil {
		select {
		case v, ok := <-a:
			if !ok {
				a = nil // a nil channel is never ready: select waits on b alone
				continue
			}
			sum += mix(v)
			count++
		case v, ok := <-b:
			if !ok {
				b = nil
				continue
			}
			sum += mix(v)
			count++
		}
	}
	return time.Since(start).Seconds(), count, sum
}

// ANCHOR_END: select

// timed runs pass once untimed on a quarter of n, then on n until it has timed leastMs; it
// returns the seconds, messages and sum of the timed passes.
func timed(n uint64, leastMs float64, pass func(uint64) (float64, uint64, uint64)) report {
	pass(max(n/4, 1))
	var r report
	for r.Seconds == 0 || r.Seconds*1e3 < leastMs {
		s, count, sum := pass(n)
		r.Seconds += s
		r.Messages += count
		r.Checksum += sum
	}
	return r
}

// pingPongCell is `timed` for ping-pong, with the percentiles of every timed round trip.
func pingPongCell(n uint64, leastMs float64) (report, error) {
	if _, _, _, err := pingPong(max(n/4, 1)); err != nil {
		return report{}, err
	}
	var r report
	var all []time.Duration
	for r.Seconds == 0 || r.Seconds*1e3 < leastMs {
		rtts, s, sum, err := pingPong(n)
		if err != nil {
			return report{}, err
		}
		all = append(all, rtts...)
		r.Seconds += s
		r.Messages += n
		r.Checksum += sum
	}
	slices.Sort(all)
	// The smallest round trip that q of them do not exceed, as a histogram's quantile is.
	at := func(q float64) float64 {
		return float64(all[max(int(math.Ceil(q*float64(len(all)))), 1)-1].Nanoseconds())
	}
	r.RTTP50ns, r.RTTP99ns = at(0.50), at(0.99)
	over, _ := slices.BinarySearch(all, time.Microsecond+1)
	r.RTTOver1us = float64(len(all)-over) / float64(len(all))
	return r, nil
}

// count parses a positive count, or exits with the usage.
func count(arg string) uint64 {
	n, err := strconv.ParseUint(arg, 10, 64)
	if err != nil || n == 0 {
		usage()
	}
	return n
}

// millis parses LEAST_MS, which may be 0.
func millis(arg string) float64 {
	ms, err := strconv.ParseFloat(arg, 64)
	if err != nil || ms < 0 {
		usage()
	}
	return ms
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: ch06-channels throughput SENDERS RECEIVERS CAPACITY N LEAST_MS | pingpong N LEAST_MS | select CAPACITY N LEAST_MS")
	os.Exit(2)
}

func main() {
	args := os.Args[1:]
	var r report
	var err error
	switch {
	case len(args) == 6 && args[0] == "throughput":
		s, rc, c := int(count(args[1])), int(count(args[2])), int(count(args[3]))
		r = timed(count(args[4]), millis(args[5]), func(n uint64) (float64, uint64, uint64) {
			return throughput(s, rc, c, n)
		})
	case len(args) == 3 && args[0] == "pingpong":
		r, err = pingPongCell(count(args[1]), millis(args[2]))
	case len(args) == 4 && args[0] == "select":
		c := int(count(args[1]))
		r = timed(count(args[2]), millis(args[3]), func(n uint64) (float64, uint64, uint64) {
			return selectTwo(c, n)
		})
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
