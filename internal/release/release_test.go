package release

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// The install test: the release scripts/release.sh leaves in dist/, installed by
// `terraform init` from a registry, as users install it.

// registryHost is a made-up registry host, which a `host` block of the CLI configuration
// sends to the test's server, as service discovery would.
const registryHost = "registry.dataintegration.test"

// registry serves a release through the provider registry protocol: the
// versions list, the download answer of each platform, and the files it
// names. Swap replaces a file's contents, to serve a tampered release.
type registry struct {
	r   *acctest.Release
	url string

	mu        sync.Mutex
	swap      map[string][]byte
	requested []string
}

func serveRegistry(t *testing.T, r *acctest.Release) (*registry, *x509.Certificate) {
	t.Helper()
	reg := &registry{r: r, swap: map[string][]byte{}}
	ca, leaf := testCertificates(t)
	srv := httptest.NewUnstartedServer(reg)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	reg.url = srv.URL
	return reg, ca
}

func (reg *registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	reg.mu.Lock()
	reg.requested = append(reg.requested, req.URL.Path)
	reg.mu.Unlock()
	r := reg.r
	base := "/v1/providers/dataintegration/dataintegration/"
	switch rest, ok := strings.CutPrefix(req.URL.Path, base); {
	case ok && rest == "versions":
		var platforms []map[string]string
		for _, p := range slices.Sorted(maps.Keys(r.Zips)) {
			goos, goarch, _ := strings.Cut(p, "_")
			platforms = append(platforms, map[string]string{"os": goos, "arch": goarch})
		}
		writeJSON(w, map[string]any{"versions": []any{map[string]any{"version": r.Version, "protocols": []string{"6.0"}, "platforms": platforms}}})
	case ok && strings.HasPrefix(rest, r.Version+"/download/"):
		platform := strings.ReplaceAll(strings.TrimPrefix(rest, r.Version+"/download/"), "/", "_")
		zip := r.Zips[platform]
		if zip == "" {
			http.NotFound(w, req)
			return
		}
		goos, goarch, _ := strings.Cut(platform, "_")
		files := reg.url + "/files/"
		writeJSON(w, map[string]any{
			"protocols": []string{"6.0"}, "os": goos, "arch": goarch, "filename": zip,
			"download_url":          files + zip,
			"shasums_url":           files + r.Prefix() + "_SHA256SUMS",
			"shasums_signature_url": files + r.Prefix() + "_SHA256SUMS.sig",
			"shasum":                r.Sum(zip),
			"signing_keys":          map[string]any{"gpg_public_keys": []any{map[string]string{"key_id": strings.ToUpper(r.KeyID), "ascii_armor": string(r.Key)}}},
		})
	default:
		name, ok := strings.CutPrefix(req.URL.Path, "/files/")
		if !ok || strings.Contains(name, "/") {
			http.NotFound(w, req)
			return
		}
		reg.mu.Lock()
		body, swapped := reg.swap[name]
		reg.mu.Unlock()
		if !swapped {
			var err error
			if body, err = os.ReadFile(filepath.Join(r.Dir, name)); err != nil {
				http.NotFound(w, req)
				return
			}
		}
		_, _ = w.Write(body)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// testCertificates makes a certificate authority and, signed by it, a
// server certificate for the loopback address.
func testCertificates(t *testing.T) (*x509.Certificate, tls.Certificate) {
	t.Helper()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey, leafKey := newKey(), newKey()
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "dataintegration install test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, caKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leafTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTemplate, ca, leafKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	return ca, tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}
}

// installEngine is the engine under test with a CLI configuration that
// sends registryHost to reg, trusting the test's CA alone.
func installEngine(t *testing.T, reg *registry, ca *x509.Certificate) *acctest.Engine {
	t.Helper()
	eng := acctest.EngineWithCLIConfig(t, fmt.Sprintf(`host %q {
  services = {
    "providers.v1" = %q
  }
}
`, registryHost, reg.url+"/v1/providers/"))
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	// Go, which both engines are written in, reads the trusted roots from
	// SSL_CERT_FILE on Linux and the BSDs.
	eng.Env = append(eng.Env, "SSL_CERT_FILE="+caFile, "SSL_CERT_DIR="+filepath.Dir(caFile))
	return eng
}

func installConfig(version, body string) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    dataintegration = {
      source  = "%s/dataintegration/dataintegration"
      version = "%s"
    }
  }
}

