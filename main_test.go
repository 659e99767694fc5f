package main

import (
	"maps"
	"testing"
)

// TestLogging_providerLogLevel follows the engines' reading of TF_LOG_PROVIDER and
// TF_LOG: the provider's level is TF_LOG_PROVIDER's, else TF_LOG's, in any
// letter case; none or OFF keeps nothing, and JSON or an unknown level is
// TRACE to the engines.
func TestLogging_providerLogLevel(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, ""},
		{map[string]string{"TF_LOG": ""}, ""},
		{map[string]string{"TF_LOG": "OFF"}, ""},
		{map[string]string{"TF_LOG": "off"}, ""},
		{map[string]string{"TF_LOG_CORE": "TRACE"}, ""},
		{map[string]string{"TF_LOG_PATH": "/tmp/tf.log"}, ""},
		{map[string]string{"TF_LOG_SDK": "TRACE"}, ""},
		{map[string]string{"TF_LOG": "DEBUG"}, "DEBUG"},
		{map[string]string{"TF_LOG": "trace"}, "TRACE"},
		{map[string]string{"TF_LOG": "JSON"}, "TRACE"},
		{map[string]string{"TF_LOG": "Error"}, "ERROR"},
		{map[string]string{"TF_LOG": "verbose"}, "TRACE"},
		{map[string]string{"TF_LOG": " debug"}, "TRACE"},
		{map[string]string{"TF_LOG_PROVIDER": "DEBUG"}, "DEBUG"},
		{map[string]string{"TF_LOG_PROVIDER": "OFF", "TF_LOG": "TRACE"}, ""},
		{map[string]string{"TF_LOG_PROVIDER": "INFO", "TF_LOG": "OFF"}, "INFO"},
		{map[string]string{"TF_LOG_PROVIDER": "warn", "TF_LOG": "TRACE"}, "WARN"},
		{map[string]string{"TF_LOG_PROVIDER": "", "TF_LOG": "WARN"}, "WARN"},
	} {
		if got := providerLogLevel(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: level %q, want %q", c.env, got, c.want)
		}
	}
}

// TestLogging_setLogLevels sets every logger terraform-plugin-log starts in the
// provider (the SDK's, its protocol subsystem's, the framework's and the
// provider's own, named after the provider's type): all of them to OFF when
// no one collects the logs, else those the user left unset to the level
// the engine keeps.
func TestLogging_setLogLevels(t *testing.T) {
	user := map[string]string{"TF_LOG_SDK_PROTO": "OFF"}
	for _, c := range []struct {
		level string
		want  map[string]string
	}{
		{"", map[string]string{"TF_LOG_SDK": "OFF", "TF_LOG_SDK_PROTO": "OFF", "TF_LOG_SDK_FRAMEWORK": "OFF", "TF_LOG_PROVIDER_DATAINTEGRATION": "OFF"}},
		{"WARN", map[string]string{"TF_LOG_SDK": "WARN", "TF_LOG_SDK_FRAMEWORK": "WARN", "TF_LOG_PROVIDER_DATAINTEGRATION": "WARN"}},
	} {
		set := map[string]string{}
		setLogLevels(func(k string) string { return user[k] }, func(k, v string) error { set[k] = v; return nil }, c.level)
		if !maps.Equal(set, c.want) {
			t.Errorf("%s: set %v, want %v", c.level, set, c.want)
		}
	}
}
