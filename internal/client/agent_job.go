package client

import "context"

// GetAgentJob reads an agent job of a project.
func (c *Client) GetAgentJob(ctx context.Context, projectID, jobID string) (*AgentJob, error) {
	var job AgentJob
	if err := c.do(ctx, getAgentJobEndpoint(projectID, jobID), nil, &job); err != nil {
		return nil, err
	}
	if job.ID == "" {
		job.ID = jobID
	}
	return &job, nil
}

// CreateAgentJob starts an agent job from a prompt. Like every non-idempotent
// call it is retried only when the server surely did not act.
func (c *Client) CreateAgentJob(ctx context.Context, projectID, prompt string) (*AgentJob, error) {
	var job AgentJob
	if err := c.do(ctx, createAgentJobEndpoint(projectID), AgentPromptRequest{Prompt: prompt}, &job); err != nil {
		return nil, err
	}
	return &job, nil
}

// SendAgentJobMessage sends a follow-up prompt to an agent job.
func (c *Client) SendAgentJobMessage(ctx context.Context, projectID, jobID, prompt string) (*AgentJob, error) {
	var job AgentJob
	if err := c.do(ctx, agentJobMessageEndpoint(projectID, jobID), AgentPromptRequest{Prompt: prompt}, &job); err != nil {
		return nil, err
	}
	if job.ID == "" {
		job.ID = jobID
	}
	return &job, nil
}
