package pacing_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest/testclient"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/pacing"
)

const testWS = "00000000-0000-4000-8000-000000000001"

// quotaServer lets limit requests through per window, refusing the rest with 429.
type quotaServer struct {
	served, refused atomic.Int64
	mu              sync.Mutex
	start           time.Time
	window          int64
	used            int
	hits            []hit
}

type hit struct {
	at      time.Time
	refused bool
	path    string
}

func newQuotaServer(t *testing.T, limit int, window time.Duration, tell func(h http.Header, left int, end time.Time)) (*quotaServer, string) {
	t.Helper()
	q := &quotaServer{window: -1}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q.mu.Lock()
		now := time.Now()
		if q.start.IsZero() {
			q.start = now
		}
		if i := int64(now.Sub(q.start) / window); i != q.window {
			q.window, q.used = i, 0
		}
		end := q.start.Add(time.Duration(q.window+1) * window)
		ok := q.used < limit
		if ok {
			q.used++
		}
		left := limit - q.used
		q.hits = append(q.hits, hit{now, !ok, r.URL.Path})
		q.mu.Unlock()
		if tell != nil {
			tell(w.Header(), left, end)
		}
		if !ok {
			q.refused.Add(1)
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		q.served.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(ts.Close)
	return q, ts.URL
}

func secondsTo(end time.Time) string {
	ms := math.Ceil(float64(time.Until(end)) / float64(time.Millisecond))
	return strconv.FormatFloat(max(ms, 1)/1000, 'f', 3, 64)
}

// TestPacing_holdsUntilReset: once none are left, requests wait for the
// window to end instead of being refused.
func TestPacing_holdsUntilReset(t *testing.T) {
	const limit, window, requests = 4, 300 * time.Millisecond, 12
	for name, tell := range map[string]func(h http.Header, left int, end time.Time){
		"RateLimit": func(h http.Header, left int, end time.Time) {
			h.Set("RateLimit-Policy", `"default";q=4;w=1`)
			h.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%s`, left, secondsTo(end)))
		},
		"RateLimit dictionary": func(h http.Header, left int, end time.Time) {
			h.Set("RateLimit", fmt.Sprintf(`limit=4, remaining=%d, reset=%s`, left, secondsTo(end)))
		},
		"RateLimit-Remaining": func(h http.Header, left int, end time.Time) {
			h.Set("RateLimit-Limit", "4")
			h.Set("RateLimit-Remaining", strconv.Itoa(left))
			h.Set("RateLimit-Reset", secondsTo(end))
		},
		"X-RateLimit-Remaining": func(h http.Header, left int, end time.Time) {
			h.Set("X-RateLimit-Limit", "4")
			h.Set("X-RateLimit-Remaining", strconv.Itoa(left))
			h.Set("X-RateLimit-Reset", secondsTo(end))
		},
		"X-RateLimit-Reset as a Unix time": func(h http.Header, left int, end time.Time) {
			h.Set("X-RateLimit-Limit", "4")
			h.Set("X-RateLimit-Remaining", strconv.Itoa(left))
			ms := (end.UnixNano() + int64(time.Millisecond) - 1) / int64(time.Millisecond)
			h.Set("X-RateLimit-Reset", fmt.Sprintf("%d.%03d", ms/1000, ms%1000))
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q, url := newQuotaServer(t, limit, window, tell)
			c := testclient.New(t, url, func(c *client.Config) { c.MaxConcurrentRequests = 4; c.MaxRetries = 20 })
			start := time.Now()
			var wg sync.WaitGroup
			errs := make(chan error, requests)
			for range 4 {
				wg.Go(func() {
					for range requests / 4 {
						errs <- c.CancelJob(context.Background(), testWS, "j")
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			took := time.Since(start)
			if n := q.refused.Load(); n != 0 {
				t.Errorf("%d requests refused: the client sent them while the service said none were left", n)
				q.mu.Lock()
				for _, h := range q.hits {
					t.Log(h.at.Sub(q.start), h.refused)
				}
				q.mu.Unlock()
			}
			// Three windows' worth: the requests waited for two resets.
			if took < 2*window-50*time.Millisecond {
				t.Errorf("%d requests over a quota of %d per %v took %v", requests, limit, window, took)
			}
		})
	}
}

// TestPacing_nonsenseIgnored: each of these, if believed, would hold a request 30 s or more.
func TestPacing_nonsenseIgnored(t *testing.T) {
	yearAway := strconv.FormatInt(time.Now().Add(365*24*time.Hour).Unix(), 10)
	for name, headers := range map[string][][2]string{
		"reset over an hour":      {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", "99999"}},
		"Unix time a year away":   {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", yearAway}},
		"Unix time long past":     {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", "1500000000"}},
		"negative remaining":      {{"RateLimit-Remaining", "-1"}, {"RateLimit-Reset", "30"}},
		"limit zero":              {{"RateLimit-Limit", "0"}, {"RateLimit-Remaining", "0"}, {"RateLimit-Reset", "30"}},
		"garbage remaining":       {{"X-RateLimit-Remaining", "none"}, {"X-RateLimit-Reset", "30"}},
		"garbage reset":           {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", "soon"}},
		"huge reset":              {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", "1e308"}},
		"huge number":             {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", "99999999999999999999999"}},
		"remaining over limit":    {{"X-RateLimit-Limit", "5"}, {"X-RateLimit-Remaining", "9"}, {"X-RateLimit-Reset", "30"}},
		"structured far reset":    {{"RateLimit", `"default";r=0;t=86400`}},
		"structured garbage":      {{"RateLimit", `"default";r=0;t=abc`}},
		"structured limit zero":   {{"RateLimit-Policy", `"default";q=0;w=60`}, {"RateLimit", `"default";r=0;t=30`}},
		"dictionary negative":     {{"RateLimit", `limit=10, remaining=-1, reset=30`}},
		"remaining without reset": {{"X-RateLimit-Remaining", "0"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var rec clienttest.Recorder
			ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				for _, h := range headers {
					w.Header().Set(h[0], h[1])
				}
				w.WriteHeader(http.StatusNoContent)
			})
			c := testclient.New(t, ts.URL)
			ctx, cancel := client.WithLimit(context.Background(), "timeouts.read", 10*time.Second)
			defer cancel()
			start := time.Now()
			for range 5 {
				if err := c.CancelJob(ctx, testWS, "j"); err != nil {
					t.Fatal(err)
				}
			}
			if took := time.Since(start); took > 2*time.Second || rec.Count() != 5 {
				t.Errorf("5 requests took %v, %d sent", took, rec.Count())
			}
		})
	}
}

func TestPacing_sharedByServiceAndKey(t *testing.T) {
	rec, url := clienttest.HoldingServer(t)
	a := testclient.New(t, url)
	b := testclient.New(t, url)
	other := testclient.New(t, url, func(c *client.Config) { c.APIKey = "key-456" })
	if shared := pacing.For(url+"/", "key-123"); shared != pacing.For(strings.TrimSuffix(url, "/")+"/", "key-123") || shared == pacing.For(url+"/", "key-456") {
		t.Fatal("clients of the same service and key do not share one pacer, or of another key do")
	}
	if err := a.CancelJob(context.Background(), testWS, "j"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := client.WithLimit(context.Background(), "timeouts.read", time.Second)
	defer cancel()
	if err := b.CancelJob(ctx, testWS, "j"); !errors.As(err, new(*client.RateLimitError)) || rec.Count() != 1 {
		t.Errorf("the other client of the key: %d requests, %v", rec.Count(), err)
	}
	if err := other.CancelJob(ctx, testWS, "j"); err != nil || rec.Count() != 2 {
		t.Errorf("a client of another key: %d requests, %v", rec.Count(), err)
	}
}

// TestPacing_learnsFromRefusals: bare 429s beyond 20 a second teach a rate.
func TestPacing_learnsFromRefusals(t *testing.T) {
	q, url := newQuotaServer(t, 2, 100*time.Millisecond, nil)
	c := testclient.New(t, url, func(c *client.Config) { c.MaxConcurrentRequests = 4; c.MaxRetries = client.NoRetryLimit })
	start := time.Now()
	stop := start.Add(2500 * time.Millisecond)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for time.Now().Before(stop) {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_ = c.CancelJob(ctx, testWS, "j")
				cancel()
			}
		})
	}
	wg.Wait()
	q.mu.Lock()
	defer q.mu.Unlock()
	var served, refused int
	for _, h := range q.hits {
		if h.at.Sub(start) < time.Second {
			continue
		}
		if h.refused {
			refused++
		} else {
			served++
		}
	}
	if served < 5 || float64(refused) > 0.5*float64(served+refused) {
		t.Errorf("after the first second: %d served, %d refused", served, refused)
	}
}

// bucketServer is a token bucket shared by every key, as the sandbox keeps one.
type bucketServer struct {
	served, refused atomic.Int64
	mu              sync.Mutex
	tokens          float64
	last            time.Time
}

func newBucketServer(t *testing.T, rate int, tell func(h http.Header, limit, left, reset int)) (*bucketServer, string) {
	t.Helper()
	b := &bucketServer{tokens: float64(rate)}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		b.mu.Lock()
		now := time.Now()
		if !b.last.IsZero() {
			b.tokens = min(float64(rate), b.tokens+float64(rate)*now.Sub(b.last).Seconds())
		}
		b.last = now
		ok := b.tokens >= 1
		if ok {
			b.tokens--
		}
		short := float64(rate) - b.tokens
		if b.tokens < 1 {
			short = 1 - b.tokens
		}
		left, reset := int(b.tokens), max(int(math.Ceil(short/float64(rate))), 1)
		b.mu.Unlock()
		tell(w.Header(), rate, left, reset)
		if !ok {
			b.refused.Add(1)
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		b.served.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(ts.Close)
	return b, ts.URL
}

var bucketStyles = map[string]func(h http.Header, limit, left, reset int){
	"RateLimit": func(h http.Header, limit, left, reset int) {
		h.Set("RateLimit-Policy", fmt.Sprintf(`"default";q=%d;w=1`, limit))
		h.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%d`, left, reset))
	},
	"X-RateLimit-Remaining": func(h http.Header, limit, left, reset int) {
		h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(left))
		h.Set("X-RateLimit-Reset", strconv.Itoa(reset))
	},
}

