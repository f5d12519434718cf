package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/evidence-pinn/bpinn/internal/atomicfile"
)

// Source says where a report's numbers come from: the build that ran the
// fits, the machine, the command and when. Every figure a doc copies from
// a report names its Source (results.json), so that it can be rerun.
type Source struct {
	// Commit is the build's VCS revision ("" when the build carries none:
	// go run without -buildvcs=true); Modified says the tree had changes.
	Commit   string    `json:"commit"`
	Modified bool      `json:"modified,omitempty"`
	Go       string    `json:"go"`
	Date     time.Time `json:"date"`
	Seconds  float64   `json:"seconds"` // wall time, with whatever else ran on the machine
	// CPUSeconds is the process's CPU time (user and system) to the end
	// of the run, which a busy machine does not inflate; 0 if unknown.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	Machine    string  `json:"machine"` // CPU model, cores, OS/arch
	Command    string  `json:"command"`
	Plan       string  `json:"plan"`
}

// Source returns the report's source.
func (r *Report) Source() Source {
	return Source{Commit: r.Version.Revision, Modified: r.Version.Modified, Go: r.Version.Go, Date: r.Started.UTC().Truncate(time.Second),
		Seconds: r.Seconds, CPUSeconds: r.CPUSeconds, Machine: Machine(), Command: r.Config.Command, Plan: r.Config.Plan.Name}
}

// String is the source in one line, as a doc quotes it.
func (s Source) String() string {
	commit := "an unrecorded commit"
	if s.Commit != "" {
		commit = "commit " + s.Commit[:min(len(s.Commit), 7)]
		if s.Modified {
			commit += " (modified)"
		}
	}
	cmd := s.Command
	if cmd == "" {
		cmd = "bpinn reproduce (" + s.Plan + " plan)"
	}
	took := duration(s.Seconds)
	if s.CPUSeconds > 0 {
		took += " (" + duration(s.CPUSeconds) + " CPU)"
	}
	return fmt.Sprintf("`%s` at %s, %s, %s, %s", cmd, commit, s.Date.Format(time.DateOnly), s.Machine, took)
}

func duration(seconds float64) string {
	return time.Duration(seconds * float64(time.Second)).Round(time.Second).String()
}

// Machine describes this machine: its CPU model (where /proc/cpuinfo says
// it), the cores Go may use, and the OS and architecture.
func Machine() string {
	model := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.Join(strings.Fields(v), " ")
				break
			}
		}
		f.Close()
	}
	s := fmt.Sprintf("%d cores, %s/%s", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	if model != "" {
		s = model + ", " + s
	}
	return s
}

// Results is DIR/results.json: the report's tables with their source.
type Results struct {
	Source Source  `json:"source"`
	Tables []Table `json:"tables"`
}

// Table returns the table of the given ID, nil if there is none.
func (r *Results) Table(id string) *Table {
	for i := range r.Tables {
		if r.Tables[i].ID == id {
			return &r.Tables[i]
		}
	}
	return nil
}

// Results returns the page's tables with the run's source.
func (pg *Page) Results() Results {
	return Results{Source: pg.Report.Source(), Tables: pg.Tables}
}

// WriteResults writes r to path as JSON (results.json).
func WriteResults(path string, r Results) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// ReadResults reads a results.json that bpinn reproduce wrote.
func ReadResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("report: %s: %v", path, err)
	}
	if len(r.Tables) == 0 {
		return nil, fmt.Errorf("report: %s holds no tables: is it a results.json of bpinn reproduce?", path)
	}
	return &r, nil
}
