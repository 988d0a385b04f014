package mockapi

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// Endpoint names one route as a net/http.ServeMux pattern, "METHOD /path/{param}".
// The constants are the routing table, so paths live in exactly one place.
type Endpoint string

// The routes the fake serves.
const (
	EndpointStartExport    Endpoint = "POST /v1/static-export/jobs"
	EndpointGetExport      Endpoint = "GET /v1/static-export/jobs/{jobId}"
	EndpointBundle         Endpoint = "POST /v1/static-export/jobs/{jobId}/bundle"
	EndpointGetAgentJob    Endpoint = "GET /v2/agent/{projectId}/job/{id}"
	EndpointCreateAgentJob Endpoint = "POST /v2/agent/{projectId}/job"
	EndpointAgentMessage   Endpoint = "POST /v2/agent/{projectId}/job/{id}/message"
	EndpointDownload       Endpoint = "GET /bundles/{jobId}/bundle.tar.gz"
	// Part D: deployments and previews.
	EndpointDeploy           Endpoint = "POST /v1/project/update/{projectId}"
	EndpointDeploymentStatus Endpoint = "GET /v1/project/update-status/{statusId}"
	EndpointPreview          Endpoint = "POST /v1/project/preview/{projectId}"
)

// Method is the HTTP method of the endpoint.
func (e Endpoint) Method() string {
	m, _, _ := strings.Cut(string(e), " ")
	return m
}

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	for e, h := range map[Endpoint]http.HandlerFunc{
		EndpointStartExport:      s.handleStartExport,
		EndpointGetExport:        s.handleGetExport,
		EndpointBundle:           s.handleBundle,
		EndpointGetAgentJob:      s.handleGetAgentJob,
		EndpointCreateAgentJob:   s.handleCreateAgentJob,
		EndpointAgentMessage:     s.handleAgentMessage,
		EndpointDownload:         s.handleDownload, // presigned: the link itself is the credential
		EndpointDeploy:           s.handleDeploy,
		EndpointDeploymentStatus: s.handleDeploymentStatus,
		EndpointPreview:          s.handlePreview,
	} {
		mux.HandleFunc(string(e), s.endpoint(e, h))
	}
	return mux
}

// endpoint wraps a handler: count the request, rate-limit it, apply a queued
// fault if any (a proxy fails regardless of the key), check the key and its
// scope, handle it.
// Bundle downloads model object storage, a different service: neither
// limited nor authenticated by key.
func (s *Server) endpoint(e Endpoint, h http.HandlerFunc) http.HandlerFunc {
	api := e != EndpointDownload
	handle := h
	if api {
		handle = func(w http.ResponseWriter, r *http.Request) {
			switch scope := s.scopeOf(r); {
			case scope == scopeNone:
				writeError(w, http.StatusUnauthorized, "authentication failed: missing or invalid API key")
				return
			case scope == scopeRead && needsWrite(r.Method):
				// Names the scope, never the key: the real API's 403 bodies
				// say what is missing, not who asked.
				writeError(w, http.StatusForbidden, fmt.Sprintf(
					"forbidden: the API key has the read scope only; %s %s needs the write scope", r.Method, r.URL.Path))
				return
			}
			h(w, r)
		}
	}
	return func(w http.ResponseWriter, r *http.Request) {
		s.count(e)
		if e == EndpointGetAgentJob {
			s.count(agentKey{r.PathValue("projectId"), r.PathValue("id")})
		}
		if api {
			lw := s.logRequest(e, w, r)
			defer lw.done()
			w = lw
		}
		if api && !s.admit(w, r) { // rate limits and latency: limits.go
			return
		}
		if f, ok := s.nextFault(e); ok {
			s.applyFault(w, r, f, handle)
			return
		}
		handle(w, r)
	}
}

// ServeHTTP counts every request and routes it. An unrouted request gets
// what a web framework's router answers, a 404 whose body is generic
// ({"statusCode":404,"message":"Cannot GET /path","error":"Not Found"}): it
// speaks of the route, not of any object, unlike the API's own "job not
// found" errors. A wrong method gets the mux's 405 with Allow, as a JSON
// error like the rest of the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.count(allRequests)
	if h, pattern := s.mux.Handler(r); pattern == "" {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		// Anything but a 405 (a redirect to a cleaned path, too) is a 404.
		if allow := rec.Header().Get("Allow"); rec.Code == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", allow)
			writeError(w, rec.Code, fmt.Sprintf("method %s not allowed on %s", r.Method, r.URL.Path))
			return
		}
		writeJSON(w, http.StatusNotFound, struct {
			StatusCode int    `json:"statusCode"`
			Message    string `json:"message"`
			Error      string `json:"error"`
		}{http.StatusNotFound, fmt.Sprintf("Cannot %s %s", r.Method, r.URL.Path), "Not Found"})
		return
	}
	s.mux.ServeHTTP(w, r)
}

// throttle takes a token at now, or answers the whole seconds to wait for
// one. The limiter runs on real time rather than Config.Now: rate limits are
// about how fast a client really calls.
func (s *Server) throttle(now time.Time) int {
	res := s.limiter.ReserveN(now, 1)
	wait := res.DelayFrom(now)
	if wait == 0 {
		return 0
	}
	res.CancelAt(now)
	s.mu.Lock()
	s.rateLimited++
	s.mu.Unlock()
	return retryAfterSeconds(wait)
}

// retryAfterSeconds renders a wait as a Retry-After delta: whole seconds,
// rounded up, at least 1.
func retryAfterSeconds(d time.Duration) int {
	return max(int(math.Ceil(d.Seconds())), 1)
}
