package sandbox

import (
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Proxy is a CONNECT proxy of the kind corporate networks run. It tunnels
// to its upstream whatever the host asked, so that the service can be named
// by a host name only the certificate knows, and never leaves this machine.
type Proxy struct {
	user, password, upstreamAddr string

	mu          sync.Mutex
	targets     []string
	upstream    map[string]bool
	refusedAuth int
}

// NewProxy asks for no credentials when user is empty, and tunnels to the
// port asked on 127.0.0.1 when upstream is empty.
func NewProxy(user, password, upstream string) *Proxy {
	return &Proxy{user: user, password: password, upstreamAddr: upstream, upstream: map[string]bool{}}
}

// Targets are the host:port of each CONNECT the proxy tunnelled.
func (p *Proxy) Targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...)
}

// Tunnelled tells whether the service's client at remoteAddr is the proxy.
func (p *Proxy) Tunnelled(remoteAddr string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.upstream[remoteAddr]
}

// RefusedAuth counts the CONNECTs answered 407.
func (p *Proxy) RefusedAuth() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refusedAuth
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "this proxy only tunnels CONNECT", http.StatusMethodNotAllowed)
		return
	}
	if p.user != "" && !p.authorized(r.Header.Get("Proxy-Authorization")) {
		p.mu.Lock()
		p.refusedAuth++
		p.mu.Unlock()
		w.Header().Set("Proxy-Authenticate", `Basic realm="dataintegration sandbox"`)
		w.WriteHeader(http.StatusProxyAuthRequired)
		return
	}
	_, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	addr := p.upstreamAddr
	if addr == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	up, err := net.Dial("tcp", addr)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	p.mu.Lock()
	p.targets = append(p.targets, r.Host)
	p.upstream[up.LocalAddr().String()] = true
	p.mu.Unlock()
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = up.Close()
		http.Error(w, "cannot tunnel", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	down, buf, err := hj.Hijack()
	if err != nil {
		_ = up.Close()
		return
	}
	go pipe(up, buf.Reader, down)
	go pipe(down, up, up)
}

func (p *Proxy) authorized(h string) bool {
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic "))
	return err == nil && strings.HasPrefix(h, "Basic ") && string(b) == p.user+":"+p.password
}

func pipe(dst io.WriteCloser, src io.Reader, closer io.Closer) {
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
	_ = closer.Close()
}
