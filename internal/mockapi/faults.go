package mockapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"time"
)

// Fault replaces the answer to one request. Faults are queued per endpoint
// and each matching request consumes the next one, after the rate limiter
// and before authentication and normal handling (a proxy fails regardless of
// the key).
type Fault struct {
	// Status is the HTTP status to answer. 0 (without ResetConnection) means
	// "answer normally", which combined with Delay models a slow server.
	Status int
	// Body is the raw body. If empty and Status >= 400 the body is
	// {"error":"injected fault <status>"}.
	Body string
	// Header is set on the answer, e.g. {"Retry-After": "2"} or
	// {"Content-Type": "text/html"}. Without a Content-Type, JSON bodies are
	// labelled application/json and others text/plain.
	Header map[string]string
	// Delay is slept before answering; a cancelled request ends the wait and
	// gets no answer.
	Delay time.Duration
	// ResetConnection closes the connection (with a TCP reset) without
	// answering. Where the connection cannot be hijacked (HTTP/2, a
	// ResponseRecorder) the handler panics with http.ErrAbortHandler instead.
	ResetConnection bool
	// AfterHandling runs the normal handler first, so its state changes
	// happen (a job is really started), then discards its answer and answers
	// with the fault instead: the server acted but the client saw a failure.
	// With Status 0 and no reset, the real answer is sent after Delay.
	AfterHandling bool
}

// InjectFault queues faults for endpoint e, consumed in order, one per
// matching request.
func (s *Server) InjectFault(e Endpoint, faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[e] = append(s.faults[e], faults...)
}

// PendingFaults is the number of queued faults not yet consumed for e.
func (s *Server) PendingFaults(e Endpoint) int {
	return locked(s, func() int { return len(s.faults[e]) })
}

// ClearFaults drops all queued faults.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.faults)
}

func (s *Server) nextFault(e Endpoint) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.faults[e]
	if len(q) == 0 {
		return Fault{}, false
	}
	s.faults[e] = q[1:]
	return q[0], true
}

func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, f Fault, handle http.HandlerFunc) {
	var rec *httptest.ResponseRecorder
	if f.AfterHandling {
		rec = httptest.NewRecorder()
		handle(rec, r)
	}
	if f.Delay > 0 {
		select {
		case <-time.After(f.Delay):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case f.ResetConnection:
		resetConnection(w)
	case f.Status == 0 && rec != nil:
		maps.Copy(w.Header(), rec.Header())
		writeBody(w, rec.Code, "", rec.Body.Bytes())
	case f.Status == 0:
		handle(w, r)
	default:
		body := []byte(f.Body)
		if len(body) == 0 && f.Status >= 400 {
			body = fmt.Appendf(nil, `{"error":"injected fault %d"}`, f.Status)
		}
		for k, v := range f.Header {
			w.Header().Set(k, v)
		}
		contentType := "text/plain; charset=utf-8"
		if json.Valid(body) {
			contentType = "application/json"
		}
		if len(body) == 0 {
			contentType = ""
		}
		writeBody(w, f.Status, contentType, body)
	}
}

// resetConnection drops the connection without an answer. Lingering 0 turns
// the close into a TCP RST, like a crashed proxy.
func resetConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Not hijackable (HTTP/2, recorder): abort the response instead.
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
