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

	"github.com/coreagent/core/internal/clip"
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
// holds; an error names the first bad line. It is the local check only: a
// trail edited with every later hash recomputed passes it (see
// Trail.Check for the console's anchors).
func VerifyAudit(path string) (int, error) {
	t, err := ReadTrail(path)
	if err != nil {
		return 0, err
	}
	return len(t.hashes), nil
}

// AnchorPoint is a position in the trail, sent with each result so the
// console keeps a copy of it: the chain's id (the SHA-256 of the first
// line), the number of lines, and the SHA-256 of the last line, which
// through each line's "prev" commits to every line before it.
type AnchorPoint struct {
	Chain string `json:"chain"`
	Seq   int64  `json:"seq"`
	Head  string `json:"head"`
}

// Anchor is an AnchorPoint as the console kept it.
type Anchor struct {
	AnchorPoint
	Command int64     `json:"command"`
	At      time.Time `json:"at"`
}

// Head returns the trail's position now, for the console to keep; the
// chain is not checked.
func (a *Audit) Head() (AnchorPoint, error) {
	f, err := os.Open(a.Path)
	if err != nil {
		return AnchorPoint{}, fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	var p AnchorPoint
	sc := newLineScanner(f)
	for sc.Scan() {
		p.Seq++
		p.Head = lineHash(sc.Bytes())
		if p.Seq == 1 {
			p.Chain = p.Head
		}
	}
	if err := sc.Err(); err != nil {
		return AnchorPoint{}, fmt.Errorf("audit: %w", err)
	}
	if p.Seq == 0 {
		return AnchorPoint{}, fmt.Errorf("audit: %s is empty", a.Path)
	}
	return p, nil
}

// Trail is a trail whose local chain holds.
type Trail struct {
	Path   string
	hashes []string // of each line
	// delivered counts the results the trail says reached the console: a
	// "result" line not followed by "result-undelivered" for its command.
	delivered int
}

// ReadTrail reads the trail at path and checks its chain; an error names
// the first bad line.
func ReadTrail(path string) (*Trail, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("verify the audit trail: %w", err)
	}
	defer f.Close()
	t := &Trail{Path: path}
	pending := map[int64]bool{}
	sc := newLineScanner(f)
	prev := ""
	for sc.Scan() {
		n := len(t.hashes) + 1
		var e AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s line %d is not an audit entry: %w", path, n, err)
		}
		if e.Prev != prev {
			return nil, fmt.Errorf("%s line %d breaks the chain: it names %q as the line before, which hashes to %q (a line was changed, dropped or inserted at or before it)", path, n, clip.Hash(e.Prev), clip.Hash(prev))
		}
		prev = lineHash(sc.Bytes())
		t.hashes = append(t.hashes, prev)
		switch e.Event {
		case "result":
			pending[e.Command] = true
			t.delivered++
		case "result-undelivered":
			if pending[e.Command] {
				delete(pending, e.Command)
				t.delivered--
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("verify the audit trail: %w", err)
	}
	return t, nil
}

// Lines is how many lines the trail holds.
func (t *Trail) Lines() int { return len(t.hashes) }

// Chain is the trail's chain id, the hash of its first line ("" when it
// is empty).
func (t *Trail) Chain() string {
	if len(t.hashes) == 0 {
		return ""
	}
	return t.hashes[0]
}

// Check compares the trail with the anchors the console keeps of its
// chain and returns what it found, as a sentence; an error is a trail
// that is not the one the console anchored: a line rewritten at or before
// an anchor (even with every later hash recomputed), lines dropped, or
// results the trail says the console took but no anchor of its chain.
func (t *Trail) Check(anchors []Anchor) (string, error) {
	var newest *Anchor
	for i := range anchors {
		a := &anchors[i]
		if a.Chain != t.Chain() {
			continue
		}
		if a.Seq > int64(len(t.hashes)) {
			return "", fmt.Errorf("%s holds %d lines, but the console anchored line %d of it (%s): lines were dropped from its end",
				t.Path, len(t.hashes), a.Seq, a.At.Format(time.RFC3339))
		}
		if got := t.hashes[a.Seq-1]; got != a.Head {
			return "", fmt.Errorf("%s line %d hashes to %s, but the console anchored %s there (%s, with the result of instruction %d): the trail was rewritten at or before line %d",
				t.Path, a.Seq, clip.Hash(got), clip.Hash(a.Head), a.At.Format(time.RFC3339), a.Command, a.Seq)
		}
		if newest == nil || a.Seq > newest.Seq {
			newest = a
		}
	}
	if newest == nil {
		if t.delivered > 0 {
			return "", fmt.Errorf("%s says %d results reached the console, but the console keeps no anchor of its chain %s: its first line was rewritten, or its results were sent by a core that did not anchor them (then start a new trail with --audit-file)",
				t.Path, t.delivered, clip.Hash(t.Chain()))
		}
		return fmt.Sprintf("the chain holds (%d lines); the console keeps no anchor of it yet (no result reached the console from it): a rewrite is caught once a result is anchored", len(t.hashes)), nil
	}
	msg := fmt.Sprintf("the chain holds (%d lines) and matches the console's anchors up to line %d (%s)", len(t.hashes), newest.Seq, newest.At.Format(time.RFC3339))
	switch after := int64(len(t.hashes)) - newest.Seq; {
	case after == 1:
		msg += "; the last line is not anchored yet: a rewrite of it is caught after the next result"
	case after > 1:
		msg += fmt.Sprintf("; the last %d lines are not anchored yet: a rewrite of them is caught after the next result", after)
	}
	return msg, nil
}

func newLineScanner(f *os.File) *bufio.Scanner {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	return sc
}
