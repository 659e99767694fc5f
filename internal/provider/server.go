package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/jobsfastpath"
)

// NewServer is the provider served over protocol 6, as main.go and the tests
// serve it: the framework's server, with the jobs fast path in front of it
// (jobsfastpath, jobs_fast_path.go), behind secretLines.
func NewServer(version string) func() (tfprotov6.ProviderServer, error) {
	return NewServerWithEnv(version, os.Getenv)
}

// NewServerWithEnv is NewServer reading the environment through getenv.
func NewServerWithEnv(version string, getenv func(string) string) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		p := &dataIntegrationProvider{version: version, getenv: getenv}
		inner, err := providerserver.NewProtocol6WithError(p)()
		if err != nil {
			return nil, err
		}
		full, ok := inner.(fullServer)
		if !ok {
			// A framework that lacks an RPC would serve without secretLines: refused.
			return nil, fmt.Errorf("the framework's server %T does not answer every RPC the provider needs", inner)
		}
		return &secretLines{fullServer: jobsfastpath.New(full, jobsSource{p})}, nil
	}
}

// fullServer is every RPC the provider answers.
type fullServer = jobsfastpath.FullServer

// secretLines moves every diagnostic on a sensitive or write-only attribute, or one
// that may carry a credential (credentialAttributes), to its block, naming the
// attribute in its detail: an engine prints the configuration line of the attribute
// a diagnostic points at, and with it a literal secret, into CI logs. Working on the
// RPCs' answers, it covers the framework's diagnostics too.
type secretLines struct {
	fullServer

	once sync.Once
	// secret holds the secret attribute names of the provider ("") and of each resource type.
	secret map[string]map[string]bool
}

var _ fullServer = (*secretLines)(nil)

func (s *secretLines) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := s.fullServer.ValidateProviderConfig(ctx, req)
	if resp != nil {
		s.hide(ctx, "", resp.Diagnostics)
	}
	return resp, err
}

func (s *secretLines) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	resp, err := s.fullServer.ConfigureProvider(ctx, req)
	if resp != nil {
		s.hide(ctx, "", resp.Diagnostics)
	}
	return resp, err
}

func (s *secretLines) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := s.fullServer.ValidateResourceConfig(ctx, req)
	if resp != nil {
		s.hide(ctx, req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s *secretLines) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.fullServer.PlanResourceChange(ctx, req)
	if resp != nil {
		s.hide(ctx, req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s *secretLines) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.fullServer.ApplyResourceChange(ctx, req)
	if resp != nil {
		s.hide(ctx, req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s *secretLines) hide(ctx context.Context, typeName string, diags []*tfprotov6.Diagnostic) {
	s.once.Do(func() { s.secret = secretAttributes(ctx, s.fullServer) })
	for _, d := range diags {
		if d == nil || d.Attribute == nil || len(d.Attribute.Steps()) == 0 {
			continue
		}
		name, ok := d.Attribute.Steps()[0].(tftypes.AttributeName)
		if !ok || !s.secret[typeName][string(name)] {
			continue
		}
		d.Attribute = nil
		if !strings.Contains(d.Detail, string(name)) {
			d.Detail = string(name) + ": " + d.Detail
		}
	}
}

// credentialAttributes are the attributes, neither sensitive nor write-only, whose
// value may carry a credential: a URL's user information (https://user:password@host),
// or a private key pasted among certificates.
var credentialAttributes = map[string]bool{"base_url": true, "url": true, "ca_certificate": true}

func secretAttributes(ctx context.Context, srv tfprotov6.ProviderServer) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	resp, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || resp == nil {
		return out
	}
	add := func(typeName string, s *tfprotov6.Schema) {
		if s == nil || s.Block == nil {
			return
		}
		for _, a := range s.Block.Attributes {
			if a.Sensitive || a.WriteOnly || credentialAttributes[a.Name] {
				if out[typeName] == nil {
					out[typeName] = map[string]bool{}
				}
				out[typeName][a.Name] = true
			}
		}
	}
	add("", resp.Provider)
	for name, s := range resp.ResourceSchemas {
		add(name, s)
	}
	return out
}
