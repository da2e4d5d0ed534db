package translate

import "time"

// Options configure a translation.
type Options struct {
	IDs   IDSource         // nil: RandomIDs
	Clock func() time.Time // nil: time.Now
	// Commit, if set, is handed the terminal Response before its event
	// goes out (the gateway stores it there, so a client that has the
	// event can chain from it). An error (an *APIError, or a 503
	// server_error) fails a response that had not failed: the terminal
	// event is then response.failed carrying it, and is not committed.
	// The Response is valid only during the call.
	Commit func(response []byte) error
	// Redact, if set, rewrites the message of the error a response fails
	// with before it goes out (the gateway masks the keys an upstream's
	// message quotes).
	Redact func(message string) string
}

func (o Options) ids() IDSource {
	if o.IDs == nil {
		return RandomIDs{}
	}
	return o.IDs
}

func (o Options) now() int64 {
	if o.Clock == nil {
		return time.Now().Unix()
	}
	return o.Clock().Unix()
}