func sendFor(c *client.Client, gap time.Duration, stop time.Time) {
	for time.Now().Before(stop) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = c.CancelJob(ctx, testWS, "j")
		cancel()
		time.Sleep(gap)
	}
}

// TestPacing_smoothsToTheRate: counting the refill at the published rate
// gets close to 20 a second of 20, none refused.
func TestPacing_smoothsToTheRate(t *testing.T) {
	const rate, span = 20, 3 * time.Second
	for name, tell := range bucketStyles {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, url := newBucketServer(t, rate, tell)
			c := testclient.New(t, url)
			sendFor(c, 33*time.Millisecond, time.Now().Add(span))
			// 10 at once, then 20 a second: 60 in 3 s; bursts and resets: 40.
			if n, r := b.served.Load(), b.refused.Load(); n < 50 || r != 0 {
				t.Errorf("in %v at %d a second: %d served, %d refused", span, rate, n, r)
			}
		})
	}
}

// TestPacing_sharesWithOtherProcesses: four processes of one key cut their
// shares and few are refused.
func TestPacing_sharesWithOtherProcesses(t *testing.T) {
	const rate, span = 20, 4 * time.Second
	for name, tell := range bucketStyles {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, url := newBucketServer(t, rate, tell)
			stop := time.Now().Add(span)
			var wg sync.WaitGroup
			for i := range 4 {
				// Another key is another pacer, as another process has.
				c := testclient.New(t, url, func(c *client.Config) { c.APIKey = fmt.Sprintf("key-%d", i); c.MaxRetries = client.NoRetryLimit })
				wg.Go(func() { sendFor(c, 20*time.Millisecond, stop) })
			}
			wg.Wait()
			n, r := b.served.Load(), b.refused.Load()
			if float64(r) > 0.08*float64(n+r) || n < 50 {
				t.Errorf("in %v at %d a second: %d served, %d refused", span, rate, n, r)
			}
		})
	}
}

