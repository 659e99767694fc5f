package pacing_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/pacing"
)

func TestPacing_readQuota(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		headers   [][2]string
		by        string
		remaining int64
		reset     time.Duration
	}{
		{[][2]string{{"RateLimit-Policy", `"burst";q=100;w=1, "daily";q=1000;w=86400`}, {"RateLimit", `"burst";r=40;t=1, "daily";r=3;t=7`}}, "RateLimit", 3, 7 * time.Second},
		{[][2]string{{"RateLimit", `limit=10, remaining=0, reset=3`}}, "RateLimit", 0, 3 * time.Second},
		{[][2]string{{"RateLimit-Limit", "10, 10;w=1"}, {"RateLimit-Remaining", "2"}, {"RateLimit-Reset", "1.5"}}, "RateLimit-Remaining", 2, 1500 * time.Millisecond},
		{[][2]string{{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", strconv.FormatInt(now.Add(90*time.Second).Unix(), 10)}}, "X-RateLimit-Remaining", 0, 90 * time.Second},
		// A Unix time a moment past, by a clock a little off: no wait.
		{[][2]string{{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", strconv.FormatInt(now.Add(-5*time.Second).Unix(), 10)}}, "X-RateLimit-Remaining", 0, 0},
		// A style ignored leaves the next one read.
		{[][2]string{{"RateLimit", `"default";r=x`}, {"X-RateLimit-Remaining", "1"}, {"X-RateLimit-Reset", "2"}}, "X-RateLimit-Remaining", 1, 2 * time.Second},
	} {
		h := http.Header{}
		for _, kv := range c.headers {
			h.Set(kv[0], kv[1])
		}
		q, ok := pacing.ReadQuota(h, now)
		if !ok || q.By != c.by || q.Remaining != c.remaining || (q.Reset-c.reset).Abs() > time.Second {
			t.Errorf("%v: %+v, %v; want %s, %d left, reset in %v", c.headers, q, ok, c.by, c.remaining, c.reset)
		}
	}
}
