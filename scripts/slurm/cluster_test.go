package slurm_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evidence-pinn/bpinn/internal/reap"
)

// cluster is a one-node Slurm cluster of a test's own: munged, slurmctld
// and slurmd as root on the loopback address, with their key, socket,
// configuration, state, spool, pid and log files in a temporary folder and
// ports found free, so that it neither needs nor touches a system Slurm.
type cluster struct {
	dir     string
	conf    string   // its slurm.conf; SLURM_CONF in env
	env     []string // for client commands and the daemons
	daemons []*exec.Cmd
	cpus    int // the node's CPUs: the cores the Go runtime may use
}

const prSetChildSubreaper = 36 // prctl option, linux/prctl.h

// slurmBinaries are what the cluster runs; Debian's slurm-wlm and munge
// (scripts/setup.sh) install them, the daemons into /usr/sbin.
var slurmBinaries = []string{"munged", "slurmctld", "slurmd", "slurmstepd", "sbatch", "squeue", "scontrol", "scancel", "sinfo"}

// skipOutsideCI skips the test for a missing tool, except in CI (CI=true),
// where the setup must have installed it, so the test fails.
func skipOutsideCI(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true, so this fails instead of skipping)")
	}
	t.Skip(msg)
}

// startCluster starts the cluster and registers its teardown, which stops
// every process it started, whatever the test does; ctx bounds the waits.
func startCluster(ctx context.Context, t *testing.T) *cluster {
	t.Helper()
	path := os.Getenv("PATH") + ":/usr/sbin:/sbin"
	var missing []string
	for _, b := range slurmBinaries {
		if _, err := lookPath(b, path); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		skipOutsideCI(t, "the Slurm test needs "+strings.Join(missing, ", ")+": run scripts/setup.sh as root (it installs Debian's slurm-wlm and munge)")
	}
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "the Slurm test runs slurmd, which starts jobs as their users, and so needs root")
	}

	// Not t.TempDir: munged wants every folder above its socket open to
	// all (o+x), and t.TempDir's parent is 0700.
	dir, err := os.MkdirTemp("", "bpinn-slurm-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chmod(dir, 0o755))
	c := &cluster{dir: dir, cpus: runtime.NumCPU()}
	c.conf = filepath.Join(c.dir, "slurm.conf")
	c.env = append(os.Environ(), "SLURM_CONF="+c.conf, "PATH="+path)
	t.Cleanup(func() { c.stop(t) }) // before any daemon starts: runs after a failure too
	// The daemons' orphans (slurmctld's slurmscriptd when slurmctld exits
	// first, the slurmstepds that detach from slurmd) become children of
	// this process, which stop reaps, instead of zombies of pid 1.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Logf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
	}

	// Munge: a key of our own (the key is random bytes; munged wants 0400).
	key := make([]byte, 1024)
	rand.Read(key)
	must(t, os.WriteFile(c.file("munge.key"), key, 0o400))
	socket := c.file("munge.sock")
	c.start(ctx, t, "munged", "--foreground", "--socket="+socket, "--key-file="+c.file("munge.key"),
		"--pid-file="+c.file("munged.pid"), "--log-file="+c.file("munged.log"), "--seed-file="+c.file("munged.seed"))
	c.waitFor(ctx, t, "munged's socket", func() bool { _, err := os.Stat(socket); return err == nil })

	ports := freePorts(t, 2)
	for _, d := range []string{"state", "spool"} {
		must(t, os.Mkdir(c.file(d), 0o755))
	}
	// CR_Core: cores are allocated, memory is only checked against
	// RealMemory (2048 MB: what ensemble.sbatch asks for with --mem=2G).
	conf := fmt.Sprintf(`ClusterName=bpinntest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=%d
SlurmdPort=%d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%s
CredType=cred/munge
StateSaveLocation=%s
SlurmdSpoolDir=%s
SlurmctldPidFile=%s
SlurmdPidFile=%s
SlurmctldLogFile=%s
SlurmdLogFile=%s
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=600
NodeName=bpinn1 NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=%d RealMemory=2048 State=UNKNOWN
PartitionName=test Nodes=bpinn1 Default=YES MaxTime=INFINITE State=UP
`, ports[0], ports[1], socket, c.file("state"), c.file("spool"), c.file("slurmctld.pid"), c.file("slurmd.pid"),
		c.file("slurmctld.log"), c.file("slurmd.log"), c.cpus)
	must(t, os.WriteFile(c.conf, []byte(conf), 0o644))
	c.start(ctx, t, "slurmctld", "-D", "-i", "-f", c.conf)
	c.start(ctx, t, "slurmd", "-D", "-N", "bpinn1", "-f", c.conf)
	c.waitFor(ctx, t, "the node to be idle", func() bool {
		out, err := c.run(ctx, "", "sinfo", "-h", "-N", "-o", "%T")
		return err == nil && strings.TrimSpace(out) == "idle"
	})
	return c
}

func (c *cluster) file(name string) string { return filepath.Join(c.dir, name) }

// start starts a daemon in the foreground in a process group of its own,
// its output into DAEMON.out. Pdeathsig kills it should the test binary
// die without its cleanups (a panic, go test's -timeout).
func (c *cluster) start(ctx context.Context, t *testing.T, name string, args ...string) {
	t.Helper()
	out, err := os.Create(c.file(name + ".out"))
	must(t, err)
	defer out.Close()
	bin, err := lookPath(name, c.path())
	must(t, err)
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr, cmd.Dir = c.env, out, out, c.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	c.daemons = append(c.daemons, cmd)
	go cmd.Wait() // reaps it; stop checks by pid that it ended
	time.Sleep(50 * time.Millisecond)
	if !reap.Alive(cmd.Process.Pid) {
		t.Fatalf("%s exited at once:\n%s", name, c.tail(name+".out"))
	}
}

