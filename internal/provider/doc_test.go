package provider

import (
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDoc_packageMapIsTrue: the package doc, in doc.go alone, names files
// that exist and every production file of the package.
func TestDoc_packageMapIsTrue(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	production := map[string]bool{}
	var doc string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		production[name] = true
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case name == "doc.go" && f.Doc != nil:
			doc = f.Doc.Text()
		case f.Doc != nil:
			t.Errorf("%s holds a package doc comment: it belongs in doc.go", name)
		}
	}
	if doc == "" {
		t.Fatal("doc.go holds no package doc comment")
	}
	named := map[string]bool{}
	for _, name := range regexp.MustCompile(`[\w.]+\.go\b`).FindAllString(doc, -1) {
		named[name] = true
		if !production[name] {
			t.Errorf("the package doc names %s, which is no production file of the package", name)
		}
	}
	for name := range production {
		if name != "doc.go" && !named[name] {
			t.Errorf("the package doc does not name %s", name)
		}
	}
}
