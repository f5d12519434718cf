package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/evidence-pinn/bpinn/internal/cliflag"

	"github.com/evidence-pinn/bpinn/internal/version"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// cmdVersion prints the release, then the build's module version, VCS
// revision and Go version: the same build information a JSON record holds.
func cmdVersion(args []string, stdout, stderr io.Writer) int {
	fs := cliflag.NewFlagSet("version")
	pos, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		cliflag.PrintUsage(stdout, fs, "bpinn version", "Prints the release (a semantic version), the module version, the VCS revision if recorded, and the Go version.", "")
		return exitOK
	}
	if err == nil && len(pos) > 0 {
		err = usagef("takes no arguments, got %q", pos)
	}
	if err != nil {
		return report(stderr, "version", err)
	}
	v := record.Version()
	fmt.Fprintf(stdout, "bpinn %s %s %s", version.Version, v.Module, v.Version)
	if v.Revision != "" {
		fmt.Fprintf(stdout, " (%s", v.Revision)
		if v.Modified {
			fmt.Fprint(stdout, ", modified")
		}
		fmt.Fprint(stdout, ")")
	}
	fmt.Fprintf(stdout, " %s\n", v.Go)
	return exitOK
}