// setEnv sets a variable of the client commands' (and so the jobs')
// environment.
func (c *cluster) setEnv(name, value string) {
	c.env = append(slices.DeleteFunc(c.env, func(e string) bool { return strings.HasPrefix(e, name+"=") }), name+"="+value)
}

func (c *cluster) path() string {
	for _, e := range c.env {
		if p, ok := strings.CutPrefix(e, "PATH="); ok {
			return p
		}
	}
	return ""
}

// stop ends every process of the cluster by pid: the jobs' processes (the
// slurmstepds, which detach from slurmd, and what they run: each carries
// this cluster's SLURM_CONF in its environment), then the daemons' process
// groups, SIGTERM first, SIGKILL after 5 s. It fails the test if one
// survives.
func (c *cluster) stop(t *testing.T) {
	if t.Failed() {
		for _, f := range []string{"slurmctld.log", "slurmd.log", "munged.out"} {
			t.Logf("%s:\n%s", f, c.tail(f))
		}
	}
	for _, pid := range c.jobPids() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	// SIGTERM to the daemon itself, not its group: slurmctld then stops
	// and reaps its slurmscriptd, which would otherwise linger as a zombie.
	for _, d := range slices.Backward(c.daemons) {
		syscall.Kill(d.Process.Pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, d := range c.daemons {
		for len(reap.Group(d.Process.Pid)) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		syscall.Kill(-d.Process.Pid, syscall.SIGKILL)
	}
	var left []string
	for try := 0; try < 50; try++ { // a step that started while slurmd stopped, the last SIGKILLs landing
		for _, pid := range c.jobPids() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
		left = left[:0]
		for _, d := range c.daemons {
			for _, pid := range reap.Group(d.Process.Pid) {
				left = append(left, fmt.Sprintf("%s's process %d", filepath.Base(d.Path), pid))
			}
		}
		for _, pid := range c.jobPids() {
			left = append(left, fmt.Sprintf("job process %d", pid))
		}
		if len(left) == 0 {
			break
		}
	}
	// Reap the orphans (see startCluster), then stop being a subreaper.
	for try := 0; try < 10; try++ {
		var ws syscall.WaitStatus
		for {
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0)
	if len(left) > 0 {
		t.Errorf("the cluster's processes survived their SIGKILL: %s", strings.Join(left, ", "))
	}
}

// jobPids are the processes whose environment holds this cluster's
// SLURM_CONF, apart from the daemons, which stop stops by their groups.
func (c *cluster) jobPids() []int {
	return slices.DeleteFunc(reap.Pids("SLURM_CONF="+c.conf), func(pid int) bool {
		return slices.ContainsFunc(c.daemons, func(d *exec.Cmd) bool { return d.Process.Pid == pid })
	})
}

// run runs a client command in dir with the cluster's environment.
func (c *cluster) run(ctx context.Context, dir, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Dir = c.env, dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// waitFor polls ok every 50 ms until it holds or ctx ends (a failure).
func (c *cluster) waitFor(ctx context.Context, t *testing.T, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// tasks returns the state of each array task of job (and of a plain job as
// task -1) from scontrol, which needs no accounting database. Pending tasks
// that Slurm still lists as one record (ArrayTaskId=1-2) are expanded.
func (c *cluster) tasks(ctx context.Context, job string) (map[int]string, error) {
	out, err := c.run(ctx, "", "scontrol", "-o", "show", "job", job)
	if err != nil {
		return nil, err
	}
	states := map[int]string{}
	taskRe, stateRe := regexp.MustCompile(`\bArrayTaskId=(\S+)`), regexp.MustCompile(`\bJobState=(\S+)`)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		st := stateRe.FindStringSubmatch(line)
		if st == nil {
			return nil, fmt.Errorf("scontrol show job %s: no JobState in %q", job, line)
		}
		ids := []int{-1}
		if m := taskRe.FindStringSubmatch(line); m != nil {
			if ids, err = expandRange(m[1]); err != nil {
				return nil, err
			}
		}
		for _, id := range ids {
			states[id] = st[1]
		}
	}
	return states, nil
}

// expandRange expands Slurm's task lists: "3", "0-2", "0,2-4", "0-9%2".
func expandRange(s string) ([]int, error) {
	s, _, _ = strings.Cut(s, "%")
	var ids []int
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err1 := strconv.Atoi(a)
		hi, err2 := lo, error(nil)
		if isRange {
			hi, err2 = strconv.Atoi(b)
		}
		if err1 != nil || err2 != nil || hi < lo {
			return nil, fmt.Errorf("array task list %q", s)
		}
		for i := lo; i <= hi; i++ {
			ids = append(ids, i)
		}
	}
	return ids, nil
}

// tail returns the end of one of the cluster's files, for a failure's log.
func (c *cluster) tail(name string) string {
	b, err := os.ReadFile(c.file(name))
	if err != nil {
		return err.Error()
	}
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		must(t, err)
		defer l.Close() // held until all are chosen, so they differ
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// lookPath finds name in the directories of path (the daemons live in
// /usr/sbin, which a user's PATH may lack).
func lookPath(name, path string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found in %s", name, path)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
