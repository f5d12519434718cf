// Package timecmd holds the test of scripts/time-commands.sh, which times
// the README's two commands from a fresh clone.
package timecmd
