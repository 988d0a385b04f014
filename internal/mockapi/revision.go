package mockapi

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
)

// APIRevision is a revision of the static export API: the server serves
// the routes of one, or of both at once.
type APIRevision string

const (
	// RevisionDomain is parts A and B: a start with {domain, version,
	// paths} at EndpointStartExport, reads at EndpointGetExport, links from
	// EndpointBundle.
	RevisionDomain APIRevision = "domain"
	// RevisionProject is part E: a start without a body at
	// EndpointStartProjectExport, reads at EndpointGetProjectExport, which
	// carry a fresh link once the job completed; no bundle call.
	RevisionProject APIRevision = "project"
	// RevisionBoth serves the routes of both revisions at once.
	RevisionBoth APIRevision = "both"
)

// APIRevisions are the values Config.APIRevision accepts besides "".
var APIRevisions = []APIRevision{RevisionDomain, RevisionProject, RevisionBoth}

// ValidAPIRevision reports whether Config.APIRevision may be r.
func ValidAPIRevision(r APIRevision) bool { return r == "" || slices.Contains(APIRevisions, r) }

// serves reports whether a server of revision r serves the routes of
// revision routes ("": routes that every revision serves).
func (r APIRevision) serves(routes APIRevision) bool {
	return routes == "" || r == RevisionBoth || r == routes
}

// SetAPIRevision switches the static export routes served from now on, as
// when a user is moved to the other revision between two applies: the
// routes of a revision not served answer as unknown paths do. Jobs, links
// and counters survive the switch. Empty means RevisionDomain; any other
// value but APIRevisions panics.
func (s *Server) SetAPIRevision(r APIRevision) {
	r = resolvedRevision(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revision = r
}

// resolvedRevision is r, RevisionDomain for "", and panics for a value that
// is none of APIRevisions.
func resolvedRevision(r APIRevision) APIRevision {
	if !ValidAPIRevision(r) {
		panic(fmt.Sprintf("mockapi: APIRevision %q is none of %v", r, APIRevisions))
	}
	return cmp.Or(r, RevisionDomain)
}

// APIRevision is the revision of static export being served.
func (s *Server) APIRevision() APIRevision {
	return locked(s, func() APIRevision { return s.revision })
}

// servedMux is the mux of the revision being served.
func (s *Server) servedMux() *http.ServeMux {
	return locked(s, func() *http.ServeMux { return s.muxes[s.revision] })
}
