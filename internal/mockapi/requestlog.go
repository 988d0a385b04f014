package mockapi

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"time"
)

// LoggedRequest is one API request as the server received it, for tests
// that check what a client sent and in which order.
type LoggedRequest struct {
	Endpoint Endpoint
	Method   string
	Path     string // the escaped path, without the query
	Body     string // as sent, up to maxBodyBytes
	At       time.Time
	// Status is the answer's HTTP status; 0 while it is being handled, or
	// when the connection was reset instead.
	Status int
}

// maxLoggedRequests bounds the log, so that a benchmark sending millions of
// requests does not grow it without end; later requests are not logged.
const maxLoggedRequests = 1 << 16

// RequestLog returns the API requests received so far, oldest first: the
// first maxLoggedRequests of them. Archive downloads are not API requests
// and are left out.
func (s *Server) RequestLog() []LoggedRequest {
	return locked(s, func() []LoggedRequest { return slices.Clone(s.requestLog) })
}

// loggingWriter records the status of the answer to a logged request.
type loggingWriter struct {
	http.ResponseWriter
	s      *Server
	index  int
	status int
}

// logRequest appends r to the log, keeping its body readable for the
// handler, and returns the writer that records the answer's status.
func (s *Server) logRequest(e Endpoint, w http.ResponseWriter, r *http.Request) *loggingWriter {
	lw := &loggingWriter{ResponseWriter: w, s: s, index: -1}
	if locked(s, func() bool { return len(s.requestLog) >= maxLoggedRequests }) {
		return lw
	}
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	entry := LoggedRequest{Endpoint: e, Method: r.Method, Path: r.URL.EscapedPath(), Body: string(body), At: s.now()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requestLog) < maxLoggedRequests {
		s.requestLog = append(s.requestLog, entry)
		lw.index = len(s.requestLog) - 1
	}
	return lw
}

func (w *loggingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *loggingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (a fault's reset
// hijacks it).
func (w *loggingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *loggingWriter) done() {
	if w.index < 0 {
		return
	}
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.s.requestLog[w.index].Status = w.status
}
