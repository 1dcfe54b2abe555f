// Package transcript keeps a run's transcript file (transcript.jsonl, one
// budget.Entry a line, scrubbed and written through on every append): a
// torn last line cut off on open, and the entries read back for a resume.
package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/scrub"
)

// File appends entries to transcript.jsonl, one JSON object per line,
// written through to the file on every append.
type File struct {
	f     *os.File
	scrub *scrub.Scrubber
}

// Open opens path for appending. Files with looser permissions
// are tightened to 0600, and a torn last line (a crash mid-write) is cut off
// so the next entry starts on a line of its own. Every line is scrubbed of
// sc's secrets before it is written.
func Open(path string, sc *scrub.Scrubber) (*File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	if fi.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, fmt.Errorf("tighten transcript permissions: %w", err)
		}
	}
	if err := cutTornTail(f, fi.Size()); err != nil {
		f.Close()
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	return &File{f: f, scrub: sc}, nil
}

// cutTornTail truncates the file after its last newline.
func cutTornTail(f *os.File, size int64) error {
	if size == 0 {
		return nil
	}
	const chunk = 64 << 10
	end := size
	for end > 0 {
		start := max(end-chunk, 0)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			if start+int64(i)+1 == size {
				return nil
			}
			return f.Truncate(start + int64(i) + 1)
		}
		end = start
	}
	return f.Truncate(0)
}

// Append writes one entry as one line.
func (t *File) Append(e budget.Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode transcript entry: %w", err)
	}
	if _, err := t.f.Write(t.scrub.Bytes(append(b, '\n'))); err != nil {
		return fmt.Errorf("append to transcript: %w", err)
	}
	return nil
}

// Close closes the file.
func (t *File) Close() error { return t.f.Close() }

// Name is the file's path.
func (t *File) Name() string { return t.f.Name() }

// Read reads every entry of a transcript. A torn last line is
// ignored; a damaged line anywhere else is an error naming it.
func Read(path string) ([]budget.Entry, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	var entries []budget.Entry
	r := bufio.NewReader(f)
	for line := 1; ; line++ {
		b, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			// No newline: a torn last line, or nothing.
			return entries, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		var e budget.Entry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("transcript %s line %d is damaged: %w", path, line, err)
		}
		entries = append(entries, e)
	}
}
