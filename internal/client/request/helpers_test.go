package request_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest/testclient"
)

const testWS = "00000000-0000-4000-8000-000000000001"

// listJobs returns every job of the test workspace, in the order
// the service gives them: the tests' way to walk every page.
func listJobs(c *client.Client, ctx context.Context) ([]client.Job, error) {
	v, all := client.Collect[client.Job](nil, 0)
	err := c.EachJobPage(ctx, testWS, client.JobFilter{}, v)
	return *all, err
}

func idsOf(jobs []client.Job) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// attemptLog counts the attempts a client logs, and keeps their fields.
type attemptLog struct {
	mu     sync.Mutex
	fields []map[string]any
}

func (l *attemptLog) hook(c *client.Config) {
	c.Log = func(_ context.Context, msg string, f map[string]any) {
		if msg != "API request" {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.fields = append(l.fields, f)
	}
}

func (l *attemptLog) Count() int { l.mu.Lock(); defer l.mu.Unlock(); return len(l.fields) }

func (l *attemptLog) last() map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.fields) == 0 {
		return nil
	}
	return l.fields[len(l.fields)-1]
}

// budgetClient is a client of base with a short retry budget, no cap on
// retries and quick backoff, whose attempts log counts.
func budgetClient(t *testing.T, base string, budget time.Duration, log *attemptLog, edit ...func(*client.Config)) *client.Client {
	t.Helper()
	return testclient.New(t, base, append([]func(*client.Config){func(c *client.Config) {
		c.MaxRetries = client.NoRetryLimit
		c.RetryBudget = budget
		c.MinBackoff, c.MaxBackoff = 20*time.Millisecond, 50*time.Millisecond
		log.hook(c)
	}}, edit...)...)
}

// unreachable is err's Unreachable failure; the test fails when there is
// none, or when the request is said to have reached the service.
func unreachable(t *testing.T, err error) *client.ConnectError {
	t.Helper()
	return connectFailure(t, err, client.Unreachable)
}

// connectFailure is err's ConnectError; the test fails when there is none,
// or when the request was retried or said to have reached the service.
func connectFailure(t *testing.T, err error, want client.ConnectFailure) *client.ConnectError {
	t.Helper()
	var ce *client.ConnectError
	var e *client.Error
	if !errors.As(err, &ce) || !errors.As(err, &e) {
		t.Fatalf("want a ConnectError, got %T: %v", err, err)
	}
	if ce.Failure != want {
		t.Errorf("failure %q, want %q: %v", ce.Failure, want, err)
	}
	if e.Sent || e.MayHaveTakenEffect() {
		t.Errorf("a request that never reached the service is said to have: %+v", e)
	}
	return ce
}
