//go:build !amd64 || purego

package cpu

func detect() bool { return false }
