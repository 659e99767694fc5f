package client

// The names of package request that callers of the client use.

import "github.com/dataintegration/terraform-provider-dataintegration/internal/client/request"

type (
	Config                = request.Config
	Error                 = request.Error
	ConnectError          = request.ConnectError
	ConnectFailure        = request.ConnectFailure
	RateLimitError        = request.RateLimitError
	RedirectError         = request.RedirectError
	UnexpectedAnswerError = request.UnexpectedAnswerError
	LimitError            = request.LimitError
)

const (
	NoRetryLimit                 = request.NoRetryLimit
	DefaultRetryBudget           = request.DefaultRetryBudget
	DefaultMaxConcurrentRequests = request.DefaultMaxConcurrentRequests
	DefaultRequestTimeout        = request.DefaultRequestTimeout

	UntrustedCertificate    = request.UntrustedCertificate
	CertificateNameMismatch = request.CertificateNameMismatch
	CertificateExpired      = request.CertificateExpired
	ProxyRefused            = request.ProxyRefused
	ProxyAuthRequired       = request.ProxyAuthRequired
	UnknownHost             = request.UnknownHost
	ServiceSpeaksHTTP       = request.ServiceSpeaksHTTP
	ServiceSpeaksTLS        = request.ServiceSpeaksTLS
	Unreachable             = request.Unreachable
	NoAnswer                = request.NoAnswer
	ProxyNotAnswering       = request.ProxyNotAnswering
)

var (
	ErrProxyURL        = request.ErrProxyURL
	ErrNoCertificate   = request.ErrNoCertificate
	WithLimit          = request.WithLimit
	OnSend             = request.OnSend
	Sleep              = request.Sleep
	StatusCode         = request.StatusCode
	IsNotFound         = request.IsNotFound
	MayHaveTakenEffect = request.MayHaveTakenEffect
	OutOfTime          = request.OutOfTime
	UserAgent          = request.UserAgent
	ProxyCredentials   = request.ProxyCredentials
)
