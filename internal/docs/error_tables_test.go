package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var diagnosticSources = []string{"../provider", "../client", "../jobsfastpath"}

type raisedDiagnostic struct {
	summary string
	error   bool
	at      string
}

// diagnosticCalls: the framework's functions that take a summary, its argument's index, and whether an error.
var diagnosticCalls = map[string]struct {
	arg   int
	error bool
}{
	"AddError":                           {0, true},
	"AddAttributeError":                  {1, true},
	"AddWarning":                         {0, false},
	"AddAttributeWarning":                {1, false},
	"NewErrorDiagnostic":                 {0, true},
	"NewAttributeErrorDiagnostic":        {1, true},
	"NewWarningDiagnostic":               {0, false},
	"NewAttributeWarningDiagnostic":      {1, false},
	"NewResourceIdentityErrorDiagnostic": {0, true},
}

// goPackage holds a package's non-test files, its string constants and functions.
type goPackage struct {
	fset   *token.FileSet
	files  []*ast.File
	consts map[string]string
}

func parsePackage(t *testing.T, dir string) *goPackage {
	t.Helper()
	p := &goPackage{fset: token.NewFileSet(), consts: map[string]string{}}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go file in %s (%v)", dir, err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(p.fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		p.files = append(p.files, f)
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs, _ := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if s, ok := stringLiteral(vs.Values[i]); ok {
							p.consts[n.Name] = s
						}
					}
				}
			}
		}
	}
	return p
}

func stringLiteral(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// raisedDiagnostics finds the summaries the package raises, following a helper's parameter to
// its callers; one it cannot follow goes to unresolved, so that no way of writing one goes unseen.
func (p *goPackage) raisedDiagnostics(unresolved func(at, why string)) []raisedDiagnostic {
	var out []raisedDiagnostic
	for _, f := range p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				call, ok := diagnosticCalls[calledName(n)]
				if !ok || len(n.Args) <= call.arg {
					return true
				}
				for _, s := range p.summaries(f, n.Args[call.arg], unresolved, 0) {
					out = append(out, raisedDiagnostic{summary: s, error: call.error, at: p.fset.Position(n.Pos()).String()})
				}
			case *ast.CompositeLit:
				// A protocol-level diagnostic, as the fast paths write them.
				var summary ast.Expr
				warning := false
				for _, el := range n.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					switch key, _ := kv.Key.(*ast.Ident); {
					case key == nil:
					case key.Name == "Summary":
						summary = kv.Value
					case key.Name == "Severity":
						warning = strings.HasSuffix(exprName(kv.Value), "Warning")
					}
				}
				if summary == nil {
					return true
				}
				if call, ok := summary.(*ast.CallExpr); ok && calledName(call) == "Summary" {
					return true // another diagnostic's summary, passed on
				}
				for _, s := range p.summaries(f, summary, unresolved, 0) {
					out = append(out, raisedDiagnostic{summary: s, error: !warning, at: p.fset.Position(n.Pos()).String()})
				}
			}
			return true
		})
	}
	return out
}

func (p *goPackage) summaries(f *ast.File, e ast.Expr, unresolved func(at, why string), depth int) []string {
	at := p.fset.Position(e.Pos()).String()
	if s, ok := stringLiteral(e); ok {
		return []string{s}
	}
	id, ok := e.(*ast.Ident)
	if !ok || depth > 5 {
		unresolved(at, "the summary is neither a string literal, a constant nor a parameter")
		return nil
	}
	if s, ok := p.consts[id.Name]; ok {
		return []string{s}
	}
	fn, index := enclosingParameter(f, id)
	if fn == nil {
		unresolved(at, "the summary "+id.Name+" is neither a string literal, a constant nor a parameter")
		return nil
	}
	var out []string
	calls := 0
	for _, g := range p.files {
		ast.Inspect(g, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok || calledName(c) != fn.Name.Name || len(c.Args) <= index {
				return true
			}
			calls++
			out = append(out, p.summaries(g, c.Args[index], unresolved, depth+1)...)
			return true
		})
	}
	if calls == 0 {
		unresolved(at, "no call of "+fn.Name.Name+" gives its summary")
	}
	return out
}

// enclosingParameter finds the function of f whose parameter id is, and its index.
func enclosingParameter(f *ast.File, id *ast.Ident) (*ast.FuncDecl, int) {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || id.Pos() < fd.Body.Pos() || id.Pos() > fd.Body.End() {
			continue
		}
		i := 0
		for _, field := range fd.Type.Params.List {
			for _, n := range field.Names {
				if n.Name == id.Name {
					return fd, i
				}
				i++
			}
		}
		return nil, 0
	}
	return nil, 0
}

func calledName(c *ast.CallExpr) string { return exprName(c.Fun) }

func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

