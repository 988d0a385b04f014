package client

import (
	"net/http"
	"net/url"
)

// Every path the API serves is built here, so that a revision of the API
// (for example static export scoped by project) is a change in one place.

type endpoint struct {
	method string
	path   string
	// idempotent calls may be repeated after any transient failure; the
	// others only when the server surely did not act on the first attempt.
	idempotent bool
}

func (e endpoint) String() string { return e.method + " " + e.path }

func startStaticExportEndpoint() endpoint {
	return endpoint{method: http.MethodPost, path: "/v1/static-export/jobs"}
}

func getStaticExportEndpoint(jobID string) endpoint {
	return endpoint{method: http.MethodGet, path: "/v1/static-export/jobs/" + url.PathEscape(jobID), idempotent: true}
}

// Generating a bundle does not change the export, only issues a new link, so
// repeating it is harmless.
func staticExportBundleEndpoint(jobID string) endpoint {
	return endpoint{method: http.MethodPost, path: "/v1/static-export/jobs/" + url.PathEscape(jobID) + "/bundle", idempotent: true}
}

func getAgentJobEndpoint(projectID, jobID string) endpoint {
	return endpoint{method: http.MethodGet, path: "/v2/agent/" + url.PathEscape(projectID) + "/job/" + url.PathEscape(jobID), idempotent: true}
}

func createAgentJobEndpoint(projectID string) endpoint {
	return endpoint{method: http.MethodPost, path: "/v2/agent/" + url.PathEscape(projectID) + "/job"}
}

func agentJobMessageEndpoint(projectID, jobID string) endpoint {
	return endpoint{method: http.MethodPost, path: "/v2/agent/" + url.PathEscape(projectID) + "/job/" + url.PathEscape(jobID) + "/message"}
}
