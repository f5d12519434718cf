package atomicfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// WriteJSON writes v as indented JSON to path atomically (readers never see
// a partial file). A command checks path before it works, but it can
// still go away during a long run; then the results are written to a new
// file in the temporary directory, so that finished work is not lost, and
// the error names it.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	err = Write(path, b)
	if err == nil {
		return nil
	}
	f, rerr := os.CreateTemp("", "bpinn-*-"+filepath.Base(path))
	if rerr == nil {
		_, rerr = f.Write(b)
		if cerr := f.Close(); rerr == nil {
			rerr = cerr
		}
	}
	if rerr != nil {
		return fmt.Errorf("cannot write %s: %v (and not in %s either: %v)", path, err, os.TempDir(), rerr)
	}
	return fmt.Errorf("cannot write %s: %v; the results are saved in %s", path, err, f.Name())
}