var (
	tableRow     = regexp.MustCompile(`^\|(.*)\|\s*$`)
	tableRule    = regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+\s*$`)
	backticked   = regexp.MustCompile("`([^`]+)`")
	errorHeaders = []string{"Summary", "Diagnostic"}
)

// errorTables reads a page's tables headed Summary or Diagnostic, each summary
// in backticks in that column.
func errorTables(page string) []string {
	page = fencedCode.ReplaceAllString(page, "")
	lines := strings.Split(page, "\n")
	var out []string
	inTable := false
	for i, line := range lines {
		m := tableRow.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			inTable = false
			continue
		}
		first, _, _ := strings.Cut(m[1], "|")
		if !inTable {
			inTable = i+1 < len(lines) && tableRule.MatchString(strings.TrimSpace(lines[i+1])) &&
				slices.Contains(errorHeaders, strings.TrimSpace(first))
			continue
		}
		if tableRule.MatchString(strings.TrimSpace(line)) {
			continue
		}
		for _, s := range backticked.FindAllStringSubmatch(first, -1) {
			out = append(out, s[1])
		}
	}
	return out
}

// docsErrorTables maps each summary of docs/'s error tables to the pages listing it.
func docsErrorTables(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, page := range docsPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range errorTables(string(b)) {
			out[s] = append(out[s], page)
		}
	}
	return out
}

func TestErrorTables_read(t *testing.T) {
	t.Parallel()
	page := "# T\n\n| Summary | When |\n|---|---|\n| `Job Not Found` | none |\n| `Authentication Failed`, `Access Denied` | 401 or 403 |\n\n" +
		"| Request | Retried on |\n|---|---|\n| reads (`GET`) | 429 |\n\n```text\n| Summary | x |\n|---|---|\n| `In Code` | x |\n```\n" +
		"| Diagnostic | Cause | Fix |\n| --- | --- | --- |\n| `Proxy Unreachable` | `HTTPS_PROXY` | a proxy |\n"
	got := errorTables(page)
	want := []string{"Job Not Found", "Authentication Failed", "Access Denied", "Proxy Unreachable"}
	if !slices.Equal(got, want) {
		t.Errorf("errorTables read %q, want %q", got, want)
	}
}

func TestErrorTables_raisedFound(t *testing.T) {
	t.Parallel()
	src := `package p

const taken = "Connector Name Taken"

func report(diags *diag.Diagnostics, summary string, err error) {
	diags.AddError(summary, err.Error())
}

func f(diags *diag.Diagnostics, name string) {
	diags.AddAttributeError(path.Root("name"), "Job Not Found", "")
	diags.AddWarning("Prefer token_wo", "")
	diags.AddError(taken, "")
	report(diags, "Unable to Read Connector", nil)
	_ = &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError, Summary: "Unable to Encode the State"}
	_ = &tfprotov6.Diagnostic{Summary: d.Summary()}
	diags.AddError(fmt.Sprintf("%s Failed", name), "")
}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var unresolved []string
	var got []string
	for _, d := range parsePackage(t, dir).raisedDiagnostics(func(at, why string) { unresolved = append(unresolved, why) }) {
		got = append(got, d.summary+map[bool]string{true: " (error)", false: " (warning)"}[d.error])
	}
	slices.Sort(got)
	want := []string{"Connector Name Taken (error)", "Job Not Found (error)", "Prefer token_wo (warning)", "Unable to Encode the State (error)", "Unable to Read Connector (error)"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
	if len(unresolved) != 1 {
		t.Errorf("unresolved %q, want the one summary made by fmt.Sprintf", unresolved)
	}
}

// TestErrorTables_everyErrorListed: every error summary the provider can raise is in an
// error table of docs/, and every summary listed is one it can raise.
func TestErrorTables_everyErrorListed(t *testing.T) {
	t.Parallel()
	raised := map[string]bool{}
	errors := map[string]string{}
	for _, dir := range diagnosticSources {
		for _, d := range parsePackage(t, dir).raisedDiagnostics(func(at, why string) {
			t.Errorf("%s: %s: write it so that this test can read it", at, why)
		}) {
			raised[d.summary] = true
			if d.error {
				errors[d.summary] = d.at
			}
		}
	}
	if len(errors) < 20 {
		t.Fatalf("found only %d error summaries in %q: the search is broken", len(errors), diagnosticSources)
	}
	tables := docsErrorTables(t)
	for s, at := range errors {
		if len(tables[s]) == 0 {
			t.Errorf("%s raises the error %q, which no error table of docs/ lists (a table headed Summary, with the summary in backticks)", at, s)
		}
	}
	for s, pages := range tables {
		if !raised[s] {
			t.Errorf("%s list %q, which the provider never raises", strings.Join(pages, ", "), s)
		}
	}
}
