package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The service may answer the streams in another order: that is not a change.
func TestConnector_streamsValueKeepsThePriorOrder(t *testing.T) {
	t.Parallel()
	prior := stringList([]string{"tickets", "chats"})
	for _, c := range []struct {
		got  []string
		want types.List
	}{
		{[]string{"chats", "tickets"}, prior},
		{[]string{"tickets", "chats"}, prior},
		{[]string{"chats"}, stringList([]string{"chats"})},
		{[]string{"chats", "messages"}, stringList([]string{"chats", "messages"})},
		{[]string{"chats", "tickets", "events"}, stringList([]string{"chats", "tickets", "events"})},
	} {
		if got := streamsValue(c.got, prior); !got.Equal(c.want) {
			t.Errorf("streamsValue(%q) = %v, want %v", c.got, got, c.want)
		}
	}
	if got := streamsValue([]string{"chats"}, types.ListNull(types.StringType)); !got.Equal(stringList([]string{"chats"})) {
		t.Errorf("after import: %v", got)
	}
}
