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
	// Part E: static export scoped by project, without a bundle call; a
	// completed job carries its link, which points at EndpointDownloadZip.
	EndpointStartProjectExport Endpoint = "POST /v1/static-export/{projectId}/jobs"
	EndpointGetProjectExport   Endpoint = "GET /v1/static-export/{projectId}/jobs/{jobId}"
	EndpointDownloadZip        Endpoint = "GET /bundles/{jobId}/export.zip"
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

// route is one row of the routing table: an endpoint's handler, and the
// revision of static export whose routes it belongs to ("": served
// whatever the revision).
type route struct {
	handle   http.HandlerFunc
	revision APIRevision
}

// routes returns one mux for each APIRevision, each with the routes that
// revision serves: a route it does not serve is unrouted there, so that
// ServeHTTP answers it as any unknown path.
func (s *Server) routes() map[APIRevision]*http.ServeMux {
	table := map[Endpoint]route{
		EndpointStartExport:        {s.handleStartExport, RevisionDomain},
		EndpointGetExport:          {s.handleGetExport, RevisionDomain},
		EndpointBundle:             {s.handleBundle, RevisionDomain},
		EndpointStartProjectExport: {s.handleStartProjectExport, RevisionProject},
		EndpointGetProjectExport:   {s.handleGetProjectExport, RevisionProject},
		EndpointGetAgentJob:        {s.handleGetAgentJob, ""},
		EndpointCreateAgentJob:     {s.handleCreateAgentJob, ""},
		EndpointAgentMessage:       {s.handleAgentMessage, ""},
		// Presigned: the link itself is the credential. Object storage
		// serves the links already issued whatever the API's revision.
		EndpointDownload:         {s.handleDownload, ""},
		EndpointDownloadZip:      {s.handleDownload, ""},
		EndpointDeploy:           {s.handleDeploy, ""},
		EndpointDeploymentStatus: {s.handleDeploymentStatus, ""},
		EndpointPreview:          {s.handlePreview, ""},
	}
	muxes := map[APIRevision]*http.ServeMux{}
	for _, rev := range APIRevisions {
		muxes[rev] = http.NewServeMux()
	}
	for e, rt := range table {
		h := s.endpoint(e, rt)
		for rev, mux := range muxes {
			if rev.serves(rt.revision) {
				mux.HandleFunc(string(e), h)
			}
		}
	}
	return muxes
}

// downloadContentTypes are the download endpoints, object storage's, and
// the type each labels its archive with: the name's, whatever the bytes.
var downloadContentTypes = map[Endpoint]string{
	EndpointDownload:    "application/gzip",
	EndpointDownloadZip: "application/zip",
}

// endpoint wraps a handler: count the request, rate-limit it, apply a queued
// fault if any (a proxy fails regardless of the key), check the key and its
// scope and that the API knows the route's project (Config.Projects),
// handle it.
// Bundle downloads model object storage, a different service: neither
// limited nor authenticated by key.
func (s *Server) endpoint(e Endpoint, rt route) http.HandlerFunc {
	_, download := downloadContentTypes[e]
	api, h := !download, rt.handle
	handle := h
	if api {
		handle = func(w http.ResponseWriter, r *http.Request) {
			switch scope := s.scopeOf(r); {
			case scope == scopeNone:
				writeError(w, http.StatusUnauthorized, "authentication failed: missing or invalid API key")
				return
			case scope == scopeRead && needsWrite(r.Method):
				// Names the scope, never the key: the real API's 403 bodies
				// say what is missing, not who asked. Part E words it as a
				// permission.
				lacks := "has the read scope only"
				if rt.revision == RevisionProject {
					lacks = "lacks write permission: it has the read scope only"
				}
				writeError(w, http.StatusForbidden, fmt.Sprintf(
					"forbidden: the API key %s; %s %s needs the write scope", lacks, r.Method, r.URL.Path))
				return
			}
			if project := r.PathValue("projectId"); project != "" && !s.knowsProject(project) {
				writeError(w, http.StatusNotFound, ProjectNotFoundMessage)
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
//
// Only the routes of the static export revision being served are routed
// (SetAPIRevision): the others are unrouted paths.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.count(allRequests)
	mux := s.servedMux()
	if h, pattern := mux.Handler(r); pattern == "" {
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
	mux.ServeHTTP(w, r)
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
