package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// NewServer is the provider served over protocol 6, as main.go serves it
// and as the tests load it: the framework's server, with fastJobs, behind
// secretLines.
func NewServer(version string) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		p := &dataIntegrationProvider{version: version}
		inner, err := providerserver.NewProtocol6WithError(p)()
		if err != nil {
			return nil, err
		}
		full, ok := inner.(fullServer)
		if !ok {
			// Never served without secretLines: a framework whose server
			// lacks the list resources' or actions' RPCs is refused.
			return nil, fmt.Errorf("the framework's server %T does not answer every RPC the provider needs", inner)
		}
		return &secretLines{fullServer: &fastJobs{fullServer: full, p: p}}, nil
	}
}

// fullServer is every RPC the provider answers: those of a provider server,
// and the list resources' and actions', which terraform-plugin-go still
// asks for by separate interfaces.
type fullServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
}

// secretLines keeps an engine from printing a secret written literally in a
// configuration. Under a diagnostic that points at an attribute, Terraform
// and OpenTofu print the configuration line of that attribute: for api_key,
// token or token_wo, `token = "tok-…"`, on every plan, into CI logs that
// many people read. So no diagnostic of the provider points at a sensitive
// or write-only attribute: each is moved to the block that holds it (the
// engine then prints the block's first line, `resource "…" "…" {`) and its
// detail names the attribute. Working on the answers of the RPCs, it also
// covers the diagnostics the provider's code never sees: the framework's
// (a write-only value on an engine without write-only attributes) and the
// validators' (two conflicting attributes).
type secretLines struct {
	fullServer

	once sync.Once
	// secret holds, for the provider ("") and each resource type, the names
	// of its sensitive and write-only attributes, from the schemas.
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

// hide moves each diagnostic that points at a secret attribute of the
// provider ("") or of resource type typeName to the block that holds it.
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

// secretAttributes are the names of the sensitive and write-only top-level
// attributes of the provider ("") and of each resource type.
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
			if a.Sensitive || a.WriteOnly {
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
