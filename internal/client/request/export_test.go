package request

import (
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/pacing"
)

var (
	DuplicateKey = duplicateKey
	Unreached    = unreached
)

const MaxMessageRunes = maxMessageRunes

func (c *Client) MaxBackoff() time.Duration { return c.maxBackoff }

func (c *Client) BackoffAfter(attempt int, retryAfter time.Duration) time.Duration {
	return c.backoff(attempt, retryAfter)
}

func (c *Client) Pacer() *pacing.Pacer { return c.pacer }
