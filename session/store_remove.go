package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/coreagent/core/internal/filetree"
)

// ErrNoStore says that the state directory does not exist yet: there are no
// sessions, and nothing was created to find that out.
var ErrNoStore = errors.New("no session store")

// LookStore opens the store under home only if it already exists: commands
// that only read (list, rm, prune) create nothing.
func LookStore(home string) (*Store, error) {
	if home == "" {
		return nil, errors.New("no state directory: set CORE_HOME or HOME")
	}
	fi, err := os.Stat(filepath.Join(home, "sessions"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s", ErrNoStore, home)
	}
	if err != nil {
		return nil, fmt.Errorf("open session store: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open session store: %s is not a directory", filepath.Join(home, "sessions"))
	}
	return &Store{home: home}, nil
}

// Removed is one session that Remove or Prune deleted.
type Removed struct {
	ID    string
	Bytes int64 // what its files and workspace held
}

// Remove deletes session id: its record, transcript, report and workspace,
// and, in a local repository it started from uncommitted work in, the ref
// that kept that work (refs/core/inputs/<id>). A session that a live
// process is running is refused.
func (s *Store) Remove(ctx context.Context, id string) (Removed, error) {
	rec, err := s.Load(id)
	if err != nil {
		return Removed{}, err
	}
	unlock, err := s.lock(id)
	if err != nil {
		return Removed{}, fmt.Errorf("session %s is running: stop it before removing it", rec.ID)
	}
	defer unlock()
	r := Removed{ID: id}
	if err := removeInputs(ctx, rec); err != nil {
		return r, fmt.Errorf("remove session %s: %w", id, err)
	}
	for _, dir := range []string{s.WorkspaceDir(id), s.Dir(id)} {
		r.Bytes += filetree.Size(dir)
		if err := filetree.Remove(dir); err != nil {
			return r, fmt.Errorf("remove session %s: %w", id, err)
		}
	}
	return r, nil
}

// Prune deletes every session that ended before cutoff; running sessions
// and sessions that ended after it stay. It returns what it removed.
func (s *Store) Prune(ctx context.Context, cutoff time.Time) ([]Removed, error) {
	recs, err := s.List()
	if err != nil {
		return nil, err
	}
	var out []Removed
	for _, rec := range recs {
		ended := rec.UpdatedAt
		if rec.EndedAt != nil {
			ended = *rec.EndedAt
		}
		if !rec.Status.Terminal() || !ended.Before(cutoff) {
			continue
		}
		r, err := s.Remove(ctx, rec.ID)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// removeInputs deletes the ref that kept the uncommitted work session rec
// started from, in its local repository (land.Git.RemoveInputs).
func removeInputs(ctx context.Context, rec *Record) error {
	if rec.LandOnto == "" || !filepath.IsAbs(rec.Repo) {
		return nil
	}
	var g gitRunner
	return g.landGit().RemoveInputs(ctx, rec.Repo, rec.ID, rec.StartCommit)
}
