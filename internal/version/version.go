// Package version holds the toolkit's release number, the one place it is
// written: `bpinn version` prints it, and its test holds CHANGELOG.md's
// newest entry and CITATION.cff to it.
package version

// Version is the toolkit's release, a semantic version: the minor number
// grows with what a user gains, the patch number with fixes. JSON records
// do not carry it (they record the build's module version and VCS revision),
// so a release leaves every record as it was.
const Version = "v0.1.0"
