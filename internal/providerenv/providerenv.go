// Package providerenv names the environment variables the provider reads.
// The provider and the tests' harness (internal/acctest) both name them, and
// the harness cannot import the provider, whose tests import the harness.
package providerenv

// The variables the provider's settings fall back to.
const (
	BaseURL     = "DATAINTEGRATION_BASE_URL"
	APIKey      = "DATAINTEGRATION_API_KEY"
	WorkspaceID = "DATAINTEGRATION_WORKSPACE_ID"
	// CACertificate holds the PEM itself, not a path.
	CACertificate = "DATAINTEGRATION_CA_CERTIFICATE"
)

// AppendUserAgent is appended to the User-Agent, as HashiCorp's providers do.
const AppendUserAgent = "TF_APPEND_USER_AGENT"
