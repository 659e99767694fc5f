package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	markdownLink  = regexp.MustCompile(`\]\(([^)\s]*)\)`)
	markdownTitle = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	htmlAnchor    = regexp.MustCompile(`<a id="([^"]+)"`)
	notInSlug     = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	fencedCode    = regexp.MustCompile("(?s)```.*?```")
)

// anchors lists the link targets of a Markdown page as the Registry and
// GitHub name them: each heading in lower case, without punctuation, its
// spaces turned into hyphens, and -1, -2… after a repeated one; and the
// page's own <a id> anchors.
func anchors(page string) map[string]bool {
	page = fencedCode.ReplaceAllString(page, "")
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range markdownTitle.FindAllStringSubmatch(page, -1) {
		slug := strings.ReplaceAll(notInSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	for _, m := range htmlAnchor.FindAllStringSubmatch(page, -1) {
		out[m[1]] = true
	}
	return out
}

func TestDocsLinks_anchors(t *testing.T) {
	t.Parallel()
	got := anchors("# Title\n\n## With an action (Terraform 1.16 and later)\n```sh\n# not a title\n```\n### With an action (Terraform 1.16 and later)\n<a id=\"nestedatt--jobs\"></a>\n## `if_running` and `timeout`\n")
	for _, want := range []string{"title", "with-an-action-terraform-116-and-later", "with-an-action-terraform-116-and-later-1", "nestedatt--jobs", "if_running-and-timeout"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-title"] {
		t.Error("a comment in a code block was read as a heading")
	}
}

// TestDocsLinks_resolve checks that every link of README.md and docs/ to another
// page of the repository finds the page, and the heading its #fragment
// names: a renamed heading must not leave a link behind.
func TestDocsLinks_resolve(t *testing.T) {
	t.Parallel()
	pages := append(docsPages(t), "../../README.md")
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range markdownLink.FindAllStringSubmatch(fencedCode.ReplaceAllString(string(b), ""), -1) {
			target, fragment, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(m[1], "mailto:") {
				continue
			}
			file := page
			if target != "" {
				file = filepath.Join(filepath.Dir(page), target)
			}
			text, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s links to %s, which is not there", page, m[1])
				continue
			}
			checked++
			if fragment != "" && strings.HasSuffix(file, ".md") && !anchors(string(text))[fragment] {
				t.Errorf("%s links to %s: %s has no heading #%s", page, m[1], file, fragment)
			}
		}
	}
	if checked == 0 {
		t.Error("no link was checked")
	}
}
