package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/receipt"
)

func sample(argv ...string) *receipt.Receipt {
	return &receipt.Receipt{
		Format: receipt.Format, Core: "core (devel)", Repository: "/src/calc",
		Start:   receipt.Side{Commit: strings.Repeat("a", 40), Tree: strings.Repeat("b", 40)},
		Result:  receipt.Side{Commit: strings.Repeat("c", 40), Tree: strings.Repeat("d", 40)},
		Sandbox: receipt.Sandbox{Backend: "bwrap", Tier: "build", Profile: "sha256:p"},
		Verdict: "held",
		Checks: []receipt.Check{{
			Argv: argv, Dir: ".", Env: []string{}, Source: "user", TimeoutSeconds: 60,
			Start: receipt.Run{Exit: 2}, Result: receipt.Run{Exit: 0, Passed: true}, Verdict: "fixed",
		}},
	}
}

func bytesOf(t *testing.T, r *receipt.Receipt) []byte {
	t.Helper()
	b, err := r.Marshal()
	require.NoError(t, err)
	return b
}

// A receipt that cannot be trusted or run is refused before anything
// runs, with words that say what was wrong.
func TestReadRefuses(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "gofmt"), []byte("#!/bin/sh\n"), 0o755))
	good := bytesOf(t, sample("gofmt", "-l", "."))
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{name: "another hash", o: Options{Receipt: good, Published: []Published{{Hash: receipt.Hash(good), From: "--hash"}, {Hash: "sha256:00", From: "the check run's summary"}}}, want: "the receipt was edited after it was made: its hash is " + receipt.Hash(good) + ", and the check run's summary names sha256:00"},
		{name: "not a receipt", o: Options{Receipt: []byte("hello")}, want: "not a receipt"},
		{name: "no commit", o: Options{Receipt: bytesOf(t, func() *receipt.Receipt { r := sample("gofmt", "-l", "."); r.Result.Commit = ""; return r }())}, want: "a receipt of work that never landed"},
		{name: "an option for a commit", o: Options{Receipt: bytesOf(t, func() *receipt.Receipt { r := sample("gofmt", "-l", "."); r.Start.Commit = "--upload-pack=x"; return r }())}, want: "names no commit"},
		{name: "tier off", o: Options{Receipt: bytesOf(t, func() *receipt.Receipt { r := sample("gofmt", "-l", "."); r.Sandbox.Tier = "off"; return r }())}, want: `the receipt's tier "off"`},
		{name: "a command the tier refuses", o: Options{Receipt: bytesOf(t, sample("rm", "-rf", "/"))}, want: `the receipt's check "rm -rf /" is not one the verify tier build runs unattended`},
		{name: "a test at the build tier", o: Options{Receipt: bytesOf(t, sample("go", "test", "./..."))}, want: "is not one the verify tier build runs"},
		{name: "another directory", o: Options{Receipt: bytesOf(t, func() *receipt.Receipt { r := sample("gofmt", "-l", "."); r.Checks[0].Dir = "/etc"; return r }())}, want: `runs in "/etc"`},
		{name: "no checks", o: Options{Receipt: bytesOf(t, func() *receipt.Receipt { r := sample("gofmt", "-l", "."); r.Checks = []receipt.Check{}; return r }())}, want: "holds no check"},
		{name: "a tool not here", o: Options{Receipt: bytesOf(t, sample("go", "vet", "./...")), Path: bin}, want: `the check "go vet ./..." needs go, which is not on this machine's PATH`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.o.Path == "" {
				tt.o.Path = bin
			}
			_, _, err := read(tt.o)
			var ie *InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "(nothing was run)")
		})
	}
	r, tier, err := read(Options{Receipt: good, Published: []Published{{Hash: receipt.Hash(good), From: "--hash"}}, Path: "relative:" + bin})
	require.NoError(t, err)
	assert.Equal(t, "build", string(tier))
	assert.Equal(t, []string{"gofmt", "-l", "."}, r.Checks[0].Argv)
}

func TestCompare(t *testing.T) {
	t.Parallel()
	want := sample("gofmt", "-l", ".").Checks
	run := func(v contract.CheckVerdict, base, result int, errText string) *contract.Contract {
		return &contract.Contract{Checks: []contract.CheckRun{{Command: []string{"gofmt", "-l", "."}, Verdict: v,
			Baseline: contract.CheckResult{Exit: base}, Result: contract.CheckResult{Exit: result, Error: errText}}}}
	}
	tests := []struct {
		name string
		k    *contract.Contract
		same bool
		line string
	}{
		{name: "same", k: run(contract.VerdictFixed, 2, 0, ""), same: true, line: "same: gofmt -l . — fixed (start exit 2, result exit 0)\n"},
		{name: "different", k: run(contract.VerdictFailing, 2, 2, ""), line: "different: gofmt -l . — the receipt says fixed (start exit 2, result exit 0), this machine says failing (start exit 2, result exit 2)\n"},
		{name: "could not run", k: run(contract.VerdictError, 2, -1, "no gofmt"), line: "could not run: gofmt -l . — on the result: no gofmt\n"},
		{name: "not run", k: &contract.Contract{}, line: "could not run: gofmt -l . — the checker did not run it\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			assert.Equal(t, tt.same, compare(&b, want, tt.k, ""))
			assert.Equal(t, tt.line, b.String())
		})
	}
}

// A machine whose profile or toolchains are not the receipt's says so.
func TestNoteMachine(t *testing.T) {
	t.Parallel()
	sb := sandbox.New(sandbox.Config{Home: t.TempDir(), Mode: sandbox.ModeOff, Path: os.Getenv("PATH")})
	r := sample("go", "vet", "./...")
	r.Sandbox.Toolchains = map[string]string{"go": "go version go0.1 plan9/386"}
	r.Sandbox.Images = map[string]string{"python:3.13-slim": "python@sha256:aaaa"}
	var b strings.Builder
	noteMachine(t.Context(), Options{Sandbox: sb, Out: &b}, r, "build", [][]string{{"go", "vet", "./..."}})
	assert.Contains(t, b.String(), "note: this machine's sandbox profile differs from the receipt's")
	assert.Contains(t, b.String(), "in the receipt)")
	assert.Contains(t, b.String(), `note: the go toolchain differs: "go version go1.`)
	assert.Contains(t, b.String(), `here, "go version go0.1 plan9/386" in the receipt`)
	assert.Contains(t, b.String(), "note: the image python:3.13-slim differs: none here, python@sha256:aaaa in the receipt", "no Docker here")

	profile, tools := sb.Fingerprint(t.Context(), sb.Probe(t.Context()).Backend, "build", [][]string{{"go", "vet", "./..."}})
	r.Sandbox.Backend, r.Sandbox.Profile, r.Sandbox.Toolchains = sb.Probe(t.Context()).Backend, profile.Hash(), tools
	r.Sandbox.Images = nil
	b.Reset()
	noteMachine(t.Context(), Options{Sandbox: sb, Out: &b}, r, "build", [][]string{{"go", "vet", "./..."}})
	assert.Empty(t, b.String(), "the same machine says nothing")
}
