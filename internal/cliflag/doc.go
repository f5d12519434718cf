// Package cliflag is the command line's machinery, apart from the choices
// of the bpinn command: a program of subcommands (Program, Command: the
// dispatch, each command's --help generated from its FlagSet, errors in one
// line with their exit codes by Report), flags and positional arguments in
// any order (Parse), errors in the words of the help ("--epochs 0: must be
// positive"), and flag values: numbers that must be positive, choices from
// a list, layer sizes, KEY=VALUE lists, seeds and shards, and flags that
// write straight into a field of a settings struct (Into, OneOf, Bool,
// Int, OptInt, ...), so that a table of flags fills the struct without a
// copy of its fields. An error a user can make is a UsageError: the
// command prints it in one line and exits 2.
package cliflag
