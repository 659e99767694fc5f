package docs

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	// dottedNumber: a whole dotted run, so that 127.0.0.1 is no version x.y.z.
	dottedNumber = regexp.MustCompile(`\d+(?:\.\d+)+`)
	// engineBefore: "Terraform 1.5.7", "Terraform/1.16.4", "OpenTofu v1.12.6".
	engineBefore = regexp.MustCompile(`(?i)(terraform|opentofu|tofu)(\s+|/)v?$`)
	releaseTitle = regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\]`)
)

func releasedVersions(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range releaseTitle.FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = true
	}
	if len(out) == 0 {
		t.Fatal("CHANGELOG.md releases no version: its headings changed form")
	}
	return out
}

// unreleasedVersions lists, one a line, each version x.y.z of page that is
// neither released, an engine's (the engine's name just before it), nor on
// a line that says it is unreleased.
func unreleasedVersions(page string, released map[string]bool) []string {
	var out []string
	for _, loc := range dottedNumber.FindAllStringIndex(page, -1) {
		v := page[loc[0]:loc[1]]
		lineStart := strings.LastIndex(page[:loc[0]], "\n") + 1
		lineEnd, _ := strings.CutSuffix(page[lineStart:], "\n")
		line, _, _ := strings.Cut(lineEnd, "\n")
		before := page[max(0, loc[0]-12):loc[0]]
		if strings.Count(v, ".") != 2 || released[v] || engineBefore.MatchString(before) ||
			strings.Contains(strings.ToLower(line), "unreleased") {
			continue
		}
		out = append(out, v+" (line "+strconv.Itoa(strings.Count(page[:loc[0]], "\n")+1)+")")
	}
	return out
}

func TestVersions_read(t *testing.T) {
	t.Parallel()
	page := "Tested on Terraform 1.5.7, Terraform/1.16.4 and OpenTofu 1.12.6.\n" +
		"Since 0.1.0, at 127.0.0.1 or 10.0.0.0/8, go run x@v0.1.0.\n" +
		"terraform-provider-dataintegration/0.2.0\n" +
		"Version 0.3.0 (unreleased) adds it.\n" +
		"Terraform 1.5.7 and 1.16.4, or OpenTofu\n1.12.6\n"
	got := unreleasedVersions(page, map[string]bool{"0.1.0": true})
	want := []string{"0.2.0 (line 3)", "1.16.4 (line 5)"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("unreleasedVersions = %q, want %q", got, want)
	}
}

// TestVersions_released checks that every version of the provider docs/
// names is one CHANGELOG.md releases, or says it is unreleased; an
// engine's version, its name before it, is not the provider's.
func TestVersions_released(t *testing.T) {
	t.Parallel()
	released := releasedVersions(t)
	for _, page := range docsPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range unreleasedVersions(string(b), released) {
			t.Errorf("%s names version %s, which CHANGELOG.md does not release: name a released one, or say it is unreleased", page, v)
		}
	}
}
