package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
)

const (
	maxErrorBytes   = 64 << 10
	maxMessageRunes = 300
)

type errorBody struct {
	Detail json.RawMessage `json:"detail"`
}

// readMessage falls back to the text: the API publishes no shape of an
// error body (README.md, "Open points"). The caller redacts, then cuts.
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

// brief is a gateway page's title or first line; JSON is kept for cut to fold.
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

const maxBodyBytes = 16 << 20

func Decode(body io.Reader, out any) error {
	b, err := io.ReadAll(io.LimitReader(body, maxBodyBytes+1))
	switch {
	case err != nil:
		return err
	case len(b) > maxBodyBytes:
		return fmt.Errorf("the answer is larger than %d MiB", maxBodyBytes>>20)
	case len(bytes.TrimSpace(b)) == 0:
		return errors.New("the service answered with an empty body where JSON was expected")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(out); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return err
		}
		return fmt.Errorf("the answer is not the JSON expected (%w): %q", err, brief(string(b), ""))
	}
	if rest := bytes.TrimSpace(b[dec.InputOffset():]); len(rest) > 0 {
		return fmt.Errorf("the answer is not the JSON expected: %d bytes follow its JSON: %q", len(rest), brief(string(rest), ""))
	}
	// Go's decoder keeps the last of a key given twice, such as a second _id.
	if k, ok := duplicateKey(b); ok {
		return fmt.Errorf("the answer is not the JSON expected: an object holds the key %q twice", k)
	}
	return nil
}

func duplicateKey(b []byte) (string, bool) {
	type level struct {
		keys    map[string]bool // nil in an array
		wantKey bool
	}
	var stack []*level
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, ok := tok.(string); ok && top != nil && top.wantKey {
			if top.keys[k] {
				return k, true
			}
			top.keys[k], top.wantKey = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &level{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].wantKey = true
		}
	}
}

func Into(out any) func(io.Reader) error {
	return func(body io.Reader) error { return Decode(body, out) }
}

// bodyReader keeps the error of a body that ended early.
type bodyReader struct {
	r   io.Reader
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && b.err == nil {
		b.err = err
	}
	return n, err
}

func drainClose(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 4<<10))
	_ = body.Close()
}

func notJSON(contentType string) bool {
	ct := strings.ToLower(contentType)
	return strings.Contains(ct, "html") || strings.Contains(ct, "xml")
}
