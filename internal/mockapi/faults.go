package mockapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	// Patch, with AfterHandling and Status 0, sets these fields over the
	// real answer's JSON object: a wrong type in one field of an answer to
	// a call that acted (`{"previewUrl": 42}`), or a status the API does
	// not document. A nil value removes the field.
	Patch map[string]any
	// Trickle writes the body a byte at a time, this long apart, like a
	// server or proxy that stalls mid-answer.
	Trickle time.Duration
	// EchoRequest makes the error message Body followed by what the request
	// carried, its Authorization header and its body (a prompt, say), as a
	// careless API or gateway quotes them back. JSON-encoded, so Body may
	// hold any character (escape sequences included).
	EchoRequest bool
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
	if f.EchoRequest && f.Status >= 400 {
		sent, _ := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
		r.Body = io.NopCloser(bytes.NewReader(sent))
		msg, _ := json.Marshal(struct {
			Error string `json:"error"`
		}{fmt.Sprintf("%s (request: Authorization: %s; body: %s)", f.Body, r.Header.Get("Authorization"), sent)})
		f.Body = string(msg)
	}
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
		w.Header().Del("Content-Length") // the patch may change it
		f.write(w, r, rec.Code, "", patched(rec.Body.Bytes(), f.Patch))
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
		f.write(w, r, f.Status, contentType, body)
	}
}

// write answers with body, a byte at a time when the fault trickles.
func (f Fault) write(w http.ResponseWriter, r *http.Request, status int, contentType string, body []byte) {
	if f.Trickle <= 0 {
		writeBody(w, status, contentType, body)
		return
	}
	writeStream(w, status, contentType, int64(len(body)), func(out io.Writer) error {
		flush := http.NewResponseController(w)
		for i := range body {
			if _, err := out.Write(body[i : i+1]); err != nil {
				return err
			}
			_ = flush.Flush()
			if i == len(body)-1 {
				break
			}
			select {
			case <-time.After(f.Trickle):
			case <-r.Context().Done():
				return r.Context().Err()
			}
		}
		return nil
	})
}

// patched sets the fields of patch over the JSON object body; a body that
// is not an object is returned as it is.
func patched(body []byte, patch map[string]any) []byte {
	if len(patch) == 0 {
		return body
	}
	var fields map[string]any
	if json.Unmarshal(body, &fields) != nil || fields == nil {
		return body
	}
	for k, v := range patch {
		if v == nil {
			delete(fields, k)
		} else {
			fields[k] = v
		}
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return body
	}
	return out
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