// TestPacing_shareCut: a 429, or a count falling faster than this process
// spends it, cuts the share; it rises back with time.
func TestPacing_shareCut(t *testing.T) {
	start := time.Now()
	h := func(left int) http.Header {
		return http.Header{"Ratelimit-Policy": {`"default";q=20;w=1`}, "Ratelimit": {fmt.Sprintf(`"default";r=%d;t=1`, left)}}
	}
	p := pacing.NewPacer()
	send := func(now time.Time) uint64 {
		seq, _ := p.Take(now, true)
		return seq
	}
	s1, s2 := send(start), send(start)
	p.Observe(s1, start, start, http.StatusTooManyRequests, h(0))
	if got := p.ShareNow(start); got != pacing.ShareRefused {
		t.Fatalf("after a 429: share %v, want %v", got, pacing.ShareRefused)
	}
	p.Observe(s2, start, start, http.StatusTooManyRequests, h(0))
	if got := p.ShareNow(start); got != pacing.ShareRefused {
		t.Fatalf("after a second 429 to a request sent before the cut: share %v", got)
	}
	if got := p.ShareNow(start.Add(2 * time.Second)); math.Abs(got-(pacing.ShareRefused+2*pacing.ShareRise)) > 1e-9 {
		t.Errorf("2 s after the cut: share %v", got)
	}

	// Alone, spending one every 50 ms of 20 a second, the count holds.
	p = pacing.NewPacer()
	now := start
	for range 10 {
		seq := send(now)
		p.Observe(seq, now, now, http.StatusNoContent, h(10))
		now = now.Add(50 * time.Millisecond)
	}
	if got := p.ShareNow(now); got != 1 {
		t.Fatalf("alone: share %v", got)
	}
	// Others spend 10 in 100 ms besides.
	seq := send(now)
	now = now.Add(100 * time.Millisecond)
	p.Observe(seq, now, now, http.StatusNoContent, h(2))
	if got := p.ShareNow(now); got != pacing.ShareCut {
		t.Errorf("the count fell by 8 in 100 ms, 1 spent: share %v, want %v", got, pacing.ShareCut)
	}
	if hr := p.HeaderRate(now); math.Abs(hr-20*pacing.ShareCut) > 1e-9 {
		t.Errorf("paced at %v a second, want %v", hr, 20*pacing.ShareCut)
	}
}

