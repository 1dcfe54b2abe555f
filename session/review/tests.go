package review

import (
	"context"
	"fmt"
	"io"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/session/contract"
	"github.com/coreagent/core/session/testclass"
)

// Tests is what the classification of a pull request's own tests needs
// (ClassifyTests).
type Tests struct {
	// Confinement is the contract checker's (contract.Checker.Confinement):
	// the tests run as the checks do.
	Confinement contract.Confinement
	Git         contract.Git
	// Clone is the review's workspace: it holds the base's and the head's
	// objects; its files are never read.
	Clone string
	// Base and Head are the commits, by full SHA: the review's start (the
	// merge base) and the head it reviews.
	Base, Head string
	// Files lists the pull request's files (gh.Client.PullFiles for
	// it); nil for a local review: the paths git says differ.
	Files func(ctx context.Context) ([]gh.PullFile, error)
	// Progress is told how many files' tests run.
	Progress io.Writer
}

// ClassifyTests classifies the tests of the test files the pull request
// adds or changes (testclass.Classify). It never fails the review: an
// error (a list of files GitHub would not give, a head that is gone, the
// box's failure) is the classification's Error, beside the files it got
// through. Only the test files' tests run; a pull request that changes no
// test file runs nothing.
func ClassifyTests(ctx context.Context, t Tests) *testclass.Classification {
	changed, err := t.changed(ctx)
	if err != nil {
		return &testclass.Classification{Error: err.Error()}
	}
	o := testclass.Options{Confinement: t.Confinement, Git: t.Git, Clone: t.Clone, Progress: t.Progress}
	c, err := testclass.Classify(ctx, o, t.Base, t.Head, changed)
	if err != nil {
		c.Error = err.Error()
	}
	return &c
}

// changed are the paths the pull request adds or changes: GitHub's list
// of its files without those it removes, or git's for a local review.
func (t Tests) changed(ctx context.Context) ([]string, error) {
	if t.Files == nil {
		return testclass.Changed(ctx, t.Git, t.Clone, t.Base, t.Head)
	}
	files, err := t.Files(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the pull request's files: %w", err)
	}
	var paths []string
	for _, f := range files {
		if f.Status != "removed" && f.Status != "unchanged" {
			paths = append(paths, f.Path)
		}
	}
	return paths, nil
}
