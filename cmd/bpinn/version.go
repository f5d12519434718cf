package main

import (
	"flag"
	"fmt"

	"github.com/evidence-pinn/bpinn/internal/version"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

const versionText = "Prints the release (a semantic version), the module version, the VCS revision if recorded, and the Go version."

// setupVersion: bpinn version prints the release, then the build's module
// version, VCS revision and Go version: the same build information a JSON
// record holds.
func setupVersion(*flag.FlagSet) func([]string, env) error {
	return func(pos []string, e env) error {
		if len(pos) > 0 {
			return usagef("takes no arguments, got %q", pos)
		}
		_, err := fmt.Fprintf(e.Stdout, "bpinn %s %s\n", version.Version, record.Version())
		return err
	}
}
