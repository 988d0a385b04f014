package client

import (
	"context"
	"fmt"
)

// StartStaticExport starts an export job in the first revision of the API
// that serves the start (see exportRevisions). It is retried only when the
// server surely did not receive it, so a failure never hides a second
// export. The project revision takes no body: domain, version and paths are
// not sent there, and the job's Revision says which revision exported it.
func (c *Client) StartStaticExport(ctx context.Context, req StartStaticExportRequest) (*StaticExportJob, error) {
	routes, err := c.exports.forStart(req.Domain)
	if err != nil {
		return nil, err
	}
	job, p, err := tryRevisions(ctx, c, routes, false, func(p exportRoute) (*StaticExportJob, error) { return c.startIn(ctx, p, req) })
	if err != nil {
		return nil, err
	}
	c.exports.learn(job.JobID, p)
	return job, nil
}

// tryRevisions calls call on each route in turn, and goes on to the next
// only after an answer that says the route is not served (a 404 or a 405),
// which started and changed nothing. When the first route is the job's own
// revision (known), its answer that the job is gone ends the call; the
// other revision's says so only when the job's own answered as no route
// does (RevisionError.Moved). It returns what the first route that
// answered gave, and which; or every answer, when none did.
func tryRevisions[T any](ctx context.Context, c *Client, routes []exportRoute, known bool, call func(exportRoute) (T, error)) (T, exportRoute, error) {
	var attempts []error
	for i, p := range routes {
		v, err := call(p)
		if err == nil {
			return v, p, nil
		}
		attempts = append(attempts, err)
		if i == len(routes)-1 || !routeAbsent(err) || (known && IsNotFound(err)) || ctx.Err() != nil {
			break
		}
		c.logger.Debug(ctx, "static export route not served in this revision; trying the other", map[string]any{
			"revision": string(p.revision), "next": string(routes[i+1].revision), "status": StatusCode(err),
		})
	}
	var zero T
	return zero, exportRoute{}, bothFailed(attempts, routes, known)
}

func (c *Client) startIn(ctx context.Context, p exportRoute, req StartStaticExportRequest) (*StaticExportJob, error) {
	ep, body := startStaticExportEndpoint(), any(req)
	if p.revision == RevisionProject {
		ep, body = startProjectExportEndpoint(p.project), nil
	}
	var job StaticExportJob
	if err := c.do(ctx, ep, body, &job); err != nil {
		return nil, err
	}
	if job.JobID == "" {
		return nil, &APIError{Endpoint: ep.String(), StatusCode: 202, Message: "the answer carried no jobId; an export may have been started"}
	}
	if job.Status == "" {
		job.Status = ExportQueued
	}
	job.Revision = p.revision
	return &job, nil
}

// GetStaticExport reads an export job where it was last found (or the
// revision the server last answered in), and in the other revision after a
// 404 or 405: a server that moved from one revision to the other may serve
// an earlier job's reads at the other address only.
func (c *Client) GetStaticExport(ctx context.Context, jobID string) (*StaticExportJob, error) {
	routes, known := c.exports.forJob(jobID)
	job, p, err := tryRevisions(ctx, c, routes, known, func(p exportRoute) (*StaticExportJob, error) { return c.getIn(ctx, p, jobID) })
	if err != nil {
		return nil, err
	}
	c.exports.learn(jobID, p)
	return job, nil
}

func (c *Client) getIn(ctx context.Context, p exportRoute, jobID string) (*StaticExportJob, error) {
	ep := getStaticExportEndpoint(jobID)
	if p.revision == RevisionProject {
		ep = getProjectExportEndpoint(p.project, jobID)
	}
	var job StaticExportJob
	if err := c.do(ctx, ep, nil, &job); err != nil {
		return nil, err
	}
	if job.JobID == "" {
		job.JobID = jobID
	}
	job.Revision = p.revision
	return &job, nil
}

// CreateStaticExportLink gets a fresh link to a completed export's archive:
// a bundle call in the domain revision, a read of the job in the project
// revision (where a completed job carries a fresh link on every read). A
// job that has not completed, or whose link is not there yet, answers a
// *LinkNotReadyError (IsLinkNotReady). Like a read, it goes where the job
// was found, and to the other revision after a 404 or 405.
func (c *Client) CreateStaticExportLink(ctx context.Context, jobID string) (*StaticExportLink, error) {
	routes, known := c.exports.forJob(jobID)
	link, p, err := tryRevisions(ctx, c, routes, known, func(p exportRoute) (*StaticExportLink, error) { return c.linkIn(ctx, p, jobID) })
	if err != nil {
		return nil, err
	}
	c.exports.learn(jobID, p)
	return link, nil
}

func (c *Client) linkIn(ctx context.Context, p exportRoute, jobID string) (*StaticExportLink, error) {
	if p.revision == RevisionProject {
		job, err := c.getIn(ctx, p, jobID)
		if err != nil {
			return nil, err
		}
		return jobLink(job)
	}
	var link StaticExportLink
	ep := staticExportLinkEndpoint(jobID)
	if err := c.do(ctx, ep, nil, &link); err != nil {
		return nil, err
	}
	if link.BundleURL == "" {
		return nil, &APIError{Endpoint: ep.String(), StatusCode: 200, Message: fmt.Sprintf("the answer carried no bundleUrl for job %s", jobID)}
	}
	if link.JobID == "" {
		link.JobID = jobID
	}
	return &link, nil
}

// jobLink is the link a project-revision job carries once completed.
func jobLink(job *StaticExportJob) (*StaticExportLink, error) {
	if job.Status == ExportFailed {
		// Its reason is the caller's to show, sanitized.
		return nil, fmt.Errorf("export job %s failed, so it has no archive to link to", job.JobID)
	}
	if job.Status != ExportCompleted || job.Link == nil {
		return nil, &LinkNotReadyError{JobID: job.JobID, Status: job.Status}
	}
	link := *job.Link
	link.JobID = job.JobID
	return &link, nil
}

// LinkNotReadyError is a link asked for a project-revision job that has not
// completed, or whose completed answer carried no bundleUrl yet.
type LinkNotReadyError struct {
	JobID  string
	Status ExportStatus
}

func (e *LinkNotReadyError) Error() string {
	if e.Status == ExportCompleted {
		return fmt.Sprintf("export job %s is completed but its answer carries no bundleUrl yet", e.JobID)
	}
	return fmt.Sprintf("export job %s has no link yet: its status is %.64q", e.JobID, string(e.Status)) // bounded: the API's text
}
