// Package scrub removes the secrets core knows of (the GitHub token and the
// forms git sends it in, the model endpoint's key) from text on its way out
// of core: to the terminal, to disk, to git and to GitHub.
//
// One Scrubber is made per run from the run's secrets and is applied where
// text leaves: the writers (Writer), the errors (Error), the bytes written
// to files (Bytes), and every string handed to git or the GitHub API
// (String). A nil *Scrubber scrubs nothing, so callers need no checks.
package scrub

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
)

// Mark replaces every secret.
const Mark = "[redacted]"

// MinLen is the shortest secret scrubbed: a shorter string would redact
// ordinary words and tells an attacker little.
const MinLen = 4

// Scrubber replaces secrets with Mark.
type Scrubber struct {
	forms    []string // every secret and its JSON-escaped form, longest first
	replacer *strings.Replacer
}

// New returns a scrubber for secrets; nil when none is MinLen bytes or
// longer. Each secret is also scrubbed in the form JSON encodes it in, so
// scrubbing the bytes of a JSON file works.
func New(secrets ...string) *Scrubber {
	var forms []string
	for _, s := range secrets {
		if len(s) < MinLen {
			continue
		}
		forms = append(forms, s)
		if b, err := json.Marshal(s); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != s {
				forms = append(forms, esc)
			}
		}
	}
	if len(forms) == 0 {
		return nil
	}
	// Longest first: a secret that holds another is replaced whole.
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	forms = slices.Compact(forms)
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Mark)
	}
	return &Scrubber{forms: forms, replacer: strings.NewReplacer(pairs...)}
}

// String returns text with every secret replaced by Mark.
func (s *Scrubber) String(text string) string {
	if s == nil {
		return text
	}
	return s.replacer.Replace(text)
}

// Bytes is String for bytes; b is returned as is when it holds no secret.
func (s *Scrubber) Bytes(b []byte) []byte {
	if s == nil || !s.containsBytes(b) {
		return b
	}
	return []byte(s.replacer.Replace(string(b)))
}

// Contains reports whether text holds a secret.
func (s *Scrubber) Contains(text string) bool {
	if s == nil {
		return false
	}
	for _, f := range s.forms {
		if strings.Contains(text, f) {
			return true
		}
	}
	return false
}

func (s *Scrubber) containsBytes(b []byte) bool {
	for _, f := range s.forms {
		if bytes.Contains(b, []byte(f)) {
			return true
		}
	}
	return false
}

// Error returns err with its message scrubbed; errors.Is and errors.As
// still see the errors it wraps. nil stays nil.
func (s *Scrubber) Error(err error) error {
	if err == nil || s == nil {
		return err
	}
	msg := err.Error()
	if !s.Contains(msg) {
		return err
	}
	return &scrubbed{err: err, msg: s.String(msg)}
}

type scrubbed struct {
	err error
	msg string
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// Writer returns a writer that scrubs each Write before passing it to w.
// A secret split across two Writes is not seen: core writes each line, and
// each prompt, in one call. A nil scrubber returns w.
func (s *Scrubber) Writer(w io.Writer) io.Writer {
	if s == nil || w == nil {
		return w
	}
	if sw, ok := w.(*writer); ok && sw.s == s {
		return w
	}
	return &writer{s: s, w: w}
}

type writer struct {
	s *Scrubber
	w io.Writer
}

func (w *writer) Write(p []byte) (int, error) {
	if _, err := w.w.Write(w.s.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
