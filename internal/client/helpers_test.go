package client

// What several test files of the package share besides clienttest's
// servers: a client of them, and the way to walk every page.

import (
	"context"
	"testing"
	"time"
)

const testWS = "00000000-0000-4000-8000-000000000001"

// newTestClient returns a client of srv with quick backoff.
func newTestClient(t *testing.T, baseURL string, edit ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		BaseURL: baseURL, APIKey: "key-123", Version: "1.2.3", MaxRetries: 3,
		MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
	}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ListJobs returns every job of the workspace that f selects, in the order
// the service gives them: the tests' way to walk every page.
func (c *Client) ListJobs(ctx context.Context, workspaceID string, f JobFilter) ([]Job, error) {
	v, all := Collect[Job](nil, 0)
	err := c.EachJobPage(ctx, workspaceID, f, v)
	return *all, err
}

func idsOf(jobs []Job) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}
