package remote

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Audit is serve's hash-chained JSONL trail: each line is a JSON object
// whose "prev" is the SHA-256 (hex) of the line before it ("" on the
// first), so an edited, dropped or inserted line breaks the chain at it.
type Audit struct {
	Path string
	Now  func() time.Time
}

// AuditEntry is one line of the trail.
type AuditEntry struct {
	Prev    string    `json:"prev"`
	At      time.Time `json:"at"`
	Event   string    `json:"event"`
	Command int64     `json:"command,omitempty"`
	Repo    string    `json:"repo,omitempty"`
	Session string    `json:"session,omitempty"`
	Detail  string    `json:"detail,omitempty"`
}

func lineHash(line []byte) string {
	h := sha256.Sum256(line)
	return hex.EncodeToString(h[:])
}

// Append adds e to the trail, chained to its last line.
func (a *Audit) Append(e AuditEntry) error {
	if err := os.MkdirAll(filepath.Dir(a.Path), 0o700); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	prev, err := os.ReadFile(a.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("audit: %w", err)
	}
	prev = bytes.TrimRight(prev, "\n")
	if len(prev) > 0 {
		last := prev
		if i := bytes.LastIndexByte(prev, '\n'); i >= 0 {
			last = prev[i+1:]
		}
		e.Prev = lineHash(last)
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	e.At = now().UTC()
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	f, err := os.OpenFile(a.Path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("audit: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("audit: %w", err)
	}
	return f.Close()
}

// VerifyAudit checks the trail at path and returns how many lines it
// holds; an error names the first bad line.
func VerifyAudit(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("verify the audit trail: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	prev, n := "", 0
	for sc.Scan() {
		n++
		var e AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return n - 1, fmt.Errorf("%s line %d is not an audit entry: %w", path, n, err)
		}
		if e.Prev != prev {
			return n - 1, fmt.Errorf("%s line %d breaks the chain: it names %q as the line before, which hashes to %q (a line was changed, dropped or inserted at or before it)", path, n, short(e.Prev), short(prev))
		}
		prev = lineHash(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("verify the audit trail: %w", err)
	}
	return n, nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
