package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/coreagent/core/internal/buildinfo"
	"github.com/coreagent/core/sandbox"
	"github.com/coreagent/core/session/receipt"
)

// ReceiptFile is the receipt of the session's last contract, beside its
// report (session/receipt).
const ReceiptFile = "receipt.json"

// ReportReceipt names the receipt a run wrote: its file in the session's
// directory and its hash.
type ReportReceipt struct {
	File string `json:"file"`
	Hash string `json:"hash"`
}

// landedReceipt makes the receipt for the commit that landed on GitHub
// (land.Work.Receipt), on the session's branch, and keeps it for end to
// write: the receipt written is the one landing posted.
func (s *run) landedReceipt(ctx context.Context, commit string) ([]byte, string, error) {
	return s.makeReceipt(ctx, commit, s.rec.Branch)
}

// makeReceipt makes the receipt of the run's contract for commit, the
// commit that holds the checked tree, landed on branch ("" when it did
// not land), and keeps it.
func (s *run) makeReceipt(ctx context.Context, commit, branch string) ([]byte, string, error) {
	c := s.report.Contract
	if c == nil {
		return nil, "", nil
	}
	if p := s.priorReceipt; p != nil {
		// core session land: the receipt its run made, now of the
		// commit that landed (the outputs it hashed are gone).
		r := *p
		r.Result.Commit, r.Branch = commit, branch
		return s.keep(r.Marshal())
	}
	sb := s.opts.Services.Sandbox
	argvs := make([][]string, 0, len(c.Checks))
	for _, ch := range c.Checks {
		argvs = append(argvs, ch.Command)
	}
	backend := sb.Probe(ctx).Backend
	profile, toolchains := sb.Fingerprint(ctx, backend, s.rec.Verify, argvs)
	return s.keep(receipt.Build(c, receipt.Made{
		Core: buildinfo.Version(), Repository: s.rec.Repo,
		Start:  receipt.Side{Commit: s.rec.StartCommit, Tree: s.report.StartTree},
		Result: receipt.Side{Commit: commit, Tree: c.Tree}, Branch: branch,
		Sandbox: receipt.Sandbox{
			Backend: backend, Tier: string(s.rec.Verify), Profile: profile.Hash(), Toolchains: toolchains,
			Images: sb.Images(ctx, argvs),
		},
		Env: sandbox.CheckEnvNames, Scrub: s.scrub, OutputsNotKept: s.outputsGone,
	}).Marshal())
}

// keep keeps a receipt's bytes.
func (s *run) keep(data []byte, err error) ([]byte, string, error) {
	if err != nil {
		return nil, "", fmt.Errorf("make the receipt of the contract: %w", err)
	}
	s.receipt, s.receiptHash = data, receipt.Hash(data)
	return s.receipt, s.receiptHash, nil
}

// loadReceipt reads the receipt session id's last run wrote; nil when it
// wrote none, or one this core cannot read.
func (s *Store) loadReceipt(id string) *receipt.Receipt {
	data, err := os.ReadFile(filepath.Join(s.Dir(id), ReceiptFile))
	if err != nil {
		return nil
	}
	r, err := receipt.Parse(data)
	if err != nil {
		return nil
	}
	return r
}

// keepReceipt makes the receipt of a contract that landing did not ask
// for (a local landing, a dry run, work not landed), for the session's
// own commit.
func (s *run) keepReceipt(ctx context.Context) {
	if s.report.Contract == nil || s.receipt != nil {
		return
	}
	commit, branch := s.rec.Commit, ""
	if s.rec.Landed {
		branch = s.rec.Branch
	}
	if t := s.report.LandedTree; t != "" && t != s.report.Contract.Tree {
		// A local landing left out the uncommitted work the session
		// started from: no commit holds the checked tree.
		commit, branch = "", ""
	}
	if _, _, err := s.makeReceipt(ctx, commit, branch); err != nil {
		fmt.Fprintf(s.opts.Live.Progress, "warning: %v\n", err)
	}
}

// writeReceipt writes the kept receipt beside the report, atomically, and
// names it in the report.
func (s *Store) writeReceipt(id string, r *Report, data []byte, hash string) error {
	if data == nil {
		return nil
	}
	if err := writeAtomic(filepath.Join(s.Dir(id), ReceiptFile), data, true); err != nil {
		return fmt.Errorf("write the receipt of session %s: %w", id, err)
	}
	r.Receipt = &ReportReceipt{File: ReceiptFile, Hash: hash}
	return nil
}
