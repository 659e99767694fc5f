// Package client is the data-integration service's HTTP client; README.md
// states its contract. It holds the calls of the API and their wire shapes;
// package request sends them, and package pacing keeps them to the
// service's rate limit.
package client

import "github.com/dataintegration/terraform-provider-dataintegration/internal/client/request"

// Client calls the service. It is safe for concurrent use.
type Client struct {
	*request.Client
	reads connectorReads
}

// New returns a Client for cfg.
func New(cfg Config) (*Client, error) {
	rc, err := request.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Client{Client: rc}, nil
}
