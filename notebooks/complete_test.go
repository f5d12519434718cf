package notebooks_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestKernelCompletion asks the GoNB kernel, as Jupyter's Tab and Shift-Tab
// do (complete_request, inspect_request), to complete "runner.TrainE" and to
// show the help of what it completed: gopls, which scripts/setup.sh
// installs from tools/gopls, must answer with TrainEnsemble and its doc.
func TestKernelCompletion(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kernel and gopls; skipped under -short")
	}
	k := installKernel(t)
	code := "import \"github.com/evidence-pinn/bpinn/pkg/runner\"\n\nfunc f() { runner.TrainE"
	python := pythonWith("jupyter_client")
	if python == "" {
		t.Fatal("no python3 imports jupyter_client (Jupyter's own library): run scripts/setup.sh")
	}
	cmd := exec.CommandContext(t.Context(), python, filepath.Join("testdata", "complete.py"), setupCell(t), code)
	cmd.Env = k.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("complete.py: %v\n%s", err, tail(stderr.String(), 30))
	}
	var r struct {
		Setup    string
		Seconds  float64
		Complete struct{ Matches []string }
		Inspect  struct {
			Found bool
			Data  map[string]string
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("complete.py printed %q: %v\n%s", out, err, tail(stderr.String(), 30))
	}
	t.Logf("gopls answered after %.1f s: %q", r.Seconds, r.Complete.Matches)
	if r.Setup != "ok" {
		t.Errorf("the setup cell ended %q", r.Setup)
	}
	if !slices.Contains(r.Complete.Matches, "TrainEnsemble") {
		t.Errorf("completion of runner.TrainE: %q, want TrainEnsemble (is gopls installed? scripts/setup.sh go)", r.Complete.Matches)
	}
	help := r.Inspect.Data["text/markdown"] + r.Inspect.Data["text/plain"]
	if !r.Inspect.Found || !strings.Contains(help, "func runner.TrainEnsemble(ctx context.Context") {
		t.Errorf("help on runner.TrainEnsemble: found %v, %q; want its signature", r.Inspect.Found, help)
	}
}
