// Package testclient builds clients of clienttest's servers for the tests of
// the request and pacing layers, which the thin client's own tests, in its
// package, cannot import.
package testclient

import (
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// New returns a client of baseURL with quick backoff, after edit.
func New(t *testing.T, baseURL string, edit ...func(*client.Config)) *client.Client {
	t.Helper()
	cfg := client.Config{
		BaseURL: baseURL, APIKey: "key-123", Version: "1.2.3", MaxRetries: 3,
		MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
	}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
