package provider

import "github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"

// Environment variables the provider falls back to, under the names the
// provider's code and tests use; providerenv holds their values.
const (
	EnvBaseURL     = providerenv.BaseURL
	EnvAPIKey      = providerenv.APIKey
	EnvWorkspaceID = providerenv.WorkspaceID
	// EnvCACertificate holds the PEM itself, not a path.
	EnvCACertificate = providerenv.CACertificate
)

// EnvAppendUserAgent is appended to the User-Agent, as HashiCorp's providers do.
const EnvAppendUserAgent = providerenv.AppendUserAgent
