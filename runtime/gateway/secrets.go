package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"strings"
)

// Keys and bearers never reach a log line, a metric label or an error
// body. Keys are compared by their SHA-256 (in constant time, and the
// comparison does not leak their length); an error the gateway relays
// (an upstream's message, which real providers write with the key they
// got: "Incorrect API key provided: sk-or-…") has the request's secrets
// masked first (request.fail).

// keySums are the SHA-256 sums of the gateway's keys, in Config.Keys'
// order (an empty key's sum is never matched).
func keySums(keys []Key) [][sha256.Size]byte {
	out := make([][sha256.Size]byte, len(keys))
	for i, k := range keys {
		out[i] = sha256.Sum256([]byte(k.Key))
	}
	return out
}

// matchKey is the index of the key given is, or -1: every key is compared,
// in constant time.
func (s *Server) matchKey(given string) int {
	sum := sha256.Sum256([]byte(given))
	found := -1
	for i := range s.keySums {
		if subtle.ConstantTimeCompare(sum[:], s.keySums[i][:]) == 1 && s.cfg.Keys[i].Key != "" && found < 0 {
			found = i
		}
	}
	return found
}

// minSecretRun is the shortest piece of a secret masked where it is not
// whole (a truncated echo); a secret shorter than it is masked whole only.
const minSecretRun = 8

// redact masks in msg every run of at least minSecretRun bytes that is a
// piece of one of secrets (and each whole occurrence of a shorter
// secret), each run as "***".
func redact(msg string, secrets ...string) string {
	for _, sec := range secrets {
		if sec == "" || !mayContain(msg, sec) {
			continue
		}
		if len(sec) < minSecretRun {
			msg = strings.ReplaceAll(msg, sec, "***")
			continue
		}
		msg = maskRuns(msg, sec)
	}
	return msg
}

// mayContain is whether msg has one of sec's minSecretRun-grams (or sec,
// when it is shorter): the common case, no secret, costs a scan per gram.
func mayContain(msg, sec string) bool {
	if len(sec) < minSecretRun {
		return strings.Contains(msg, sec)
	}
	for i := 0; i+minSecretRun <= len(sec); i++ {
		if strings.Contains(msg, sec[i:i+minSecretRun]) {
			return true
		}
	}
	return false
}

// maskRuns masks the runs of msg that are pieces of sec (at least
// minSecretRun bytes): at each position, the longest piece of sec that
// starts there.
func maskRuns(msg, sec string) string {
	var b strings.Builder
	for i := 0; i < len(msg); {
		n := 0
		if i+minSecretRun <= len(msg) {
			for j := 0; j+minSecretRun <= len(sec); j++ {
				k := 0
				for i+k < len(msg) && j+k < len(sec) && msg[i+k] == sec[j+k] {
					k++
				}
				n = max(n, k)
			}
		}
		if n >= minSecretRun {
			b.WriteString("***")
			i += n
			continue
		}
		b.WriteByte(msg[i])
		i++
	}
	return b.String()
}

// redact masks the request's secrets in msg: the upstream bearer it was
// sent with, the bearer the client gave, the configured upstream keys.
func (q *request) redact(msg string) string {
	client, _ := strings.CutPrefix(q.r.Header.Get("Authorization"), "Bearer ")
	return redact(msg, q.bearer, strings.TrimSpace(client), q.s.cfg.Upstream.APIKey, q.s.cfg.ResponsesUpstream.APIKey)
}
