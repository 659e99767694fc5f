package provider

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestFastJobsAnswersAsTheFramework: fastJobs gives the state and the
// diagnostics the framework gives for the same read, configuration by
// configuration: filters, an ordering, a workspace in upper case, nothing
// found, a workspace the key cannot reach, and no workspace at all.
func TestFastJobsAnswersAsTheFramework(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 250})
	framework := func(settings map[string]string) tfprotov6.ProviderServer {
		srv, err := providerserver.NewProtocol6WithError(New("test")())()
		if err != nil {
			t.Fatal(err)
		}
		p := &acctest.ProtoProvider{Server: srv, Schemas: serveProto(t).Schemas}
		cfg := acctest.ProtoValue(t, p.Schemas.Provider, settings)
		resp, err := srv.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{Config: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		acctest.FailOnProto(t, resp.Diagnostics)
		return srv
	}
	withWS := map[string]string{"base_url": e.BaseURL, "api_key": e.APIKey, "workspace_id": e.WorkspaceID}
	noWS := map[string]string{"base_url": e.BaseURL, "api_key": e.APIKey}
	t.Setenv(EnvWorkspaceID, "")
	for _, tc := range []struct {
		name     string
		settings map[string]string
		config   map[string]any
		wantErr  string
	}{
		{"every job", withWS, nil, ""},
		{"filters and an ordering", withWS, map[string]any{"is_active": true, "ordering": "-name"}, ""},
		{"workspace in upper case", withWS, map[string]any{"workspace_id": strings.ToUpper(e.WorkspaceID)}, ""},
		{"nothing found", withWS, map[string]any{"name": "no such job"}, ""},
		{"a workspace out of reach", withWS, map[string]any{"workspace_id": acctest.SecondWorkspace}, "Access Denied"},
		{"no workspace", noWS, nil, "Missing Workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fast := newProtoProvider(t, tc.settings)
			plain := framework(tc.settings)
			cfg := acctest.ProtoValue(t, fast.Schemas.DataSourceSchemas[jobsTypeName], tc.config)
			req := &tfprotov6.ReadDataSourceRequest{TypeName: jobsTypeName, Config: &cfg}
			got, err1 := fast.Server.ReadDataSource(context.Background(), req)
			want, err2 := plain.ReadDataSource(context.Background(), req)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if n := fast.Server.(*secretLines).fullServer.(*fastJobs).answered.Load(); n != 1 {
				t.Fatalf("fastJobs answered %d reads, want 1", n)
			}
			if len(got.Diagnostics) != len(want.Diagnostics) {
				t.Fatalf("diagnostics: %v, the framework's %v", got.Diagnostics, want.Diagnostics)
			}
			for i, d := range got.Diagnostics {
				w := want.Diagnostics[i]
				if d.Severity != w.Severity || d.Summary != w.Summary || d.Detail != w.Detail || !d.Attribute.Equal(w.Attribute) {
					t.Errorf("diagnostic %d: %+v, the framework's %+v", i, d, w)
				}
			}
			if tc.wantErr != "" {
				if len(got.Diagnostics) == 0 || got.Diagnostics[0].Summary != tc.wantErr {
					t.Errorf("want %q, got %v", tc.wantErr, got.Diagnostics)
				}
				return
			}
			typ := fast.Schemas.DataSourceSchemas[jobsTypeName].ValueType()
			gv, err1 := got.State.Unmarshal(typ)
			wv, err2 := want.State.Unmarshal(typ)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !gv.Equal(wv) {
				t.Errorf("the states differ:\n%v\nthe framework's:\n%v", gv, wv)
			}
			// Byte for byte, so that whatever an engine reads of the
			// framework's, it reads of these.
			if !bytes.Equal(got.State.MsgPack, want.State.MsgPack) {
				t.Errorf("the encoded states differ (%d bytes, the framework's %d)", len(got.State.MsgPack), len(want.State.MsgPack))
			}
			if n := fast.JobsInState(t, got.State); n == 0 && tc.name != "nothing found" {
				t.Error("no job read: the comparison proved nothing")
			}
		})
	}
}
