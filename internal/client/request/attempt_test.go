package request_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/clienttest/testclient"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/request"
)

const connectorJSON = `{"_id": "c-1", "_created_at": "2026-01-05T10:00:00.000Z", "_updated_at": "2026-01-05T10:00:00.000Z", "name": "n", "connector_name": "customer_service", "configuration": {"url": "https://a.example.com", "agent_email": "a@example.com"}, "streams": ["tickets"]}`

// cutAnswer answers 2xx with a connector, cut short in one of the ways a
// connection ends mid-body.
func cutAnswer(t *testing.T, w http.ResponseWriter, status int, how string) {
	t.Helper()
	body := connectorJSON
	half := body[:len(body)/2]
	switch how {
	case "content-length not met", "reset":
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", status, http.StatusText(status), len(body), half)
		_ = buf.Flush()
		if tc, ok := conn.(*net.TCPConn); ok && how == "reset" {
			_ = tc.SetLinger(0)
		}
		_ = conn.Close()
	case "chunked, closed":
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", status, http.StatusText(status), len(half), half)
		_ = buf.Flush()
		_ = conn.Close()
	case "JSON cut off":
		w.WriteHeader(status)
		_, _ = io.WriteString(w, half)
	default:
		t.Fatalf("no way %q", how)
	}
}

var cutWays = []string{"content-length not met", "reset", "chunked, closed", "JSON cut off"}

// TestClient_cutBodyOfAReadIsRetried: a read whose answer ends before its
// body does is retried as a 502 is, whichever way the body was cut.
func TestClient_cutBodyOfAReadIsRetried(t *testing.T) {
	t.Parallel()
	for _, how := range cutWays {
		t.Run(how, func(t *testing.T) {
			var rec clienttest.Recorder
			ts := rec.Server(t, func(n int, w http.ResponseWriter, _ *http.Request) {
				if n <= 2 {
					cutAnswer(t, w, 200, how)
					return
				}
				_, _ = io.WriteString(w, connectorJSON)
			})
			got, err := testclient.New(t, ts.URL).GetConnector(context.Background(), testWS, "c-1")
			if err != nil || got.Name != "n" || rec.Count() != 3 {
				t.Fatalf("%d requests, err %v; want success at the third", rec.Count(), err)
			}
			// Cut every time, it fails as a 502 would, at max_retries.
			var always clienttest.Recorder
			ts = always.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { cutAnswer(t, w, 200, how) })
			_, err = testclient.New(t, ts.URL).GetConnector(context.Background(), testWS, "c-1")
			var e *client.Error
			if !errors.As(err, &e) || e.StatusCode != 200 || !e.Capped || always.Count() != 4 || !strings.Contains(err.Error(), "the answer was cut short") {
				t.Errorf("cut every time: %d requests, %v", always.Count(), err)
			}
		})
	}
}

// TestClient_cutBodyOfAWrite: a create whose answer is cut short may have
// been carried out: it is a lost answer, not sent again. An update, which
// may be sent again, is retried.
func TestClient_cutBodyOfAWrite(t *testing.T) {
	t.Parallel()
	for _, how := range cutWays {
		t.Run(how, func(t *testing.T) {
			var rec clienttest.Recorder
			ts := rec.Server(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					cutAnswer(t, w, map[string]int{"POST": 201, "PATCH": 200}[r.Method], how)
					return
				}
				_, _ = io.WriteString(w, connectorJSON)
			})
			c := testclient.New(t, ts.URL)
			_, err := c.CreateConnector(context.Background(), testWS, client.ConnectorSpec{Name: "n", Token: "t"})
			var e *client.Error
			if !errors.As(err, &e) || e.StatusCode != 201 || !e.MayHaveTakenEffect() || rec.Count() != 1 || !strings.Contains(err.Error(), "the answer was cut short") {
				t.Errorf("create cut short: %d requests, %v; want a lost answer after one", rec.Count(), err)
			}

			var upd clienttest.Recorder
			ts = upd.Server(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					cutAnswer(t, w, 200, how)
					return
				}
				_, _ = io.WriteString(w, connectorJSON)
			})
			if _, err := testclient.New(t, ts.URL).UpdateConnector(context.Background(), testWS, "c-1", client.ConnectorUpdate{Name: new("n")}); err != nil || upd.Count() != 2 {
				t.Errorf("update cut short: %d requests, %v; want success at the second", upd.Count(), err)
			}
		})
	}
}

