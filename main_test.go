package main

import (
	"maps"
	"testing"
)

// TestLogsCollected follows the engines' reading of TF_LOG_PROVIDER and
// TF_LOG: the provider's level is TF_LOG_PROVIDER's, else TF_LOG's; none
// or OFF collects nothing, and an unknown level is TRACE to the engines.
func TestLogsCollected(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"TF_LOG": ""}, false},
		{map[string]string{"TF_LOG": "OFF"}, false},
		{map[string]string{"TF_LOG": "off"}, false},
		{map[string]string{"TF_LOG_CORE": "TRACE"}, false},
		{map[string]string{"TF_LOG_PATH": "/tmp/tf.log"}, false},
		{map[string]string{"TF_LOG_SDK": "TRACE"}, false},
		{map[string]string{"TF_LOG": "DEBUG"}, true},
		{map[string]string{"TF_LOG": "trace"}, true},
		{map[string]string{"TF_LOG": "JSON"}, true},
		{map[string]string{"TF_LOG": "ERROR"}, true},
		{map[string]string{"TF_LOG": "verbose"}, true},
		{map[string]string{"TF_LOG_PROVIDER": "DEBUG"}, true},
		{map[string]string{"TF_LOG_PROVIDER": "OFF", "TF_LOG": "TRACE"}, false},
		{map[string]string{"TF_LOG_PROVIDER": "INFO", "TF_LOG": "OFF"}, true},
		{map[string]string{"TF_LOG_PROVIDER": "", "TF_LOG": "WARN"}, true},
	} {
		if got := logsCollected(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: logs collected %v, want %v", c.env, got, c.want)
		}
	}
}

// TestSilenceLogs turns off every logger terraform-plugin-log starts in the
// provider: the SDK's, its protocol subsystem's, the framework's and the
// provider's own, named after the provider's type.
func TestSilenceLogs(t *testing.T) {
	set := map[string]string{}
	silenceLogs(func(k, v string) error { set[k] = v; return nil })
	want := map[string]string{"TF_LOG_SDK": "OFF", "TF_LOG_SDK_PROTO": "OFF", "TF_LOG_SDK_FRAMEWORK": "OFF", "TF_LOG_PROVIDER_DATAINTEGRATION": "OFF"}
	if !maps.Equal(set, want) {
		t.Errorf("set %v, want %v", set, want)
	}
}
