package provider

import (
	"slices"
	"testing"
)

// TestProxySecrets_everyProxyVariable: the password of each proxy variable,
// in either letter case, is among the secrets the logs mask, as written and
// decoded; a proxy without a password adds none.
func TestProxySecrets_everyProxyVariable(t *testing.T) {
	t.Parallel()
	env := proxyEnv("", "")
	if got := proxySecrets(env.getenv); len(got) != 0 {
		t.Errorf("no proxy: secrets %q, want none", got)
	}
	env.set("HTTPS_PROXY", "http://ci:upper-pw@proxy.example.com:3128")
	env.set("https_proxy", "http://ci:lower%2Fpw@proxy.example.com:3128")
	env.set("HTTP_PROXY", "http://ci:plain-pw@proxy.example.com:3128")
	env.set("http_proxy", "http://nobody@proxy.example.com:3128")
	got := proxySecrets(env.getenv)
	for _, want := range []string{"upper-pw", "lower%2Fpw", "lower/pw", "plain-pw"} {
		if !slices.Contains(got, want) {
			t.Errorf("secrets %q lack %q", got, want)
		}
	}
	for _, s := range got {
		if s == "nobody" || s == "" {
			t.Errorf("secrets %q hold %q, which is no password", got, s)
		}
	}
}
