package client

import (
	"context"
	"net/http"
)

// TriggerDeployment queues a deployment update of a project from its
// configured deployment branch and returns the id its progress is read
// with. Like every call that starts something it is retried only when the
// server surely did not act.
func (c *Client) TriggerDeployment(ctx context.Context, projectID string) (*DeploymentStart, error) {
	return c.startDeployment(ctx, triggerDeploymentEndpoint(projectID), nil)
}

// CreatePreviewDeployment creates a preview deployment of a branch, or
// rebuilds the existing one. The API answers 403 to an organisation whose
// plan has no previews and 400 to an empty branch.
func (c *Client) CreatePreviewDeployment(ctx context.Context, projectID, branch string) (*DeploymentStart, error) {
	return c.startDeployment(ctx, previewDeploymentEndpoint(projectID), PreviewDeploymentRequest{Branch: branch})
}

func (c *Client) startDeployment(ctx context.Context, ep endpoint, body any) (*DeploymentStart, error) {
	var start DeploymentStart
	if err := c.do(ctx, ep, body, &start); err != nil {
		return nil, err
	}
	if start.StatusID == "" {
		return nil, &APIError{Endpoint: ep.String(), StatusCode: http.StatusAccepted, Message: "the answer carried no statusId; a deployment may have been queued"}
	}
	return &start, nil
}

// GetDeployment reads the status of a deployment update or preview.
func (c *Client) GetDeployment(ctx context.Context, statusID string) (*Deployment, error) {
	var d Deployment
	if err := c.do(ctx, getDeploymentEndpoint(statusID), nil, &d); err != nil {
		return nil, err
	}
	if d.ID == "" {
		d.ID = statusID
	}
	return &d, nil
}