func servedThenRefused(p *pacing.Pacer, n int) time.Time {
	at := time.Now()
	for range n {
		seq, _ := p.Take(at, true)
		p.Observe(seq, at, at, http.StatusNoContent, nil)
		at = at.Add(50 * time.Millisecond)
	}
	seq, _ := p.Take(at, true)
	p.Observe(seq, at, at, http.StatusTooManyRequests, nil)
	return at
}

// TestPacing_burstIsNoRate: the rate learned is what was served over a second.
func TestPacing_burstIsNoRate(t *testing.T) {
	p := pacing.For("http://burst.test", "key")
	now := servedThenRefused(p, 6)
	if got := p.Rate(now); got != 6*pacing.FirstCut {
		t.Errorf("6 served in 300 ms, then a 429: %v a second, want %v", got, 6*pacing.FirstCut)
	}
}

func TestPacing_refusalsRiseSlowly(t *testing.T) {
	p := pacing.For("http://rise.test", "key")
	now := servedThenRefused(p, 20)
	learned := 20 * pacing.FirstCut
	if got := p.Rate(now); got != learned {
		t.Fatalf("after 20 served in a second and a 429: %v a second, want %v", got, learned)
	}
	if got, want := p.Rate(now.Add(time.Second)), learned+learned/20; math.Abs(got-want) > 1e-9 {
		t.Errorf("a second later: %v a second, want %v", got, want)
	}
	slow := pacing.For("http://rise-slow.test", "key")
	now = servedThenRefused(slow, 2)
	if got, want := slow.Rate(now.Add(time.Second)), 2*pacing.FirstCut+pacing.MinStep; math.Abs(got-want) > 1e-9 {
		t.Errorf("learned at %v a second, a second later: %v, want %v", 2*pacing.FirstCut, got, want)
	}
}

