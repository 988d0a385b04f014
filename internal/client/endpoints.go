package client

import (
	"fmt"
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
	// invalid explains why an identifier cannot be put in the path; such a
	// call is refused before anything is sent.
	invalid string
	// collection marks a path that exists whatever the data: a 404 there
	// means that the client's base URL points elsewhere.
	collection bool
	// ownLimit marks an endpoint with a quota of its own, far below the
	// key's request rate: its 429 holds no other caller, and is not retried
	// here, since its Retry-After is counted in minutes; the caller decides
	// whether the wait fits its time.
	ownLimit bool
	// project marks a call of the project-scoped revision of static
	// export, whose 401, 403 and 404 mean more than elsewhere.
	project bool
	// object is the id of what the call asks for (the last id in its
	// path): a 404 means that it is gone only when the API's error names
	// it (saysGone).
	object string
	// inProject marks a path that names a project: a 404 there may say
	// that the API knows no such project (see InProject).
	inProject bool
}

// segment escapes one path segment. Empty, "." and ".." would address
// another endpoint once a proxy or server cleans the path, so they are
// refused rather than sent.
func segment(kind, value string, invalid *string) string {
	if value == "" || value == "." || value == ".." {
		if *invalid == "" {
			*invalid = fmt.Sprintf("%s %q cannot be used in a request path", kind, value)
		}
		return "_"
	}
	return url.PathEscape(value)
}

func (e endpoint) String() string { return e.method + " " + e.path }

func startStaticExportEndpoint() endpoint {
	return endpoint{method: http.MethodPost, path: "/v1/static-export/jobs", collection: true}
}

// The project revision's start takes no body and may answer 409 (another
// export runs) or 429 (ten starts an hour): neither started anything. Its
// 404 speaks of the project, or of a route this server does not serve.
// Its 429 is a quota of starts, not the key's request rate (ownLimit).
func startProjectExportEndpoint(projectID string) endpoint {
	ep := endpoint{method: http.MethodPost, ownLimit: true, project: true, object: projectID, inProject: true}
	ep.path = "/v1/static-export/" + segment("project id", projectID, &ep.invalid) + "/jobs"
	return ep
}

func getProjectExportEndpoint(projectID, jobID string) endpoint {
	ep := endpoint{method: http.MethodGet, idempotent: true, project: true, object: jobID, inProject: true}
	ep.path = "/v1/static-export/" + segment("project id", projectID, &ep.invalid) + "/jobs/" + segment("job id", jobID, &ep.invalid)
	return ep
}

func getStaticExportEndpoint(jobID string) endpoint {
	ep := endpoint{method: http.MethodGet, idempotent: true, object: jobID}
	ep.path = "/v1/static-export/jobs/" + segment("job id", jobID, &ep.invalid)
	return ep
}

// Generating a link does not change the export, only issues a new link to
// its archive, so repeating it is harmless.
func staticExportLinkEndpoint(jobID string) endpoint {
	ep := endpoint{method: http.MethodPost, idempotent: true, object: jobID}
	ep.path = "/v1/static-export/jobs/" + segment("job id", jobID, &ep.invalid) + "/bundle"
	return ep
}

func getAgentJobEndpoint(projectID, jobID string) endpoint {
	ep := endpoint{method: http.MethodGet, idempotent: true, object: jobID, inProject: true}
	ep.path = "/v2/agent/" + segment("project id", projectID, &ep.invalid) + "/job/" + segment("agent job id", jobID, &ep.invalid)
	return ep
}

func createAgentJobEndpoint(projectID string) endpoint {
	// Not a collection for 404s: an unknown project answers 404 too.
	ep := endpoint{method: http.MethodPost, object: projectID, inProject: true}
	ep.path = "/v2/agent/" + segment("project id", projectID, &ep.invalid) + "/job"
	return ep
}

func agentJobMessageEndpoint(projectID, jobID string) endpoint {
	ep := endpoint{method: http.MethodPost, object: jobID, inProject: true}
	ep.path = "/v2/agent/" + segment("project id", projectID, &ep.invalid) + "/job/" + segment("agent job id", jobID, &ep.invalid) + "/message"
	return ep
}

// Queuing a deployment update builds and publishes the project again: a
// second request would queue a second deployment.
func triggerDeploymentEndpoint(projectID string) endpoint {
	ep := endpoint{method: http.MethodPost, object: projectID, inProject: true}
	ep.path = "/v1/project/update/" + segment("project id", projectID, &ep.invalid)
	return ep
}

func getDeploymentEndpoint(statusID string) endpoint {
	ep := endpoint{method: http.MethodGet, idempotent: true, object: statusID}
	ep.path = "/v1/project/update-status/" + segment("deployment status id", statusID, &ep.invalid)
	return ep
}

// A preview request creates the branch's preview or rebuilds it: repeating
// it would queue a second build.
func previewDeploymentEndpoint(projectID string) endpoint {
	ep := endpoint{method: http.MethodPost, object: projectID, inProject: true}
	ep.path = "/v1/project/preview/" + segment("project id", projectID, &ep.invalid)
	return ep
}
