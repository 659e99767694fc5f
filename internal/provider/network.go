package provider

// The diagnostics of a request that never reached the service: a certificate,
// a proxy, a host out of reach or the wrong scheme, each naming the setting
// that fixes it.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

// addConnectError names why no request reached the service and the setting that
// fixes it; it tells whether e was such a failure.
func addConnectError(diags *diag.Diagnostics, e *client.Error) bool {
	var ce *client.ConnectError
	if !errors.As(e, &ce) {
		return false
	}
	cause := fmt.Sprintf("No request reached the service (%s %s): %s", e.Method, e.Path, ce)
	switch ce.Failure {
	case client.UntrustedCertificate, client.CertificateNameMismatch, client.CertificateExpired:
		addCertificateError(diags, ce, cause)
	case client.ProxyAuthRequired, client.ProxyRefused, client.ProxyNotAnswering:
		addProxyError(diags, e, ce, cause)
	case client.UnknownHost, client.Unreachable, client.NoAnswer:
		addUnreachableError(diags, e, ce, cause)
	case client.ServiceSpeaksHTTP, client.ServiceSpeaksTLS:
		addSchemeError(diags, ce, cause)
	default:
		return false
	}
	return true
}

// addCertificateError: the service's certificate is not one this machine
// trusts for base_url's host now.
func addCertificateError(diags *diag.Diagnostics, ce *client.ConnectError, cause string) {
	switch ce.Failure {
	case client.UntrustedCertificate:
		diags.AddError("Untrusted Service Certificate", fmt.Sprintf(
			"%s. "+
				"If the service uses a certificate from your organisation's own CA, or a proxy re-signs HTTPS, trust that CA: "+
				"set ca_certificate in the provider configuration to its PEM, such as ca_certificate = file(\"ca.pem\"), or %s to the PEM itself. "+
				"On Linux, SSL_CERT_FILE naming a file of the system's roots and that CA works too.", cause, providerenv.CACertificate))
	case client.CertificateNameMismatch:
		diags.AddError("Service Certificate Name Mismatch", fmt.Sprintf(
			"%s. Set base_url to a host name the certificate names, "+
				"or have the service's certificate reissued for the host base_url names. ca_certificate cannot fix this.", cause))
	case client.CertificateExpired:
		diags.AddError("Service Certificate Not Valid Now", fmt.Sprintf(
			"%s. Its operators must renew it; if it has not expired, set this machine's clock right. "+
				"ca_certificate cannot fix this.", cause))
	}
}

// addProxyError: the proxy of HTTPS_PROXY refused the provider or the tunnel.
func addProxyError(diags *diag.Diagnostics, e *client.Error, ce *client.ConnectError, cause string) {
	switch ce.Failure {
	case client.ProxyAuthRequired:
		fix := "Give the proxy's user name and password in HTTPS_PROXY, as http://user:password@proxy.example.com:3128 (percent-encode special characters)"
		if ce.ProxyCredentials {
			fix = "Check the user name and password in HTTPS_PROXY (percent-encode special characters, such as %40 for @)"
		}
		diags.AddError("Proxy Authentication Required", fmt.Sprintf(
			"%s. %s, or name the service's host in NO_PROXY if it needs no proxy. The credentials are never shown.", cause, fix))
	case client.ProxyNotAnswering:
		diags.AddError("Proxy Not Answering", fmt.Sprintf(
			"%s%s. The proxy that HTTPS_PROXY (or https_proxy) names takes connections but does not open tunnels: "+
				"check that it is a running, working proxy, or name the service's host in NO_PROXY to connect without one. The credentials are never shown.%s",
			cause, e.Retries(), stoppedRetrying(ce)))
	case client.ProxyRefused:
		if ce.ProxyStatus == 0 {
			diags.AddError("Proxy Unreachable", fmt.Sprintf(
				"%s%s. HTTPS_PROXY (or https_proxy) names the proxy the service is reached through: "+
					"check that it names a running proxy, with http:// unless the proxy itself speaks TLS, or name the service's host in NO_PROXY to connect without one.", cause, e.Retries()))
			break
		}
		diags.AddError("Proxy Refused the Tunnel", fmt.Sprintf(
			"%s. The proxy runs, but could not reach the service's host or does not allow it: "+
				"check the host and port in base_url (or %s), and ask the proxy's operators to allow them if they are right; "+
				"a host that NO_PROXY names is reached without the proxy.", cause, providerenv.BaseURL))
	}
}

