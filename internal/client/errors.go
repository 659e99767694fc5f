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

	"golang.org/x/net/html"
)

const (
	maxErrorBytes   = 64 << 10
	maxMessageRunes = 300
)

// Error is a failed request: the service's answer, or the reason none came.
type Error struct {
	Operation string
	// Path includes the base URL's path; Host is the base URL's.
	Method, Path, Host string
	// KeyFrom is Config.KeyFrom.
	KeyFrom string
	// StatusCode is 0 when no answer came.
	StatusCode int
	Message    string
	Err        error
	// Sent is whether a connection was made for the request.
	Sent bool
	// Attempts and Tried are set when the request gave up retrying.
	Attempts int
	Tried    time.Duration
	// Limit is the time limit that ended the retries; empty when Capped.
	// Wait is the wait before the next attempt that would have passed
	// Limit, and so was not begun; 0 when Limit itself ran out.
	Limit  string
	Wait   time.Duration
	Capped bool
	// KeyRefused is set on a request that was not sent because the service
	// refused the API key (401) earlier in this Client's life; StatusCode and
	// Message are that first refusal's.
	KeyRefused bool
}

// Retries says how long a request was retried, and what ended it.
func (e *Error) Retries() string {
	if e.Attempts < 1 || e.Attempts == 1 && e.Limit == "" && !e.Capped {
		return ""
	}
	s := fmt.Sprintf(" (gave up after %d attempts over %s", e.Attempts, e.Tried.Round(100*time.Millisecond))
	if e.Attempts == 1 {
		s = fmt.Sprintf(" (gave up after 1 attempt over %s", e.Tried.Round(100*time.Millisecond))
	}
	switch {
	case e.Limit != "" && e.Wait > 0:
		s += fmt.Sprintf(": the next attempt would wait %s, past the end of %s", roundWait(e.Wait), e.Limit)
	case e.Limit != "":
		s += ", at the end of " + e.Limit
	case e.Capped:
		s += fmt.Sprintf(", at max_retries (%d)", e.Attempts-1)
	}
	return s + ")"
}

// OutOfTime tells whether err's time limit ended, or would before a retry.
func OutOfTime(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Limit != "" || errors.Is(err, context.DeadlineExceeded)
}

// RedirectError is a 3xx answer, which the client does not follow.
type RedirectError struct {
	Status int
	// Location is the redirect's target, without credentials or query.
	Location string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the service redirected the request to %s (HTTP %d); redirects are not followed", e.Location, e.Status)
}

// UnexpectedAnswerError is an answer that describes another object than the
// one asked for.
type UnexpectedAnswerError struct {
	// What was asked and what the answer named, such as `connector "c-1"`.
	Asked, Answered string
}

func (e *UnexpectedAnswerError) Error() string {
	return fmt.Sprintf("the service answered with %s to a request for %s", e.Answered, e.Asked)
}

// LimitError is a request cut off by a limit of WithLimit.
type LimitError struct{ Limit string }

func (e *LimitError) Error() string { return e.Limit + " ran out" }

func (e *LimitError) Unwrap() error { return context.DeadlineExceeded }

// MayHaveTakenEffect tells whether the service may have carried out the
// failed request: a lost answer, a 500, 502 or 504, or an unreadable success.
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

// StatusCode returns the HTTP status of err, or 0.
func StatusCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// IsNotFound tells whether err is the service answering 404.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// MayHaveTakenEffect is Error.MayHaveTakenEffect of err.
func MayHaveTakenEffect(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.MayHaveTakenEffect()
}

// readMessage gives the message of an error body, and the body as text.
// It falls back to the text: the API publishes no shape of an error body
// (README.md, "Open points"). The caller redacts, then cuts.
func readMessage(body io.Reader, contentType string) (msg, text string) {
	b, _ := io.ReadAll(io.LimitReader(body, maxErrorBytes))
	var e errorBody
	if json.Unmarshal(b, &e) == nil && len(e.Detail) > 0 && string(e.Detail) != "null" {
		var s string
		if json.Unmarshal(e.Detail, &s) == nil {
			return s, string(b)
		}
		return string(e.Detail), string(b)
	}
	return brief(string(b), contentType), string(b)
}

// brief is one line of a body that gives no detail: a gateway's page is
// its title (or its first line of text), never the whole page. JSON is
// kept whole, for cut to fold.
func brief(body, contentType string) string {
	trimmed := strings.TrimSpace(body)
	if json.Valid([]byte(trimmed)) {
		return body
	}
	lower := strings.ToLower(trimmed)
	if strings.Contains(strings.ToLower(contentType), "html") || strings.HasPrefix(lower, "<!doctype html") || strings.HasPrefix(lower, "<html") {
		body = htmlText(trimmed)
	}
	for line := range strings.Lines(body) {
		if l := strings.TrimSpace(line); l != "" {
			return l
		}
	}
	return ""
}

// htmlText is a page's title when it has one, else its text, a line per
// run of text, without scripts and styles.
func htmlText(page string) string {
	z := html.NewTokenizer(strings.NewReader(page))
	var text, title strings.Builder
	skip, inTitle := 0, false
	for {
		switch z.Next() {
		case html.ErrorToken:
			if t := strings.Join(strings.Fields(title.String()), " "); t != "" {
				return t
			}
			return text.String()
		case html.StartTagToken:
			switch name, _ := z.TagName(); string(name) {
			case "script", "style":
				skip++
			case "title":
				inTitle = true
			}
		case html.EndTagToken:
			switch name, _ := z.TagName(); string(name) {
			case "script", "style":
				skip = max(skip-1, 0)
			case "title":
				inTitle = false
			}
		case html.TextToken:
			switch {
			case inTitle:
				title.Write(z.Text())
			case skip == 0:
				if t := strings.TrimSpace(string(z.Text())); t != "" {
					text.WriteString(t + "\n")
				}
			}
		}
	}
}

func cut(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r < 0x20 || r == 0x7f || r == ' ' || r == 0xfffd
	}), " ")
	if r := []rune(s); len(r) > maxMessageRunes {
		return string(r[:maxMessageRunes]) + "…"
	}
	return s
}

// roundWait rounds a wait for a message: to the millisecond under a second,
// else to a tenth of a second.
func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
