package record

import "github.com/evidence-pinn/bpinn/pkg/bayes"

// Internals the external tests (package record_test) check.
var (
	SettingsMap = settingsMap
	SameData    = sameData
)

// ReadSettings is readSettings, for the tests of the settings' schema.
var ReadSettings = readSettings

// SettingsFields returns, for each key of a record's settings, the pointer
// to its field of s.
func SettingsFields(s *bayes.Settings) map[string]any {
	m := map[string]any{}
	for _, k := range settingsKeys {
		m[k.key] = k.field(s)
	}
	return m
}
