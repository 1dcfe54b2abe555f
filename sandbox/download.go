package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/coreagent/core/sandbox/deps"
	"github.com/coreagent/core/sandbox/manifest"
)

// downloadModules fetches the workspace's module dependencies so that Go
// works inside the sandbox without a network. It never runs in the
// workspace: it copies the validated module files into a scratch directory
// and runs go mod download there, confined by bwrap with the network when
// bwrap is given, on the host otherwise. It runs again only when the module
// files changed. ok is false when the download failed; the result then says
// why.
func (s *Sandbox) downloadModules(ctx context.Context, bwrap string, opts RunOptions) (r Result, ok bool, err error) {
	files, err := deps.GoModuleFiles(opts.Workspace)
	if deps.IsNoModule(err) {
		return Result{}, true, nil
	}
	argv := []string{"go", "mod", "download"}
	if err != nil {
		r := refusedModules(argv, err)
		r.Output = "core did not download the module dependencies: " + err.Error() + "\n"
		return r, false, nil
	}
	key := deps.FilesKey(files)
	waited, mine, err := s.claimDownload(ctx, opts.Workspace, key, opts.Progress)
	if err != nil {
		return Result{ExitCode: -1, Waited: waited}, false, err
	}
	if mine == nil {
		return Result{Waited: waited}, true, nil
	}
	defer mine()
	r, ok, err = s.download(ctx, bwrap, opts, files, key)
	r.Waited = waited
	return r, ok, err
}

// claimDownload is deps.Downloads.Claim with the waits told to progress.
func (s *Sandbox) claimDownload(ctx context.Context, ws, key string, progress io.Writer) (time.Duration, func(), error) {
	return s.downloads.Claim(ctx, ws, key, func(what string) func() { return waitingFor(progress, what) })
}

// download is downloadModules once this command holds the claim.
func (s *Sandbox) download(ctx context.Context, bwrap string, opts RunOptions, files map[string][]byte, key string) (r Result, ok bool, err error) {
	argv := []string{"go", "mod", "download"}
	// The target's Go, when go.mod asks for a newer one than this
	// machine's: fetched through the module proxy on the host (it runs no
	// workspace code), and the download and the commands run it.
	bin, tr, ok := s.fetchToolchain(ctx, opts.Workspace)
	if !ok {
		return tr, false, nil
	}
	if mod, err := s.modCache(); err == nil && mod != "" && deps.GoModulesCached(files, mod) {
		// Everything go.sum names is in the module cache already: go mod
		// download would do nothing.
		s.downloads.Done(opts.Workspace, key)
		return Result{}, true, nil
	}
	defer waitingFor(opts.Progress, "the dependency step: go mod download (the network on, no workspace code; not counted against the timeout)")()
	began := time.Now()
	if n := deps.GoSumModules(files); n > 0 {
		progressf(opts, "Downloading %s for the command (go mod download) …", manifest.Entries(n, "Go module", "Go modules"))
		defer func() {
			if ok && err == nil {
				progressf(opts, "Downloaded %s in %s.", manifest.Entries(n, "Go module", "Go modules"), deps.RoundDuration(time.Since(began)))
			}
		}()
	}
	scratch, err := s.scratch(files)
	if err != nil {
		return Result{}, false, err
	}
	defer os.RemoveAll(scratch)
	dopts := RunOptions{Workspace: scratch, Timeout: s.cfg.DownloadTimeout, OutputLimit: opts.OutputLimit}
	where := "confined, with the network"
	if bwrap != "" {
		p, perr := s.profileFor("go")
		if perr != nil {
			return Result{}, false, perr
		}
		p.scratch = scratch
		p.buildCache = "" // nothing of $CORE_HOME but the module cache
		if bin != "" {
			p.path = append([]string{bin}, p.path...)
		}
		s.networked(&p)
		r, err = s.launch(ctx, bwrap, p, argv, dopts)
	} else {
		where = "on the host, in a scratch directory"
		r, err = s.RunHost(ctx, argv, dopts)
	}
	if err != nil {
		return r, false, fmt.Errorf("go mod download: %w", err)
	}
	if r.ExitCode != 0 {
		r.Output = fmt.Sprintf("go mod download (run by core %s, so that Go works offline in the sandbox) failed:\n%s", where, r.Output)
		return r, false, nil
	}
	s.downloads.Done(opts.Workspace, key)
	return Result{Duration: time.Since(began)}, true, nil // the warm-up tells it
}

// scratch writes the module files into a fresh directory under
// $CORE_HOME/tmp (or the system's temporary directory).
func (s *Sandbox) scratch(files map[string][]byte) (string, error) {
	base := os.TempDir()
	if s.cfg.Home != "" {
		base = filepath.Join(s.cfg.Home, "tmp")
		if err := os.MkdirAll(base, 0o700); err != nil {
			return "", fmt.Errorf("make a scratch directory for the module download: %w", err)
		}
	}
	dir, err := os.MkdirTemp(base, "core-mod-")
	if err != nil {
		return "", fmt.Errorf("make a scratch directory for the module download: %w", err)
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("copy %s for the module download: %w", name, err)
		}
		if err := os.WriteFile(p, body, 0o600); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("copy %s for the module download: %w", name, err)
		}
	}
	return dir, nil
}
