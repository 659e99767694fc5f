//go:build unix

package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/nettest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// modulePath is the provider's module, which users name to `go run` the
// sandbox (the guide "Testing configurations").
const modulePath = "github.com/dataintegration/terraform-provider-dataintegration"

// TestCommand_goRunAtVersion runs the sandbox as a user without a clone does, with
// `go run <module>/internal/cmd/sandbox@<version>`: the module as the Go
// proxy serves a tag of it (the committed tree, through git as the proxy
// reads it) from a proxy folder of the test's own, every other module from
// this machine's module cache, nothing from the network. It fails when the
// module cannot be run so: a replace directive in go.mod, a file the build
// needs that git does not hold, a main package that does not build.
func TestCommand_goRunAtVersion(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the module through a Go proxy; skipped with -short")
	}
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git clone (%v): the module is zipped from git, as the proxy does", err)
	}
	modCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}

	// The proxy folder: list, .info, .mod and .zip of one version.
	const version = "v0.0.0-gorun-test"
	proxy := t.TempDir()
	dir := filepath.Join(proxy, modulePath, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	err = zip.CreateFromVCS(f, module.Version{Path: modulePath, Version: version}, strings.TrimSpace(string(root)), "HEAD", "")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("zipping the module at HEAD: %v", err)
	}
	goMod, err := exec.Command("git", "show", "HEAD:go.mod").Output()
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC()})
	for name, b := range map[string][]byte{"list": []byte(version + "\n"), version + ".info": info, version + ".mod": goMod} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	cmd := exec.Command("go", "run", modulePath+"/internal/cmd/sandbox@"+version, "-addr", "127.0.0.1:0")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(strings.TrimSpace(string(modCache)), "cache", "download")),
		"GOMODCACHE="+t.TempDir(), "GOFLAGS=-modcacherw", "GOSUMDB=off", "GOTOOLCHAIN=local", "GOWORK=off",
	)
	// go run waits for the command it built, which runs in a process of
	// its own: a process group of their own stops both.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var exports []string
	timeout := time.After(3 * time.Minute)
	for len(exports) < 3 {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("go run ended before the sandbox printed its variables:\n%s", stderr.String())
			}
			exports = append(exports, line)
		case <-timeout:
			t.Fatalf("no variables from go run after 3 minutes:\n%s", stderr.String())
		}
	}
	want := []string{"export DATAINTEGRATION_BASE_URL=http://127.0.0.1:", "export DATAINTEGRATION_API_KEY=", "export DATAINTEGRATION_WORKSPACE_ID="}
	for i, line := range exports {
		if !strings.HasPrefix(line, want[i]) {
			t.Errorf("line %d printed by the sandbox is %q, want it to start with %q", i+1, line, want[i])
		}
	}
	t.Logf("go run printed:\n%s", strings.Join(exports, "\n"))
}

// TestCommand_servesHTTPSBehindItsProxy: with -tls-cert, -tls-key, -proxy
// and -proxy-auth, the sandbox serves the API over https at the base URL it
// prints, named by its certificate's host, which a client trusting the CA
// reaches through the proxy it prints, with its credentials only; SIGTERM
// stops it cleanly.
func TestCommand_servesHTTPSBehindItsProxy(t *testing.T) {
	ca := nettest.NewCA(t, "sandbox test CA")
	leaf := ca.Issue(t, time.Now().Add(time.Hour), "sandbox.internal")
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	for p, b := range map[string]string{certFile: leaf.CertPEM, keyFile: leaf.KeyPEM} {
		if err := os.WriteFile(p, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	t.Cleanup(func() { os.Stdout = stdout })
	done := make(chan error, 1)
	go func() {
		done <- run([]string{"-addr", "127.0.0.1:0", "-tls-cert", certFile, "-tls-key", keyFile, "-proxy", "127.0.0.1:0", "-proxy-auth", "ci:s3cret-pass"}, testEnv{}.get)
	}()
	printed := map[string]string{}
	br := bufio.NewReader(r)
	for len(printed) < 4 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		k, v, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "export "), "=")
		printed[k] = v
	}
	os.Stdout = stdout
	base, proxy := printed["DATAINTEGRATION_BASE_URL"], printed["HTTPS_PROXY"]
	if !strings.HasPrefix(base, "https://sandbox.internal:") || !strings.HasPrefix(proxy, "http://ci:s3cret-pass@127.0.0.1:") {
		t.Fatalf("printed %v: want the base URL at the certificate's host, and the proxy with its credentials", printed)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(ca.PEM))
	get := func(proxyURL string) (*http.Response, error) {
		pu, err := url.Parse(proxyURL)
		if err != nil {
			t.Fatal(err)
		}
		hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
		req, _ := http.NewRequest(http.MethodGet, base+"/developers/workspaces/"+sandbox.DefaultWorkspaceID+"/jobs/", nil)
		req.Header.Set("Authorization", sandbox.DefaultAPIKey)
		return hc.Do(req)
	}
	resp, err := get(proxy)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS == nil {
		t.Errorf("GET jobs over https through the proxy: %d, TLS %v", resp.StatusCode, resp.TLS != nil)
	}
	resp, err = get(strings.Replace(proxy, "ci:s3cret-pass@", "", 1))
	if err == nil {
		_ = resp.Body.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "Proxy Authentication Required") {
		t.Errorf("through the proxy without credentials: %v", err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the sandbox did not stop on SIGTERM")
	}
}
