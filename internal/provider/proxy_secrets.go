package provider

import (
	"os"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// proxySecrets are the proxy variables' credentials, which the logs mask.
func proxySecrets() []string {
	var out []string
	for _, name := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		out = append(out, client.ProxyCredentials(os.Getenv(name))...)
	}
	return out
}
