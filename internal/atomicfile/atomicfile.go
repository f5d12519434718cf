// Package atomicfile writes files that readers see either whole or not at
// all: the CLI's outputs and the report's files, which a run may be killed
// while writing.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path (mode 0644) through a temporary file in the
// same directory, fsynced and renamed over path, then fsyncs the directory
// so the rename survives a crash. Until it returns, path holds its old
// content or does not exist; on error it is untouched and the temporary
// file is removed.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o644)
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		return err
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable
		d.Sync()
		d.Close()
	}
	return nil
}
