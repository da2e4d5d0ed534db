package gateway

import (
	"context"
	"net/http"
	"time"

	"github.com/transponder-dev/transponder/runtime/translate"
)

// readyTimeout bounds /readyz's question to the store: a database that
// hangs is not ready.
const readyTimeout = 2 * time.Second

// readyz answers GET /readyz, readiness (/healthz is liveness): "ok"
// while the store answers (or there is none), else 503 with an
// OpenAI-shaped error; a load balancer then sends the traffic to another
// instance, and the process is not restarted for what is the database's
// trouble.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Store != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		err := s.cfg.Store.Ping(ctx)
		cancel()
		if err != nil {
			// The error is logged, not sent: it may name the database's host
			// and user.
			s.log.Warn("not ready: the store does not answer", "error", err.Error())
			w.Header().Set("Cache-Control", "no-store")
			writeError(w, &translate.APIError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "store_unavailable", RetryAfter: "1",
				Message: "not ready: the gateway's store does not answer"})
			return
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok\n"))
}
