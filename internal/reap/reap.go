// Package reap finds and ends the processes a test started, however far
// they detached: a process group of their own (GoNB starts gopls in one, so
// that Jupyter's interrupts do not reach it), a parent that died (a kernel
// killed at shutdown), a daemon's children. It finds them by a mark in their
// environment, which every descendant inherits unless it clears it, through
// /proc (Linux; elsewhere nothing is found).
package reap

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// markPrefix begins the name of a mark's environment variable.
const markPrefix = "BPINN_REAP_"

// NewMark returns an environment entry ("NAME=1") unique to this call:
// give it to the processes a test starts, and Pids finds them and what they
// start. Each mark is a variable of its own, so that a process can carry
// several (its test's and its run's).
func NewMark() string {
	b := make([]byte, 12)
	rand.Read(b)
	return markPrefix + hex.EncodeToString(b) + "=1"
}

// Pids returns the live processes, this one apart, whose environment holds
// mark (an entry from NewMark, or any "NAME=value").
func Pids(mark string) []int {
	want := []byte(mark + "\x00")
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(p)
		if err == nil && bytes.Contains(env, want) && Alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Alive reports whether pid runs (a zombie, dead but not reaped, does not).
func Alive(pid int) bool {
	_, ok := procStat(pid)
	return ok
}

// Group returns the live processes of the process group pgid.
func Group(pgid int) []int {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil {
			continue
		}
		if g, ok := procStat(pid); ok && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat returns the process group of pid and whether pid is alive
// (neither gone nor a zombie), from /proc/PID/stat.
func procStat(pid int) (pgid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// After the command name in parentheses: state, ppid, pgrp.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 || f[0] == "Z" {
		return 0, false
	}
	pgid, err = strconv.Atoi(f[2])
	return pgid, err == nil
}

// describe names pid by its command, as "gopls (pid 123)".
func describe(pid int) string {
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return fmt.Sprintf("pid %d", pid)
	}
	return fmt.Sprintf("%s (pid %d)", strings.TrimSpace(string(comm)), pid)
}

// Kill ends every process that carries mark: SIGTERM first, so that a
// kernel can stop its own children, SIGKILL to what is left after grace.
// It returns the processes it found, described as "gopls (pid 123)", and an
// error naming those that survived SIGKILL.
func Kill(mark string, grace time.Duration) (found []string, err error) {
	pids := Pids(mark)
	if len(pids) == 0 {
		return nil, nil
	}
	for _, pid := range pids {
		found = append(found, describe(pid))
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	waitGone(mark, grace)
	for _, pid := range Pids(mark) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	waitGone(mark, 5*time.Second)
	var left []string
	for _, pid := range Pids(mark) {
		left = append(left, describe(pid))
	}
	if len(left) > 0 {
		return found, fmt.Errorf("still running after SIGKILL: %s", strings.Join(left, ", "))
	}
	return found, nil
}

// waitGone polls until no process carries mark or d has passed.
func waitGone(mark string, d time.Duration) {
	for end := time.Now().Add(d); len(Pids(mark)) > 0 && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
}

// Cleanup returns a new mark and registers a cleanup on t that ends every
// process still carrying it when t ends (logging what it ended) and fails t
// if one survives. Give the mark to every process t starts.
func Cleanup(t testing.TB) string {
	t.Helper()
	mark := NewMark()
	t.Cleanup(func() {
		found, err := Kill(mark, 5*time.Second)
		if len(found) > 0 {
			t.Logf("ended %d process(es) the test left running: %s", len(found), strings.Join(found, ", "))
		}
		if err != nil {
			t.Error(err)
		}
	})
	return mark
}
