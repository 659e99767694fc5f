package validate

import (
	"strings"
	"testing"
)

func TestUUID(t *testing.T) {
	for _, ok := range []string{"00000000-0000-4000-8000-000000000001", "7B0C6F5E-3F7C-4C55-9D55-1C6F3E0D2A10"} {
		if err := UUID(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "workspace", "7b0c6f5e3f7c4c559d551c6f3e0d2a10", "{7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10}",
		"urn:uuid:7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10", "7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a1g", " 7b0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10"} {
		if err := UUID(bad); err == nil || !strings.Contains(err.Error(), "is not a UUID") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestBaseURL(t *testing.T) {
	for _, ok := range []string{"https://api.example.com", "https://api.example.com/", "https://api.example.com:8443/v1/",
		"http://127.0.0.1:8089", "http://127.5.0.1/", "http://localhost:8089", "http://LOCALHOST", "http://[::1]:8089/"} {
		if err := BaseURL(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"http://api.example.com", "not loopback"},
		{"http://10.0.0.1", "not loopback"},
		{"http://127.0.0.1.example.com", "not loopback"},
		{"ftp://api.example.com", `scheme "ftp"`},
		{"api.example.com", "not an absolute URL"},
		{"/v1", "not an absolute URL"},
		{"", "not an absolute URL"},
		{"https://", "not an absolute URL"},
		{"https://api.example.com/?a=1", "query or fragment"},
		{"https://api.example.com/?", "query or fragment"},
		{"https://api.example.com/#top", "query or fragment"},
		{"https://user:hunter2@api.example.com", "user information"},
		{"https://api.example.com:port", "not a URL"},
	} {
		err := BaseURL(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.in, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: the error shows the password: %v", c.in, err)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, ok := range []string{"30s", "2m", "1h30m", "500ms"} {
		if err := Duration(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "30", "soon", "0s", "-5s"} {
		if err := Duration(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
