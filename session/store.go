package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/session/scrub"
	"github.com/coreagent/core/session/state"
)

// The files of one session, under $CORE_HOME/sessions/<id>/ (Store.Dir).
const (
	RecordFile     = "session.json"
	TranscriptFile = "transcript.jsonl"
	ReportFile     = "report.json"
	lockFile       = "lock"
)

// Store keeps sessions under $CORE_HOME: records and transcripts in
// sessions/<id>/, workspaces in workspaces/<id>/. Directories are 0700 and
// files 0600.
type Store struct {
	home string
}

// OpenStore opens (creating it when needed) the store under home.
func OpenStore(home string) (*Store, error) {
	s, err := NewStore(home)
	if err != nil {
		return nil, err
	}
	if err := s.make(); err != nil {
		return nil, err
	}
	return s, nil
}

// NewStore is the store under home, created only with its first session: a
// run refused before it starts (a missing repository, an unknown base)
// leaves no empty sessions/ or workspaces/ behind.
func NewStore(home string) (*Store, error) {
	if home == "" {
		return nil, errors.New("no state directory: set CORE_HOME or HOME")
	}
	return &Store{home: home}, nil
}

// make creates the store's directories where they are missing.
func (s *Store) make() error {
	home := s.home
	// $CORE_HOME itself may be the user's (even /tmp): made 0700 when core
	// creates it, and never changed otherwise. Its two folders are core's.
	if err := os.MkdirAll(home, 0o700); err != nil {
		return homeError(home, err)
	}
	for _, dir := range []string{filepath.Join(home, "sessions"), filepath.Join(home, "workspaces")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return homeError(home, err)
		}
		if err := tighten(dir); err != nil {
			return homeError(home, err)
		}
	}
	if err := probeWritable(filepath.Join(home, "sessions")); err != nil {
		return homeError(home, err)
	}
	return nil
}

// Home returns the state directory.
func (s *Store) Home() string { return s.home }

// Dir returns the directory of session id.
func (s *Store) Dir(id string) string { return filepath.Join(s.home, "sessions", id) }

// WorkspaceDir returns where session id's workspace lives.
func (s *Store) WorkspaceDir(id string) string { return filepath.Join(s.home, "workspaces", id) }

// NewID makes a session id that sorts by creation time:
// 20261130-044700-1a2b3c.
func NewID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// create makes the directory of a new session and writes its first record.
func (s *Store) create(rec *Record, sc *scrub.Scrubber) error {
	if err := s.make(); err != nil {
		return err
	}
	if err := os.Mkdir(s.Dir(rec.ID), 0o700); err != nil {
		return fmt.Errorf("create session %s: %w", rec.ID, err)
	}
	return s.save(rec, sc)
}

// save writes session.json atomically and durably, as on every state
// transition: a temporary file, synced, renamed over the old one. What is
// written is scrubbed of sc's secrets, as is everything the store writes.
func (s *Store) save(rec *Record, sc *scrub.Scrubber) error {
	return s.write(rec, true, sc)
}

// saveQuick writes session.json atomically but without waiting for the
// disk, as after every turn: a crash may lose the last turns' counts (the
// transcript has them), never the file.
func (s *Store) saveQuick(rec *Record, sc *scrub.Scrubber) error {
	return s.write(rec, false, sc)
}

func (s *Store) write(rec *Record, durable bool, sc *scrub.Scrubber) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("encode session %s: %w", rec.ID, err)
	}
	return writeAtomic(filepath.Join(s.Dir(rec.ID), RecordFile), sc.Bytes(append(b, '\n')), durable)
}

// ValidID reports whether id can name a session directory.
func ValidID(id string) bool {
	return id != "" && id == filepath.Base(id) && id[0] != '.' && len(id) <= 64 && !strings.ContainsAny(id, " \t\n/\\")
}

// Load reads the record of session id. A session left live (starting,
// active, idle) by a process that is gone comes back as failed
// (infrastructure): an orphan, which resume continues.
func (s *Store) Load(id string) (*Record, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%q is not a session id", id)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir(id), RecordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no session %s in %s (core session list shows them)", id, s.home)
	}
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("read session %s: %s is damaged: %w", id, RecordFile, err)
	}
	if rec.Status.Live() && !s.locked(id) {
		rec.Status = state.Failed
		rec.FailureKind = state.FailInfrastructure
		rec.Error = "orphaned: the process running this session is gone"
	}
	return &rec, nil
}

