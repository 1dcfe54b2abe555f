package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/receipt"
	"github.com/coreagent/core/verify"
)

// verifyFlags are core verify's options.
type verifyFlags struct {
	repo, hash, pr string
}

func newVerifyCmd(e *env) *cobra.Command {
	var f verifyFlags
	cmd := &cobra.Command{
		Use:   "verify [RECEIPT] [--repo DIR|URL] [--hash sha256:...] | verify --pr owner/name#N",
		Short: "Re-run a contract's receipt on this machine and say, check by check, whether the same verdicts come out",
		Long: `core verify re-runs the checks of a receipt (receipt.json, written beside a
session's report, and carried by the core/contract check run on GitHub) on
both of its commits, confined in the sandbox profile core runs checks in, and
prints for each check: same, different (with both verdicts and exits), or
could not run (with why). It exits 0 only when every check came out the same.

Before anything runs it refuses, with a message and a non-zero exit: a receipt
made by a newer core, bytes that are not a receipt or were edited after core
wrote them, a check the receipt's tier would not run unattended, a check whose
program is not on this machine's PATH, and a repository that lacks either
commit or whose commits do not hold the receipt's trees. A receipt whose hash
is not the one published is refused too: --hash (the hash in the pull
request's body) and, for a receipt of a GitHub repository, the hash the
core/contract check run on its result commit names.

The repository is cloned into a temporary workspace (never the one you work
in): --repo, else the receipt's own (a local path, or owner/name cloned from
GitHub with GITHUB_TOKEN or GH_TOKEN as core session start does). When the
receipt names the branch its result landed on and that branch now holds
another tree (force-pushed), it says so and runs the checks there too.

Notes say where this machine's sandbox profile or toolchains differ from the
receipt's: a different verdict may then be the machine's.`,
		Example: `  core verify ~/.core/sessions/20261205-064500-1a2b3c/receipt.json
  core verify receipt.json --repo ~/src/widget
  core verify receipt.json --hash sha256:4f1c...   # the hash in the pull request's body
  core verify --pr acme/widget#12                   # the receipt of the core/contract check run`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.verify(cmd, args, f)
		},
	}
	cmd.Flags().StringVar(&f.repo, "repo", "", "the repository that holds the receipt's commits: a local directory or a git URL (default: the receipt's)")
	cmd.Flags().StringVar(&f.hash, "hash", "", "the receipt's hash as published (sha256:..., from the pull request's body or the check run): a receipt with another hash was edited")
	cmd.Flags().StringVar(&f.pr, "pr", "", "verify the receipt of the core/contract check run on this pull request's head (owner/name#N)")
	return cmd
}

// receiptHash is a receipt's hash as core writes it.
var receiptHash = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// verify runs core verify.
func (e *env) verify(cmd *cobra.Command, args []string, f verifyFlags) error {
	ctx := cmd.Context()
	if (len(args) == 1) == (f.pr != "") {
		return errors.New("give a receipt file or --pr owner/name#N, one of the two\nusage: " + cmd.UseLine())
	}
	o := verify.Options{Repo: f.repo, Out: e.stdout, Path: e.getenv("PATH"), GitEnv: session.GitEnv(e.getenv)}
	if f.hash != "" && !receiptHash.MatchString(f.hash) {
		return fmt.Errorf("--hash must be sha256: and 64 hex digits, as the pull request's body names it, got %q", f.hash)
	}
	if f.hash != "" {
		o.Published = append(o.Published, verify.Published{Hash: f.hash, From: "--hash"})
	}
	if err := e.verifyInput(ctx, args, f, &o); err != nil {
		return err
	}
	sb, err := e.sandbox()
	if err != nil {
		return err
	}
	defer sb.Close()
	o.Sandbox = sb
	return verify.Run(ctx, o)
}

// verifyInput reads the receipt: the file given, or the one the
// core/contract check run on the pull request's head carries. A receipt of
// a GitHub repository is cloned with the token, and its hash compared with
// the one its check run names, when there is one to read.
func (e *env) verifyInput(ctx context.Context, args []string, f verifyFlags, o *verify.Options) error {
	if f.pr != "" {
		full, n, err := verify.ParsePR(f.pr)
		if err != nil {
			return err
		}
		client, err := e.githubClient()
		if err != nil {
			return err
		}
		o.Clone, o.Fetch = verify.GitHubClone(client, o.GitEnv), verify.GitHubFetch(client, o.GitEnv)
		return verify.FromPR(ctx, client, full, n, o)
	}
	data, err := readReceipt(args[0])
	if err != nil {
		return err
	}
	o.Receipt = data
	r, err := receipt.Parse(data)
	if err != nil || !gh.IsRepoName(r.Repository) {
		return nil // a local repository's, or not a receipt: Run says so
	}
	client, err := e.githubClient()
	if err != nil {
		if f.repo == "" {
			return fmt.Errorf("the receipt's repository %s is on GitHub: %w (or give a clone of it with --repo)", r.Repository, err)
		}
		return nil
	}
	o.Clone, o.Fetch = verify.GitHubClone(client, o.GitEnv), verify.GitHubFetch(client, o.GitEnv)
	if p, ok := verify.PublishedOn(ctx, client, r.Repository, r.Result.Commit); ok {
		o.Published = append(o.Published, p)
	}
	return nil
}

// githubClient is the GitHub client of GITHUB_TOKEN or GH_TOKEN, at
// GITHUB_API_URL.
func (e *env) githubClient() (*gh.Client, error) {
	creds, err := gh.CredentialsFromEnv(e.getenv)
	if err != nil {
		return nil, err
	}
	return gh.New(creds, nil)
}

// readReceipt reads a receipt file, no larger than a receipt may be.
func readReceipt(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("read the receipt: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read the receipt: %s is not a regular file", path)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the receipt: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, receipt.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read the receipt: %w", err)
	}
	if len(data) > receipt.MaxSize {
		return nil, fmt.Errorf("read the receipt: %s holds more than the %d bytes a receipt may hold: it is not a receipt", path, receipt.MaxSize)
	}
	return data, nil
}