// TestPacing_cutRegainsAtTheFirstStep: a rate cut again regains a twentieth
// of the first rate learned a second, as fast as a process of the key that
// was never cut, not a twentieth of its own.
func TestPacing_cutRegainsAtTheFirstStep(t *testing.T) {
	p := pacing.For("http://cut-rise.test", "key")
	now := servedThenRefused(p, 20)
	first := 20 * pacing.FirstCut
	later := now.Add(100 * time.Millisecond)
	seq, _ := p.Take(later, true)
	p.Observe(seq, later, later, http.StatusTooManyRequests, nil)
	cut := p.Rate(later)
	if cut >= first*0.75 {
		t.Fatalf("a second 429: %v a second, want under half of %v", cut, first)
	}
	if got, want := p.Rate(later.Add(time.Second)), cut+first/20; math.Abs(got-want) > 1e-9 {
		t.Errorf("a second after the cut to %v: %v a second, want %v", cut, got, want)
	}
}

// TestPacing_keptThroughAWait: a process none of whose requests waited for a
// few seconds (its name checks waiting on each other) keeps its pace; one
// quiet for longer drops it.
func TestPacing_keptThroughAWait(t *testing.T) {
	p := pacing.For("http://kept.test", "key")
	now := servedThenRefused(p, 20)
	if got := p.Rate(now.Add(3 * time.Second)); got == 0 {
		t.Error("dropped after 3 s without a wait")
	}
	if got := p.Rate(now.Add(6 * time.Second)); got != 0 {
		t.Errorf("%v a second after 6 s without a wait, want none", got)
	}
}

// simulate returns the requests served and refused in the last 5 of 10
// simulated seconds.
func simulate(p *pacing.Pacer, start time.Time, answer func(at time.Time) int) (served, refused int) {
	end := start.Add(10 * time.Second)
	for at := start; at.Before(end); at = at.Add(20 * time.Millisecond) {
		wait, _, _, _ := p.Reserve(at, end.Add(time.Hour), false)
		at = at.Add(wait)
		seq, _ := p.Take(at, true)
		status := answer(at)
		p.Observe(seq, at, at, status, nil)
		if at.Sub(start) >= 5*time.Second {
			if status == http.StatusNoContent {
				served++
			} else {
				refused++
			}
		}
	}
	return served, refused
}

// TestPacing_troubleIsNoRate: 429s amid 503s do not slow the pacing.
func TestPacing_troubleIsNoRate(t *testing.T) {
	n := 0
	served, refused := simulate(pacing.For("http://trouble.test", "key"), time.Now(), func(time.Time) int {
		n++
		switch n % 10 {
		case 3, 8:
			return http.StatusTooManyRequests
		case 5, 0:
			return http.StatusServiceUnavailable
		}
		return http.StatusNoContent
	})
	if sent := served + refused; sent < 240 {
		t.Errorf("%d requests sent in 5 s at up to 50 a second, 1 in 5 answered 429 and 1 in 5 503: the pacing slowed for a service in trouble", sent)
	}
}

func TestPacing_limitStillSlows(t *testing.T) {
	start := time.Now()
	tokens, last := 20.0, start
	served, refused := simulate(pacing.For("http://limit.test", "key"), start, func(at time.Time) int {
		tokens = min(tokens+20*at.Sub(last).Seconds(), 20)
		last = at
		if tokens < 1 {
			return http.StatusTooManyRequests
		}
		tokens--
		return http.StatusNoContent
	})
	if served < 60 || refused*10 > served+refused {
		t.Errorf("in the last 5 s behind 20 a second: %d served, %d refused", served, refused)
	}
}

