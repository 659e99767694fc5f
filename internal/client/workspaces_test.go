package client

import (
	"sync"
	"testing"
)

func TestWorkspaces_oneValuePerWorkspaceInAnyCase(t *testing.T) {
	var r Workspaces[int]
	made := 0
	fresh := func() *int { made++; v := made * 10; return &v }
	a := r.Of("3F2504E0-4F89-11D3-9A0C-0305E82C3301", fresh)
	b := r.Of("3f2504e0-4f89-11d3-9a0c-0305e82c3301", fresh)
	c := r.Of("another", fresh)
	if a != b || *a != 10 {
		t.Errorf("one workspace in two letter cases: %p (%d) and %p", a, *a, b)
	}
	if c == a || *c != 20 || made != 2 {
		t.Errorf("a second workspace: %p (%d), %d made; want a value of its own, 2 made", c, *c, made)
	}
}

func TestWorkspaces_zeroValueWithoutFresh(t *testing.T) {
	var r Workspaces[[]string]
	v := r.Of("ws", nil)
	*v = append(*v, "kept")
	if got := *r.Of("WS", nil); len(got) != 1 || got[0] != "kept" {
		t.Errorf("the value after an append through another letter case: %q", got)
	}
}

func TestWorkspaces_concurrentFirstUses(t *testing.T) {
	var r Workspaces[sync.Mutex]
	got := make([]*sync.Mutex, 32)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			ws := "ws"
			if i%2 == 1 {
				ws = "WS"
			}
			got[i] = r.Of(ws, nil)
		})
	}
	wg.Wait()
	for i, v := range got {
		if v != got[0] {
			t.Fatalf("use %d got another value than use 0", i)
		}
	}
}
