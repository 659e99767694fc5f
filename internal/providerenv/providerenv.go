// Package providerenv names the provider's environment variables for the
// provider and for internal/acctest, which the provider's tests import.
package providerenv

const (
	BaseURL       = "DATAINTEGRATION_BASE_URL"
	APIKey        = "DATAINTEGRATION_API_KEY"
	WorkspaceID   = "DATAINTEGRATION_WORKSPACE_ID"
	CACertificate = "DATAINTEGRATION_CA_CERTIFICATE" // the PEM itself, not a path
)

const AppendUserAgent = "TF_APPEND_USER_AGENT" // appended, as HashiCorp's providers do