// TestPacing_holdingTellsOfARecentWait: Holding is true only within its span
// of a request told to wait its turn.
func TestPacing_holdingTellsOfARecentWait(t *testing.T) {
	t.Parallel()
	p := pacing.For("https://holding.example.com", "key")
	now := time.Now()
	if p.Holding(now, time.Second) {
		t.Fatal("holding before any request")
	}
	seq, _ := p.Take(now, false)
	h := http.Header{}
	bucketStyles["X-RateLimit-Remaining"](h, 10, 0, 5)
	p.Observe(seq, now, now, http.StatusOK, h)
	if wait, _, _, _ := p.Reserve(now, now.Add(time.Minute), false); wait <= 0 {
		t.Fatalf("no request left in the window, and no wait (%v)", wait)
	}
	if !p.Holding(now.Add(500*time.Millisecond), time.Second) {
		t.Error("not holding half a second after a wait")
	}
	if p.Holding(now.Add(1500*time.Millisecond), time.Second) {
		t.Error("still holding a second and a half after a wait, with a span of one second")
	}
}

// TestPacing_blindWritesSpaced: a pacer told nothing of the limit spaces the
// writes of its first seconds by the time an answer takes, within bounds,
// and leaves reads, and writes once a limit is published, side by side.
func TestPacing_blindWritesSpaced(t *testing.T) {
	p := pacing.NewPacer()
	now := time.Now()
	far := now.Add(time.Hour)
	if wait, _, _, _ := p.Reserve(now, far, true); wait != 0 {
		t.Fatalf("the first write waits %v", wait)
	}
	if wait, _, _, _ := p.Reserve(now, far, false); wait != 0 {
		t.Errorf("a read waits %v", wait)
	}
	if wait, _, _, _ := p.Reserve(now, far, true); wait != pacing.MinGap {
		t.Errorf("the second write at once waits %v, want %v", wait, pacing.MinGap)
	}
	seq, _ := p.Take(now, true)
	p.Observe(seq, now, now.Add(time.Second), http.StatusNoContent, nil)
	if wait, _, _, _ := p.Reserve(now, far, true); wait != 2*pacing.MinGap {
		t.Errorf("the third write waits %v, want %v", wait, 2*pacing.MinGap)
	}
	if wait, _, _, _ := p.Reserve(now, far, true); wait != 2*pacing.MinGap+pacing.MaxGap {
		t.Errorf("after an answer of a second, the fourth write waits %v, want %v more", wait, pacing.MaxGap)
	}
	if wait, _, _, _ := p.Reserve(now.Add(pacing.BlindSpan), far, true); wait != 0 {
		t.Errorf("a write after the first %v waits %v", pacing.BlindSpan, wait)
	}

	told := pacing.NewPacer()
	h := http.Header{}
	h.Set("X-RateLimit-Limit", "100")
	h.Set("X-RateLimit-Remaining", "99")
	h.Set("X-RateLimit-Reset", "1")
	seq, _ = told.Take(now, true)
	told.Observe(seq, now, now, http.StatusNoContent, h)
	for i := range 3 {
		if wait, _, _, _ := told.Reserve(now, far, true); wait != 0 {
			t.Errorf("write %d under a published limit waits %v", i+1, wait)
		}
	}
}

// TestPacing_blindBurstLearnsFromItsFirstRefusal: writes sent at once by a
// client that knows nothing of the limit: the first refused teaches the
// pacer before the others go, where all beyond the quota would be refused.
func TestPacing_blindBurstLearnsFromItsFirstRefusal(t *testing.T) {
	q, url := newQuotaServer(t, 4, time.Second, nil)
	c := testclient.New(t, url, func(c *client.Config) { c.MaxConcurrentRequests = 8; c.MaxRetries = client.NoRetryLimit })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 2 {
		if err := c.CancelJob(ctx, testWS, fmt.Sprintf("first-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() { _ = c.CancelJob(ctx, testWS, fmt.Sprintf("burst-%d", i)) })
	}
	wg.Wait()
	q.mu.Lock()
	defer q.mu.Unlock()
	refused := map[string]bool{}
	for _, h := range q.hits {
		if h.refused && h.at.Sub(start) < 300*time.Millisecond {
			refused[h.path] = true
		}
	}
	// Sent at once, the 6 beyond the quota are all refused; spaced, the
	// first refused teaches, unless the machine is slow enough for the next
	// few to leave before its answer is read.
	if len(refused) > 3 {
		t.Errorf("%d of the 8 writes refused in their first 300 ms, want at most 3 (6 are beyond the quota)", len(refused))
	}
}
