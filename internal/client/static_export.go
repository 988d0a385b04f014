package client

import (
	"context"
	"fmt"
)

// StartStaticExport starts an export job. It is retried only when the server
// surely did not receive it, so a failure never hides a second export.
func (c *Client) StartStaticExport(ctx context.Context, req StartStaticExportRequest) (*StaticExportJob, error) {
	var job StaticExportJob
	ep := startStaticExportEndpoint()
	if err := c.do(ctx, ep, req, &job); err != nil {
		return nil, err
	}
	if job.JobID == "" {
		return nil, &APIError{Endpoint: ep.String(), StatusCode: 202, Message: "the answer carried no jobId; an export may have been started"}
	}
	if job.Status == "" {
		job.Status = ExportQueued
	}
	return &job, nil
}

// GetStaticExport reads an export job.
func (c *Client) GetStaticExport(ctx context.Context, jobID string) (*StaticExportJob, error) {
	var job StaticExportJob
	if err := c.do(ctx, getStaticExportEndpoint(jobID), nil, &job); err != nil {
		return nil, err
	}
	if job.JobID == "" {
		job.JobID = jobID
	}
	return &job, nil
}

// CreateStaticExportLink generates a fresh link to a completed export's
// archive. It answers a 409 APIError while the job has not completed.
func (c *Client) CreateStaticExportLink(ctx context.Context, jobID string) (*StaticExportLink, error) {
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
