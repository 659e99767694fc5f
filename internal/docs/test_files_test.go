package docs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// harnessTests are test files of no production file: what a package's tests
// share (helpers), what they reach of its internals (export) and TestMain.
var harnessTests = []string{"helpers_test.go", "export_test.go", "main_test.go"}

// osSuffixes mark a file built on some systems only: X_linux_test.go tests X.go.
var osSuffixes = []string{"_linux", "_darwin", "_windows", "_unix"}

// TestTestFiles_namedForTheirFile: across internal/, each X_test.go tests
// X.go of its package, so that a file's tests are found by its name. A
// package whose production files declare nothing (docs, bench, release)
// tests what lies outside its Go files, and names its test files for that.
func TestTestFiles_namedForTheirFile(t *testing.T) {
	err := filepath.WalkDir("..", func(dir string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		production := map[string]bool{}
		var tests []string
		declares := false
		for _, f := range entries {
			name := f.Name()
			switch {
			case f.IsDir() || !strings.HasSuffix(name, ".go"):
			case strings.HasSuffix(name, "_test.go"):
				tests = append(tests, name)
			default:
				production[name] = true
				parsed, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.SkipObjectResolution)
				if err != nil {
					return err
				}
				declares = declares || len(parsed.Decls) > 0
			}
		}
		if !declares {
			return nil
		}
		for _, name := range tests {
			if !slices.Contains(harnessTests, name) && !testsAFile(name, production) {
				t.Errorf("%s: no production file of its name", filepath.Join(dir, name))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testsAFile(test string, production map[string]bool) bool {
	base := strings.TrimSuffix(test, "_test.go")
	if production[base+".go"] {
		return true
	}
	for _, s := range osSuffixes {
		if b, ok := strings.CutSuffix(base, s); ok && production[b+".go"] {
			return true
		}
	}
	return false
}
