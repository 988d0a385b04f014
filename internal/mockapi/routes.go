package mockapi

import "strings"

// Endpoint names one route as "METHOD /path/{param}". The constants double as
// the routing table, so paths live in exactly one place.
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
)

var allEndpoints = []Endpoint{
	EndpointStartExport,
	EndpointGetExport,
	EndpointBundle,
	EndpointGetAgentJob,
	EndpointCreateAgentJob,
	EndpointAgentMessage,
	EndpointDownload,
}

// Method is the HTTP method of the endpoint.
func (e Endpoint) Method() string {
	m, _, _ := strings.Cut(string(e), " ")
	return m
}

// Pattern is the path pattern of the endpoint, e.g. "/v1/static-export/jobs/{jobId}".
func (e Endpoint) Pattern() string {
	_, p, _ := strings.Cut(string(e), " ")
	return p
}

type routeParams map[string]string

// matchRoute finds the endpoint for a request. When the path exists but the
// method does not, it returns no endpoint and the allowed methods.
func matchRoute(method, path string) (Endpoint, routeParams, []string) {
	var allowed []string
	for _, e := range allEndpoints {
		p, ok := matchPattern(e.Pattern(), path)
		if !ok {
			continue
		}
		if e.Method() == method {
			return e, p, nil
		}
		allowed = append(allowed, e.Method())
	}
	return "", nil, allowed
}

func matchPattern(pattern, path string) (routeParams, bool) {
	ps := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if !strings.HasPrefix(path, "/") || len(ps) != len(segs) {
		return nil, false
	}
	params := routeParams{}
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			if segs[i] == "" {
				return nil, false
			}
			params[p[1:len(p)-1]] = segs[i]
			continue
		}
		if p != segs[i] {
			return nil, false
		}
	}
	return params, true
}
