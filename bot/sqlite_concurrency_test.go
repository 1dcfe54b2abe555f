package bot

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/internal/testkit"
)

func contendSQLite(t *testing.T, stores []*SQLite, workers, issues int, prefix string) int {
	t.Helper()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created int
		errs    []error
	)
	for w := range workers {
		wg.Go(func() {
			s := stores[w%len(stores)]
			for issue := 1; issue <= issues; issue++ {
				id := fmt.Sprintf("%s-w%d-i%d", prefix, w, issue)
				ok, existing, err := s.CreateRun(t.Context(), sqliteTestRun(id, "o/r", issue, int64(issue*1000+w)))
				if err == nil && !ok && (existing == nil || existing.Number != issue) {
					err = fmt.Errorf("%s: refused with existing %+v", id, existing)
				}
				mu.Lock()
				if ok {
					created++
				}
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Empty(t, errs)
	return created
}

func TestSQLiteCreateRunConcurrent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handles int
	}{{"one handle", 1}, {"two handles on one file", 2}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "bot.db")
			stores := make([]*SQLite, tt.handles)
			for i := range stores {
				stores[i] = openTestSQLite(t, path)
			}
			assert.Equal(t, 1, contendSQLite(t, stores, 20, 1, "p"))
			for _, s := range stores {
				counts, err := s.CountByState(t.Context())
				require.NoError(t, err)
				assert.Equal(t, 1, counts[StateQueued])
			}
		})
	}
}

// TestSQLiteCreateRunAcrossProcesses runs two copies of the test binary
// against one file, started together; each issue must get exactly one run.
func TestSQLiteCreateRunAcrossProcesses(t *testing.T) {
	t.Parallel()
	const issues = 40
	path := filepath.Join(t.TempDir(), "bot.db")
	openTestSQLite(t, path) // create the schema before the race
	type proc struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		stdout *bufio.Reader
		stderr bytes.Buffer
	}
	// A helper that hangs is killed after testkit.Patience: its output
	// then ends early and the checks below say which step it missed.
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	procs := make([]*proc, 2)
	for i := range procs {
		p := &proc{cmd: exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSQLiteHelperProcess$")}
		p.cmd.Env = append(os.Environ(), "CORE_SQLITE_HELPER_DB="+path,
			"CORE_SQLITE_HELPER_PREFIX=proc"+strconv.Itoa(i), "CORE_SQLITE_HELPER_ISSUES="+strconv.Itoa(issues))
		p.cmd.Stderr = &p.stderr
		stdin, err := p.cmd.StdinPipe()
		require.NoError(t, err)
		stdout, err := p.cmd.StdoutPipe()
		require.NoError(t, err)
		p.stdin, p.stdout = stdin, bufio.NewReader(stdout)
		require.NoError(t, p.cmd.Start())
		procs[i] = p
	}
	for _, p := range procs { // both have opened the store
		if line, err := p.stdout.ReadString('\n'); line != "ready\n" {
			werr := p.cmd.Wait() // stderr is only safe to read after Wait
			require.FailNow(t, "helper not ready", "%q %v %v %s", line, err, werr, p.stderr.String())
		}
	}
	for _, p := range procs {
		_, err := io.WriteString(p.stdin, "go\n")
		require.NoError(t, err)
		require.NoError(t, p.stdin.Close())
	}
	total := 0
	for _, p := range procs {
		out, err := io.ReadAll(p.stdout)
		require.NoError(t, err)
		require.NoError(t, p.cmd.Wait(), "%s%s", out, p.stderr.String())
		_, after, ok := strings.Cut(string(out), "created=")
		require.True(t, ok, "%s", out)
		n, err := strconv.Atoi(strings.Fields(after)[0])
		require.NoError(t, err)
		total += n
	}
	assert.Equal(t, issues, total)
	counts, err := openTestSQLite(t, path).CountByState(t.Context())
	require.NoError(t, err)
	assert.Equal(t, issues, counts[StateQueued])
}

// TestSQLiteHelperProcess is one of the processes of
// TestSQLiteCreateRunAcrossProcesses; on its own it does nothing.
func TestSQLiteHelperProcess(t *testing.T) {
	path := os.Getenv("CORE_SQLITE_HELPER_DB")
	if path == "" {
		t.Skip("run by TestSQLiteCreateRunAcrossProcesses")
	}
	issues, err := strconv.Atoi(os.Getenv("CORE_SQLITE_HELPER_ISSUES"))
	require.NoError(t, err)
	s := openTestSQLite(t, path)
	fmt.Println("ready")
	_, err = bufio.NewReader(os.Stdin).ReadString('\n')
	require.NoError(t, err)
	created := contendSQLite(t, []*SQLite{s}, 4, issues, os.Getenv("CORE_SQLITE_HELPER_PREFIX"))
	fmt.Printf("created=%d\n", created)
}
