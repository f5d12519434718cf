package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteJSON(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "a.json")
	if err := WriteJSON(ok, map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(ok); err != nil || string(b) != "{\n  \"x\": 1\n}\n" {
		t.Errorf("wrote %q, %v", b, err)
	}
	// Neither the path nor the temporary directory can be written: the
	// error says both.
	gone := filepath.Join(dir, "gone")
	t.Setenv("TMPDIR", gone)
	err := WriteJSON(filepath.Join(gone, "b.json"), 1)
	if err == nil || !strings.Contains(err.Error(), "cannot write "+gone) || !strings.Contains(err.Error(), "and not in "+gone) {
		t.Errorf("got %v", err)
	}
}
