package acctest

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
)

const envReleaseDir = "PROVIDER_RELEASE_DIR"

// Release is a release as scripts/release.sh leaves it in a folder.
type Release struct {
	Dir, Version string
	Sums         []byte            // the SHA256SUMS file
	Key          []byte            // the armoured public key that signed
	KeyID        string            // its ID, 16 hexadecimal digits
	Zips         map[string]string // "os_arch": file name
}

func (r *Release) Prefix() string { return "terraform-provider-dataintegration_" + r.Version }

// Sum is the SHA-256 that SHA256SUMS gives name; "" when none.
func (r *Release) Sum(name string) string {
	for line := range strings.Lines(string(r.Sums)) {
		if sum, file, ok := strings.Cut(strings.TrimSpace(line), "  "); ok && file == name {
			return sum
		}
	}
	return ""
}

// BuiltRelease reads the release that PROVIDER_RELEASE_DIR names.
func BuiltRelease(t *testing.T) *Release {
	t.Helper()
	dir := os.Getenv(envReleaseDir)
	if dir == "" {
		t.Skipf("no release to install: %s names none (make testacc and make release-check build one into dist/ and set it)", envReleaseDir)
	}
	sums, _ := filepath.Glob(filepath.Join(dir, "terraform-provider-dataintegration_*_SHA256SUMS"))
	if len(sums) != 1 {
		t.Fatalf("%s=%s holds %d SHA256SUMS files, want one: build the release with `make release-check`", envReleaseDir, dir, len(sums))
	}
	r := &Release{Dir: dir, Zips: map[string]string{}}
	r.Version = strings.TrimSuffix(strings.TrimPrefix(filepath.Base(sums[0]), "terraform-provider-dataintegration_"), "_SHA256SUMS")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	r.Sums, r.Key = read(r.Prefix()+"_SHA256SUMS"), read(r.Prefix()+"_signing-key.asc")
	keys, err := openpgp.ReadArmoredKeyRing(bytes.NewReader(r.Key))
	if err != nil || len(keys) != 1 {
		t.Fatalf("reading the release's signing key: %v (%d keys)", err, len(keys))
	}
	r.KeyID = keys[0].PrimaryKey.KeyIdString()
	zips, _ := filepath.Glob(filepath.Join(dir, r.Prefix()+"_*.zip"))
	for _, z := range zips {
		r.Zips[strings.TrimSuffix(strings.TrimPrefix(filepath.Base(z), r.Prefix()+"_"), ".zip")] = filepath.Base(z)
	}
	if r.Zips[runtime.GOOS+"_"+runtime.GOARCH] == "" {
		t.Fatalf("the release in %s has no zip for %s_%s", dir, runtime.GOOS, runtime.GOARCH)
	}
	return r
}
