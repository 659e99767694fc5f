package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/request"
)

// EachJobPage gives v the pages of the jobs that f selects.
func (c *Client) EachJobPage(ctx context.Context, workspaceID string, f JobFilter, v Visitor[Job]) error {
	return walk(ctx, c.Client, jobListing(workspaceID, f), v)
}

// TriggerJob starts an execution of the job.
func (c *Client) TriggerJob(ctx context.Context, workspaceID, jobID string, forceFullRefresh bool) error {
	q := url.Values{}
	if forceFullRefresh {
		q.Set(queryForceFullRefresh, "true")
	}
	return c.Do(ctx, request.Call{
		Op:     "trigger job",
		Method: http.MethodPost,
		Path:   fmt.Sprintf(pathJobRun, url.PathEscape(workspaceID), url.PathEscape(jobID)),
		Query:  q,
		Want:   http.StatusCreated,
	})
}

// CancelJob cancels the job's running execution.
func (c *Client) CancelJob(ctx context.Context, workspaceID, jobID string) error {
	return c.Do(ctx, request.Call{
		Op:     "cancel job",
		Method: http.MethodDelete,
		Path:   fmt.Sprintf(pathJobCancel, url.PathEscape(workspaceID), url.PathEscape(jobID)),
		Want:   http.StatusNoContent,
	})
}