// TestClient_gatewayPagesQuotedBriefly: a page that a load balancer answers
// instead of the service is quoted by its title, or its first line of
// text; a body that is not JSON gives its first line.
func TestClient_gatewayPagesQuotedBriefly(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, contentType, body, message string
	}{
		{"nginx", "text/html", "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n", "502 Bad Gateway"},
		{"AWS ALB", "text/html", "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n</body>\r\n</html>\r\n", "504 Gateway Time-out"},
		{"Cloudflare", "text/html; charset=UTF-8", `<!DOCTYPE html>
<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->
<html class="no-js" lang="en-US">
<head>
<title>api.example.com | 502: Bad gateway</title>
<meta charset="UTF-8" />
<style>body{margin:0}</style>
<script>(function(){window._cf_chl_opt={};})();</script>
</head>
<body>
<div id="cf-wrapper"><h1>Bad gateway <span>Error code 502</span></h1>
<p>Visit <a href="https://www.cloudflare.com/5xx-error-landing">cloudflare.com</a> for more information.</p></div>
</body>
</html>`, "api.example.com | 502: Bad gateway"},
		{"a page without a title, and no Content-Type", "", "<!DOCTYPE html><html><head><style>h1{}</style></head><body>\n<h1>Service Unavailable</h1>\n<p>The server is temporarily unable to service your request.</p></body></html>", "Service Unavailable"},
		{"text of several lines", "text/plain", "\n  upstream connect error or disconnect/reset before headers\nreset reason: connection termination\n", "upstream connect error or disconnect/reset before headers"},
		{"JSON detail of several lines", "application/json", `{"detail": "first\nsecond"}`, "first second"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rec clienttest.Recorder
			ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				if c.contentType != "" {
					w.Header().Set("Content-Type", c.contentType)
				} else {
					w.Header()["Content-Type"] = nil
				}
				w.WriteHeader(http.StatusBadGateway)
				_, _ = io.WriteString(w, c.body)
			})
			err := testclient.New(t, ts.URL, func(cfg *client.Config) { cfg.MaxRetries = 0 }).CancelJob(context.Background(), testWS, "j1")
			var e *client.Error
			if !errors.As(err, &e) || e.StatusCode != http.StatusBadGateway || e.Message != c.message {
				t.Errorf("message %q, want %q (%v)", e.Message, c.message, err)
			}
		})
	}
}

