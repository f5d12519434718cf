package main

import (
	"context"

	"github.com/evidence-pinn/bpinn/internal/cliflag"
)

// What every command's file shares; main.go, the table of commands, sits
// above them all.

// env is what a command runs with: its arguments' streams.
type env = cliflag.Env

// interrupt ends with the first Ctrl-C or SIGTERM: a fit stops at its next
// epoch as cancelled and is still recorded, an ensemble keeps the fits that
// ended (a second Ctrl-C kills the process as usual: interruptible).
var interrupt = context.Background()

// usagef and asUsage make bad input: the command prints it in one line
// and exits 2.
var usagef, asUsage = cliflag.Usagef, cliflag.AsUsage

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // I/O and other runtime failures
	exitUsage = 2 // bad input
)