// addUnreachableError: base_url's host is unknown, out of reach or silent.
func addUnreachableError(diags *diag.Diagnostics, e *client.Error, ce *client.ConnectError, cause string) {
	switch ce.Failure {
	case client.UnknownHost:
		diags.AddError("Unknown Service Host", fmt.Sprintf(
			"%s. Check the host in base_url (or %s). "+
				"If your network reaches the service only through a proxy, set HTTPS_PROXY to it; a host that NO_PROXY names is reached without the proxy.", cause, providerenv.BaseURL))
	case client.Unreachable:
		diags.AddError("Service Unreachable", fmt.Sprintf(
			"%s%s. Check the host and port in base_url (or %s), that the service runs and listens there, "+
				"and that no firewall, VPN or proxy setting (HTTPS_PROXY, NO_PROXY) keeps this machine from it.%s", cause, e.Retries(), providerenv.BaseURL, stoppedRetrying(ce)))
	case client.NoAnswer:
		// The service may have received the request: "no request reached it" would say more than is known.
		what := "Something accepts connections at base_url (or %s) but does not answer"
		if ce.Stalled != 0 {
			what = "The service at base_url (or %s) begins its answers but does not finish them"
		}
		diags.AddError("Service Not Answering", fmt.Sprintf(
			"No answer from the service to %s %s: %s%s. "+what+": "+
				"check that the service there is up and that no gateway in front of it hangs; if it is only slow, raise request_timeout.%s",
			e.Method, e.Path, ce, e.Retries(), providerenv.BaseURL, stoppedRetrying(ce)))
	}
}

// addSchemeError: base_url's scheme is not the one the service speaks.
func addSchemeError(diags *diag.Diagnostics, ce *client.ConnectError, cause string) {
	switch ce.Failure {
	case client.ServiceSpeaksHTTP:
		fix := fmt.Sprintf("Set base_url (or %s) to the service's https:// address, on the port where it speaks TLS: "+
			"the provider takes http:// only on a loopback host (127.x.x.x, ::1, localhost), so a service that speaks plain http alone needs TLS in front of it.", providerenv.BaseURL)
		if validate.BaseURL("http://"+ce.Host) == nil {
			fix = fmt.Sprintf("If the service speaks plain http, set base_url (or %s) to http://%s, which the provider takes on a loopback host; "+
				"else to the port where it speaks TLS.", providerenv.BaseURL, ce.Host)
		}
		diags.AddError("Service Speaks HTTP, Not HTTPS", fmt.Sprintf("%s. %s No retry can fix this.", cause, fix))
	case client.ServiceSpeaksTLS:
		diags.AddError("Service Speaks HTTPS, Not HTTP", fmt.Sprintf(
			"%s. Set base_url to https://%s (or %s), with ca_certificate if its certificate is of a private CA. No retry can fix this.", cause, ce.Host, providerenv.BaseURL))
	}
}

// stoppedRetrying says that the provider no longer retries a service out of
// reach, and why; "" while it still does.
func stoppedRetrying(ce *client.ConnectError) string {
	var stopped string
	switch {
	case strings.HasPrefix(ce.StoppedBy, "max_retries"):
		stopped = fmt.Sprintf(" The provider stopped retrying when a request reached %s failing to reach the service: ", ce.StoppedBy)
	case ce.StoppedBy != "":
		stopped = fmt.Sprintf(" The provider stopped retrying once it had spent %s failing to reach the service: ", ce.StoppedBy)
	default:
		return ""
	}
	return stopped + "one request at a time checks whether it is back, and every other request of this run fails at once, unsent, while it stays out of reach."
}
