package provider

import (
	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// proxySecrets are the credentials of the proxy variables getenv reads, which the logs mask.
func proxySecrets(getenv func(string) string) []string {
	var out []string
	for _, name := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		out = append(out, client.ProxyCredentials(getenv(name))...)
	}
	return out
}
