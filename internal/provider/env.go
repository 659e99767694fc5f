package provider

// Environment variables the provider falls back to.
const (
	EnvBaseURL     = "DATAINTEGRATION_BASE_URL"
	EnvAPIKey      = "DATAINTEGRATION_API_KEY"
	EnvWorkspaceID = "DATAINTEGRATION_WORKSPACE_ID"
	// EnvCACertificate holds the PEM itself, not a path.
	EnvCACertificate = "DATAINTEGRATION_CA_CERTIFICATE"
)

// EnvAppendUserAgent is appended to the User-Agent, as HashiCorp's providers do.
const EnvAppendUserAgent = "TF_APPEND_USER_AGENT"
