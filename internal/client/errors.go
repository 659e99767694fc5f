package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

const (
	// maxErrorBytes bounds what is read of a failed answer, and
	// maxMessageRunes what of it is shown.
	maxErrorBytes   = 64 << 10
	maxMessageRunes = 300
)

// Error is a failed request: the service's answer, or the reason none came.
type Error struct {
	// Operation names what was attempted, such as "list jobs".
	Operation string
	// Method and Path identify the request: Path is the whole path asked,
	// the base URL's included (it holds no secret).
	Method, Path string
	// StatusCode is the HTTP status, or 0 when no answer came.
	StatusCode int
	// Message is the service's own message, cut to a readable length.
	Message string
	// Err is the underlying error when no usable answer came.
	Err error
	// Sent is whether the request reached the service: a connection was
	// made for it.
	Sent bool
	// Attempts is how many times the request was sent, and Tried how long
	// from the first attempt to giving up, when it was retried and gave up
	// with a failure it could have retried.
	Attempts int
	Tried    time.Duration
	// Limit is the time limit that ended the retries: a limit named by
	// WithLimit, or the retry budget; empty when MaxRetries did. A limit
	// that cut off an attempt is Err.
	Limit string
	// Capped is whether MaxRetries ended the retries.
	Capped bool
}

// Retries says how long a request was retried before it gave up, and what
// ended it; empty when it was not retried.
func (e *Error) Retries() string {
	if e.Attempts < 1 || e.Attempts == 1 && e.Limit == "" && !e.Capped {
		return ""
	}
	s := fmt.Sprintf(" (gave up after %d attempts over %s", e.Attempts, e.Tried.Round(100*time.Millisecond))
	if e.Attempts == 1 {
		s = fmt.Sprintf(" (gave up after 1 attempt over %s", e.Tried.Round(100*time.Millisecond))
	}
	switch {
	case e.Limit != "":
		s += ", at the end of " + e.Limit
	case e.Capped:
		// The provider's setting of MaxRetries.
		s += fmt.Sprintf(", at max_retries (%d)", e.Attempts-1)
	}
	return s + ")"
}

// OutOfTime tells whether err is a request that gave up its retries
// because its time limit (its context's deadline, or the retry budget)
// would end before the next attempt, or ended.
func OutOfTime(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Limit != "" || errors.Is(err, context.DeadlineExceeded)
}

// LimitError is a request cut off by a limit of WithLimit. It is a
// context.DeadlineExceeded.
type LimitError struct{ Limit string }

func (e *LimitError) Error() string { return e.Limit + " ran out" }

func (e *LimitError) Unwrap() error { return context.DeadlineExceeded }

// stopped is why ctx ended: the limit that ended it, when WithLimit named
// it.
func stopped(ctx context.Context) error {
	err := ctx.Err()
	if name := limitOf(ctx); errors.Is(err, context.DeadlineExceeded) && name != "" {
		return &LimitError{Limit: name}
	}
	return err
}

// MayHaveTakenEffect tells whether the service may have carried out the
// request although it failed: the request reached it, and the answer was
// lost or is one given after the work may have been done (500, 502, 504,
// or a success that could not be read). Never for a 4xx, a 429 or a 503.
func (e *Error) MayHaveTakenEffect() bool {
	switch e.StatusCode {
	case 0:
		return e.Sent
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return true
	default:
		return e.StatusCode >= 200 && e.StatusCode < 300
	}
}

func (e *Error) Error() string {
	var s string
	switch {
	case e.StatusCode != 0 && e.Message != "":
		s = fmt.Sprintf("%s: HTTP %d: %s", e.Operation, e.StatusCode, e.Message)
	case e.StatusCode != 0 && e.Err != nil:
		s = fmt.Sprintf("%s: HTTP %d: %v", e.Operation, e.StatusCode, e.Err)
	case e.StatusCode != 0:
		s = fmt.Sprintf("%s: HTTP %d", e.Operation, e.StatusCode)
	default:
		s = fmt.Sprintf("%s: %v", e.Operation, e.Err)
	}
	return s + e.Retries()
}

func (e *Error) Unwrap() error { return e.Err }

// StatusCode returns the HTTP status of err, or 0 when err carries none.
func StatusCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// IsNotFound tells whether err is the service answering 404.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// MayHaveTakenEffect tells whether err is a failed request that the service
// may have carried out all the same (see Error.MayHaveTakenEffect).
func MayHaveTakenEffect(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.MayHaveTakenEffect()
}

// failure is the Error of request r, the one constructor of an Error: status
// is 0 when no answer came, and connected tells whether a connection was made
// for the request (an answer implies one).
func (c *Client) failure(r *request, status int, msg string, err error, connected bool) *Error {
	return &Error{
		Operation: r.op, Method: r.method, Path: c.fullPath(r.path), StatusCode: status, Message: msg, Err: err,
		Sent: status != 0 || connected,
	}
}

// readMessage returns the service's message from an error body: its "detail"
// when it is JSON with one, else the text itself, since the API publishes
// no shape of an error body (README.md, "Open points"). The caller masks
// secrets in it before cutting it to a readable length.
func readMessage(body io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(body, maxErrorBytes))
	var e errorBody
	if json.Unmarshal(b, &e) == nil && len(e.Detail) > 0 && string(e.Detail) != "null" {
		var s string
		if json.Unmarshal(e.Detail, &s) == nil {
			return s
		}
		return string(e.Detail)
	}
	return string(b)
}

// redact masks the API key and the request's other secrets wherever a
// message of the service repeats them.
func (c *Client) redact(msg string, secrets []string) string {
	for _, s := range append([]string{c.apiKey}, secrets...) {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	return msg
}

// cut folds white space and control characters and shortens s to
// maxMessageRunes.
func cut(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r < 0x20 || r == 0x7f || r == ' ' || r == 0xfffd
	}), " ")
	if r := []rune(s); len(r) > maxMessageRunes {
		return string(r[:maxMessageRunes]) + "…"
	}
	return s
}