// TestClient_keyRefusedSendsNoMore: once the service refuses the API key,
// the client sends nothing more with it: each later call fails at once,
// with the first refusal's status and message, and names its own request.
func TestClient_keyRefusedSendsNoMore(t *testing.T) {
	t.Parallel()
	var rec clienttest.Recorder
	ts := rec.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"detail": "Invalid API key."}`)
	})
	c := testclient.New(t, ts.URL)
	_, err := c.GetConnector(context.Background(), testWS, "c-1")
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 401 || e.KeyRefused || !e.Sent {
		t.Fatalf("the first refusal: %#v", err)
	}
	calls := []struct {
		op, method, path string
		call             func() error
	}{
		{"cancel job", "DELETE", "/developers/workspaces/" + testWS + "/jobs/j1/cancel/", func() error { return c.CancelJob(context.Background(), testWS, "j1") }},
		{"trigger job", "POST", "/developers/workspaces/" + testWS + "/jobs/j2/run/", func() error { return c.TriggerJob(context.Background(), testWS, "j2", false) }},
		{"list jobs", "GET", "/developers/workspaces/" + testWS + "/jobs/", func() error {
			_, err := listJobs(c, context.Background())
			return err
		}},
		{"create connector", "POST", "/developers/workspaces/" + testWS + "/connectors/", func() error {
			_, err := c.CreateConnector(context.Background(), testWS, client.ConnectorSpec{Name: "n"})
			return err
		}},
	}
	for i := range 200 {
		call := calls[i%len(calls)]
		err := call.call()
		if !errors.As(err, &e) || !e.KeyRefused || e.StatusCode != 401 || e.Message != "Invalid API key." || e.Sent || e.MayHaveTakenEffect() ||
			e.Operation != call.op || e.Method != call.method || e.Path != call.path {
			t.Fatalf("call %d (%s): %#v", i, call.op, err)
		}
	}
	if n := rec.Count(); n != 1 {
		t.Errorf("%d requests sent with a refused key, want the first alone", n)
	}
}

// TestClient_redirectsRefused: a 3xx, to another port, is an error naming the
// status and the target, for a create and a read alike; nothing reaches the
// target, nothing is retried, and the key is not taken for refused.
func TestClient_redirectsRefused(t *testing.T) {
	t.Parallel()
	var target clienttest.Recorder
	elsewhere := target.Server(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) })
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		var front clienttest.Recorder
		ts := front.Server(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", strings.Replace(elsewhere.URL, "://", "://u:proxy-pass@", 1)+r.URL.Path+"?token=q-secret")
			w.WriteHeader(status)
		})
		cl := testclient.New(t, ts.URL)
		_, createErr := cl.CreateConnector(context.Background(), testWS, client.ConnectorSpec{Name: "n", Token: "tok-secret"})
		_, readErr := cl.GetConnector(context.Background(), testWS, "c-1")
		for _, err := range []error{createErr, readErr} {
			var re *client.RedirectError
			if !errors.As(err, &re) || re.Status != status || client.StatusCode(err) != status || client.MayHaveTakenEffect(err) {
				t.Fatalf("HTTP %d: %v, want a RedirectError that took no effect", status, err)
			}
			want := elsewhere.URL + "/developers/workspaces/" + testWS + "/connectors/"
			if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "proxy-pass") {
				t.Errorf("HTTP %d: %v, want the target %s without credentials or query", status, err, want)
			}
		}
		if front.Count() != 2 {
			t.Errorf("HTTP %d: the front saw %d requests, want 2: no retry", status, front.Count())
		}
		if _, err := cl.GetConnector(context.Background(), testWS, "c-1"); !errors.As(err, new(*client.RedirectError)) {
			t.Errorf("HTTP %d: a later request: %v", status, err)
		}
	}
	if target.Count() != 0 {
		t.Errorf("%d requests reached the redirect's target", target.Count())
	}
}

// TestClient_answersChecked: a read or an update answered with another _id
// is an UnexpectedAnswerError quoting both; a create answered with another
// connector, a duplicated key, trailing bytes or an HTML page is an
// unreadable success (a lost answer), quoting what came.
func TestClient_answersChecked(t *testing.T) {
	t.Parallel()
	other := strings.Replace(connectorJSON, `"_id": "c-1"`, `"_id": "c-9"`, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, other) }))
	defer ts.Close()
	cl := testclient.New(t, ts.URL)
	_, readErr := cl.GetConnector(context.Background(), testWS, "c-1")
	name := "m"
	_, updateErr := cl.UpdateConnector(context.Background(), testWS, "c-1", client.ConnectorUpdate{Name: &name})
	for _, err := range []error{readErr, updateErr} {
		var ua *client.UnexpectedAnswerError
		if !errors.As(err, &ua) || !strings.Contains(err.Error(), `connector "c-9" to a request for connector "c-1"`) {
			t.Errorf("another _id: %v", err)
		}
	}
	// IDs are one in any letter case: an ID asked in upper case is answered.
	if _, err := testclient.New(t, ts.URL).GetConnector(context.Background(), testWS, "C-9"); err != nil {
		t.Errorf("C-9 answered as c-9: %v", err)
	}

	for _, c := range []struct{ name, contentType, body, want string }{
		{"another name", "application/json", connectorJSON, `connector "c-1" named "n" of kind "customer_service" to a request for the create of a customer_service connector named "sent"`},
		{"no _id", "application/json", strings.Replace(connectorJSON, `"_id": "c-1", `, "", 1), `connector "" named`},
		{"duplicated _id", "application/json", strings.Replace(connectorJSON, `"name": "n"`, `"name": "sent", "_id": "c-9"`, 1), `holds the key "_id" twice`},
		{"trailing bytes", "application/json", strings.Replace(connectorJSON, `"name": "n"`, `"name": "sent"`, 1) + ` {"_id": "c-9"}`, `bytes follow its JSON: "{\"_id\": \"c-9\"}"`},
		{"HTML", "text/html; charset=utf-8", `<html><head><title>Login - Acme SSO</title></head><body>tok-secret</body></html>`, `it is text/html: "Login - Acme SSO"`},
		{"not JSON", "", "Service upgraded.\nSee you soon tok-secret", `"Service upgraded."`},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if c.contentType != "" {
				w.Header().Set("Content-Type", c.contentType)
			}
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, c.body)
		}))
		got, err := testclient.New(t, ts.URL).CreateConnector(context.Background(), testWS, client.ConnectorSpec{Name: "sent", Token: "tok-secret"})
		ts.Close()
		if got != nil || !client.MayHaveTakenEffect(err) || client.StatusCode(err) != http.StatusCreated || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "tok-secret") {
			t.Errorf("%s: %v, %v; want a lost answer saying %s", c.name, got, err, c.want)
		}
	}
}

func TestDuplicateKey(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]}`:          "",
		`{"a": 1, "b": 2, "a": 3}`:                                    "a",
		`{"results": [{"_id": "x", "n": [1, {"k": 1}], "_id": "y"}]}`: "_id",
		`[{"k": {}, "k": []}]`:                                        "k",
		`{"a": "a", "b": "a"}`:                                        "",
	} {
		if got, _ := request.DuplicateKey([]byte(body)); got != want {
			t.Errorf("%s: %q, want %q", body, got, want)
		}
	}
}
