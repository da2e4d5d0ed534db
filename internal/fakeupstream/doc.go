// Package fakeupstream is chat upstreams that enforce a provider's
// documented rules, for tests: each serves POST …/chat/completions,
// refuses what the provider refuses with the provider's status and error
// body, answers the rest from recorded chat streams by a script, and
// keeps the requests it got for the test to assert on.
//
// A fake is only as strict as its provider's documentation and
// recordings: each rule names its source. It is not a model: the answers
// are recordings, chosen by turn (the number of assistant messages in the
// request), the last one once the turn runs past the script.
//
// Faulty (faults.go) is the other kind: a chat upstream that fails, in
// one of the ways upstreams fail (error statuses and pages, resets,
// silences, cut, garbled or huge streams), for the gateway's fault tests.
package fakeupstream
