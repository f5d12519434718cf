// Package cliflag holds the flag values and the parsing of the bpinn
// command: numbers that must be positive, choices from a list, layer
// sizes, KEY=VALUE lists, seeds and shards, flags that write straight into
// a field of a settings struct (so a flag table needs no copy of the
// struct), flags and positional arguments in any order, errors in the
// words of the help ("--epochs 0: must be positive"), and the --help
// listing generated from a FlagSet. An error a user can make is a
// UsageError: the command prints it in one line and exits 2.
package cliflag
