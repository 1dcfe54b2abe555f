package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// ReportJSON returns session id's report.json as written, for delivery to
// the console: what is sent is exactly what is on disk.
func (s *Store) ReportJSON(id string) ([]byte, error) {
	if !validID(id) {
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
	if !validID(id) {
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