%s`, registryHost, version, body)
}

// TestAccRelease_install: the release in PROVIDER_RELEASE_DIR, served by a
// registry over HTTPS, is installed by `init` (its signature checked, its
// hashes locked) and applies against the service; a zip whose sum differs,
// or a SHA256SUMS signed by another key, makes `init` fail.
func TestAccRelease_install(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run it")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the engines read a test CA from SSL_CERT_FILE on Linux and the BSDs, not on Windows")
	}
	r := acctest.BuiltRelease(t)
	reg, ca := serveRegistry(t, r)
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 0})
	zip := r.Zips[runtime.GOOS+"_"+runtime.GOARCH]

	t.Run("installed and applied", func(t *testing.T) {
		eng := installEngine(t, reg, ca)
		dir := acctest.ConfigDir(t, installConfig(r.Version, acctest.NewConnectorArgs(acctest.Name("installed")).HCL()))
		out := eng.Run(t, dir, e.ServiceEnv(), "init", "-input=false", "-no-color")
		t.Logf("%s init:\n%s", eng.Info, out)
		installed := regexp.MustCompile(`Installed ` + regexp.QuoteMeta(registryHost+"/dataintegration/dataintegration v"+r.Version) + ` \([^)]*key ID ` + r.KeyID + `\)`)
		if !installed.MatchString(out) {
			t.Errorf("init does not say it installed %s signed by key %s:\n%s", r.Version, r.KeyID, out)
		}
		lock, err := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl"))
		if err != nil {
			t.Fatal(err)
		}
		// zh: every sum SHA256SUMS signs (each platform's zip, and the
		// manifest); h1: at least the one of the package installed.
		var want []string
		for line := range strings.Lines(string(r.Sums)) {
			sum, _, _ := strings.Cut(line, "  ")
			want = append(want, "zh:"+sum)
		}
		for _, z := range r.Zips {
			if r.Sum(z) == "" {
				t.Fatalf("SHA256SUMS does not list %s", z)
			}
		}
		got := regexp.MustCompile(`"(zh:[0-9a-f]{64})"`).FindAllStringSubmatch(string(lock), -1)
		var zh []string
		for _, m := range got {
			zh = append(zh, m[1])
		}
		slices.Sort(want)
		slices.Sort(zh)
		if !slices.Equal(zh, want) {
			t.Errorf("the lock file's zh: hashes are %v, want the release's %v\n%s", zh, want, lock)
		}
		if !regexp.MustCompile(`"h1:[A-Za-z0-9+/]{43}="`).Match(lock) || !strings.Contains(string(lock), `version     = "`+r.Version+`"`) {
			t.Errorf("the lock file has no h1: hash or not version %s:\n%s", r.Version, lock)
		}
		for _, path := range []string{"/versions", "/download/", "/files/" + zip, "/files/" + r.Prefix() + "_SHA256SUMS", "/files/" + r.Prefix() + "_SHA256SUMS.sig"} {
			if !slices.ContainsFunc(reg.requestedPaths(), func(p string) bool { return strings.Contains(p, path) }) {
				t.Errorf("init never asked the registry for %s (asked: %v)", path, reg.requestedPaths())
			}
		}
		eng.Run(t, dir, e.ServiceEnv(), "apply", "-input=false", "-no-color", "-auto-approve")
		if ids := eng.StateIDs(t, dir, "dataintegration_customer_service_connector"); len(ids) != 1 {
			t.Errorf("the apply left %d connectors in the state, want 1", len(ids))
		}
		eng.ExpectConverged(t, dir, e.ServiceEnv())
		eng.Run(t, dir, e.ServiceEnv(), "destroy", "-input=false", "-no-color", "-auto-approve")
	})

	refused := func(t *testing.T, why *regexp.Regexp) {
		t.Helper()
		eng := installEngine(t, reg, ca)
		dir := acctest.ConfigDir(t, installConfig(r.Version, "data \"dataintegration_jobs\" \"all\" {}\n"))
		out, err := eng.Try(dir, e.ServiceEnv(), "init", "-input=false", "-no-color")
		if err == nil {
			t.Fatalf("init installed a tampered release:\n%s", out)
		}
		if !why.MatchString(err.Error()) {
			t.Errorf("init failed without saying why it refused the release:\n%v", err)
		}
		t.Logf("%s init refuses it:\n%v", eng.Info, err)
		if _, err := os.Stat(filepath.Join(dir, ".terraform.lock.hcl")); err == nil {
			t.Error("init wrote a lock file for a release it refused")
		}
	}
	t.Run("zip whose sum differs", func(t *testing.T) {
		body, err := os.ReadFile(filepath.Join(r.Dir, zip))
		if err != nil {
			t.Fatal(err)
		}
		reg.replace(t, zip, append(slices.Clone(body), 0))
		refused(t, regexp.MustCompile(`(?i)checksum|hash`))
	})
	t.Run("signed by another key", func(t *testing.T) {
		reg.replace(t, r.Prefix()+"_SHA256SUMS.sig", signWithNewKey(t, r.Sums))
		refused(t, regexp.MustCompile(`(?i)signature`))
	})
}

func (reg *registry) replace(t *testing.T, name string, body []byte) {
	reg.mu.Lock()
	reg.swap[name] = body
	reg.mu.Unlock()
	t.Cleanup(func() {
		reg.mu.Lock()
		delete(reg.swap, name)
		reg.mu.Unlock()
	})
}

func (reg *registry) requestedPaths() []string {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return slices.Clone(reg.requested)
}

// signWithNewKey is a detached signature of data by a key made for it.
func signWithNewKey(t *testing.T, data []byte) []byte {
	t.Helper()
	key, err := openpgp.NewEntity("someone else", "", "someone@invalid", &packet.Config{RSABits: 2048})
	if err != nil {
		t.Fatal(err)
	}
	var sig bytes.Buffer
	if err := openpgp.DetachSign(&sig, key, bytes.NewReader(data), nil); err != nil {
		t.Fatal(err)
	}
	return sig.Bytes()
}

func TestMain(m *testing.M) { acctest.Main(m) }
