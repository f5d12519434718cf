package record

// Internals the external tests (package record_test) check.
var (
	SettingsMap = settingsMap
	SameData    = sameData
)
