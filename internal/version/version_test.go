package version

import (
	"os"
	"regexp"
	"testing"
)

// semver is the form of a release: vMAJOR.MINOR.PATCH.
var semver = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

func TestVersionIsSemantic(t *testing.T) {
	if !semver.MatchString(Version) {
		t.Fatalf("Version %q is not a semantic version vMAJOR.MINOR.PATCH", Version)
	}
}

// TestChangelogNewest holds CHANGELOG.md's newest entry (its first "## "
// heading naming a version) to Version, so a release cannot ship without
// saying what it gives.
func TestChangelogNewest(t *testing.T) {
	src, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## \[?(v[0-9][^\]\s]*)\]?`).FindSubmatch(src)
	if m == nil {
		t.Fatal(`CHANGELOG.md has no version heading ("## v1.2.3 ..."); add one for ` + Version)
	}
	if got := string(m[1]); got != Version {
		t.Errorf("CHANGELOG.md's newest entry is %s, internal/version.Version is %s: write the entry for %s (or bump Version)", got, Version, Version)
	}
}

// TestCitationVersion holds CITATION.cff's version to Version.
func TestCitationVersion(t *testing.T) {
	src, err := os.ReadFile("../../CITATION.cff")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^version: *"?([^"\s]+)"?\s*$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("CITATION.cff has no top-level version")
	}
	if got := string(m[1]); got != Version {
		t.Errorf("CITATION.cff's version is %s, internal/version.Version is %s", got, Version)
	}
}
