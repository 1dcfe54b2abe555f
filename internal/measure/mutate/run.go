package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// outcome is what the package's tests made of one mutant.
type outcome int

const (
	survived outcome = iota
	killed
	discarded // the mutant did not compile: not counted
)

// runTests runs the tests of the package in dir (relative to root) one
// package at a time, with the file at path replaced by src through
// go test's -overlay (nil src: no overlay, the tree as it is), and says
// whether they passed. Nothing in the tree is written. The target's -run
// and -skip patterns, when set, narrow the tests.
func runTests(ctx context.Context, root string, t target, path string, src []byte, timeout time.Duration, tmp string) (outcome, string, error) {
	args := []string{"test", "-count=1", "-p", "1", "-vet=off", "-timeout", timeout.String()}
	if t.run != "" {
		args = append(args, "-run", t.run)
	}
	if t.skip != "" {
		args = append(args, "-skip", t.skip)
	}
	if src != nil {
		file := filepath.Join(tmp, "mutant.go")
		if err := os.WriteFile(file, src, 0o600); err != nil {
			return 0, "", err
		}
		ov, err := json.Marshal(map[string]map[string]string{"Replace": {path: file}})
		if err != nil {
			return 0, "", err
		}
		overlay := filepath.Join(tmp, "overlay.json")
		if err := os.WriteFile(overlay, ov, 0o600); err != nil {
			return 0, "", err
		}
		args = append(args, "-overlay", overlay)
	}
	args = append(args, "./"+t.dir())
	// The go command's own bound is a backstop behind the test binary's
	// -timeout, for a build that hangs.
	cctx, cancel := context.WithTimeout(ctx, timeout+2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, "go", args...)
	cmd.Dir = root
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return 0, "", ctx.Err()
	}
	text := out.String()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return survived, text, nil
	case strings.Contains(text, "[build failed]") || strings.Contains(text, "[setup failed]"):
		return discarded, text, nil
	case errors.As(err, &exit) || cctx.Err() != nil:
		return killed, text, nil
	}
	return 0, text, err
}