// List returns every session, newest first. Damaged records are skipped.
func (s *Store) List() ([]*Record, error) {
	entries, err := os.ReadDir(filepath.Join(s.home, "sessions"))
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var recs []*Record
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		rec, err := s.Load(e.Name())
		if err != nil {
			continue
		}
		recs = append(recs, rec)
	}
	sort.SliceStable(recs, func(i, j int) bool {
		if !recs[i].CreatedAt.Equal(recs[j].CreatedAt) {
			return recs[i].CreatedAt.After(recs[j].CreatedAt)
		}
		return recs[i].ID > recs[j].ID
	})
	return recs, nil
}

// lock takes the session's lock, held by the process driving it for as
// long as it runs. The kernel drops it when the process dies, which is how
// Load tells an orphan from a live session.
func (s *Store) lock(id string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(s.Dir(id), lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("session %s is running in another process: %w", id, errLocked)
		}
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	return func() { f.Close() }, nil
}

// errLocked is why lock refused.
var errLocked = errors.New("its lock is held")

// lockGrace is how long lockWait waits for a lock that was just released.
const lockGrace = 2 * time.Second

// lockWait is lock, waiting a little for a lock held only for a moment: a
// child this process forks (git, go) holds a copy of the lock's file until
// it execs, so a lock released in this process may still look held for a
// moment, when the machine is busy.
func (s *Store) lockWait(ctx context.Context, id string) (unlock func(), err error) {
	deadline := time.NewTimer(lockGrace)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		unlock, err := s.lock(id)
		if !errors.Is(err, errLocked) {
			return unlock, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-deadline.C:
			return nil, err
		case <-tick.C:
		}
	}
}

// locked reports whether a live process holds the session's lock.
func (s *Store) locked(id string) bool {
	unlock, err := s.lock(id)
	if err != nil {
		return true
	}
	unlock()
	return false
}

// writeReport writes report.json atomically.
func (s *Store) writeReport(id string, rep *Report, sc *scrub.Scrubber) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report of session %s: %w", id, err)
	}
	return writeAtomic(filepath.Join(s.Dir(id), ReportFile), sc.Bytes(append(b, '\n')), true)
}

// LoadReport reads the report of session id.
func (s *Store) LoadReport(id string) (*Report, error) {
	b, err := os.ReadFile(filepath.Join(s.Dir(id), ReportFile))
	if err != nil {
		return nil, fmt.Errorf("read report of session %s: %w", id, err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("read report of session %s: %w", id, err)
	}
	return &rep, nil
}

// writeAtomic replaces path with data: write a temporary file in the same
// directory, rename it over path. Durable, it syncs the file before the
// rename and the directory after.
func writeAtomic(path string, data []byte, durable bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !durable {
		return nil
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// homeError says what is wrong with the state directory and what to do.
func homeError(home string, err error) error {
	return fmt.Errorf("the state directory %s (CORE_HOME) cannot be used: %w; set CORE_HOME to a writable directory", home, err)
}

// tighten makes a directory core owns private (0700). A directory of
// someone else's is left as it is: core never changes what it does not own.
func tighten(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Geteuid() || fi.Mode().Perm() == 0o700 {
		return nil
	}
	return os.Chmod(dir, 0o700)
}

// probeWritable checks that files can be made in dir.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".core-writable-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Control sends one operation to the live session id through its socket
// (live.Call) and returns the run's acknowledgement. A session with no
// live run says so.
func (s *Store) Control(ctx context.Context, id, op, text string) (string, error) {
	rec, err := s.Load(id)
	if err != nil {
		return "", err
	}
	if !rec.Status.Live() {
		return "", fmt.Errorf("session %s is %s: only a live run (starting, active or idle) takes %s", id, rec.Status, op)
	}
	return live.Call(ctx, s.Dir(id), id, op, text)
}

// ReportJSON returns session id's report.json as written, for delivery to
// the console: what is sent is exactly what is on disk.
func (s *Store) ReportJSON(id string) ([]byte, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%q is not a session id", id)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir(id), ReportFile))
	if err != nil {
		return nil, fmt.Errorf("read report of session %s: %w", id, err)
	}
	return b, nil
}

// MarkReport records whether session id's report still waits for
// delivery to the console. A session a live process runs is refused.
func (s *Store) MarkReport(ctx context.Context, id string, pending bool) error {
	if !ValidID(id) {
		return fmt.Errorf("%q is not a session id", id)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(id), RecordFile)); err != nil {
		return fmt.Errorf("mark the report: no session %s in %s", id, s.home)
	}
	unlock, err := s.lockWait(ctx, id)
	if err != nil {
		return fmt.Errorf("mark the report of session %s: %w", id, err)
	}
	defer unlock()
	rec, err := s.Load(id)
	if err != nil {
		return fmt.Errorf("mark the report of session %s: %w", id, err)
	}
	if rec.ReportPending == pending {
		return nil
	}
	rec.ReportPending = pending
	return s.save(rec, nil)
}
