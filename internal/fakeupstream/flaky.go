package fakeupstream

import (
	"net/http"
	"sync/atomic"
)

// Flaky is an upstream that fails its first Fails requests as Faulty
// does with Fault (every request when Fails is negative), then hands the
// others to Next (default: a Faulty with NoFault, a chat upstream's whole
// answer). It counts the requests it received. It is safe for concurrent
// use.
type Flaky struct {
	Fault Fault
	Fails int
	// RetryAfter is the 429s' Retry-After (Faulty's default "7").
	RetryAfter string
	// Next answers once the failures are spent.
	Next http.Handler
	n    atomic.Int64
}

// Requests is the number of requests received.
func (f *Flaky) Requests() int { return int(f.n.Load()) }

func (f *Flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.n.Add(1)
	if f.Fails < 0 || n <= int64(f.Fails) {
		(&Faulty{Fault: f.Fault, RetryAfter: f.RetryAfter}).ServeHTTP(w, r)
		return
	}
	next := f.Next
	if next == nil {
		next = &Faulty{Fault: NoFault}
	}
	next.ServeHTTP(w, r)
}
