package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/atomicfile"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	for _, want := range []string{"first\n", "second, longer\n", ""} {
		if err := atomicfile.Write(path, []byte(want)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o644 {
		t.Errorf("got mode %v, want 0644", got)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) != 0 {
		t.Errorf("temporary files left behind: %v", names)
	}
}

func TestWriteFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A directory in the way: the rename fails, nothing is left behind.
	path := filepath.Join(dir, "taken")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(path, []byte("data")); err == nil {
		t.Error("got no error writing over a non-empty directory")
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) != 0 {
		t.Errorf("temporary files left behind: %v", names)
	}
	if err := atomicfile.Write(filepath.Join(dir, "missing", "f"), nil); err == nil {
		t.Error("got no error writing into a missing directory")
	}
}
