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
	"sync"
)

// Mark replaces every secret.
const Mark = "[redacted]"

// MinLen is the shortest secret scrubbed: a shorter string would redact
// ordinary words and tells an attacker little.
const MinLen = 4

// Scrubber replaces secrets with Mark. Safe for concurrent use.
type Scrubber struct {
	static []string
	// more, when set, is asked for further secrets at each use (a token
	// source hands out new tokens during a run); seen is how many it gave.
	more func() []string

	mu       sync.Mutex
	seen     int
	forms    []string // every secret and its JSON-escaped form, longest first
	replacer *strings.Replacer
}

// New returns a scrubber for secrets; nil when none is MinLen bytes or
// longer. Each secret is also scrubbed in the form JSON encodes it in, so
// scrubbing the bytes of a JSON file works.
func New(secrets ...string) *Scrubber {
	s := &Scrubber{static: secrets}
	s.build(nil)
	if len(s.forms) == 0 {
		return nil
	}
	return s
}

// Dynamic returns a scrubber for secrets and for whatever more returns,
// asked again at each use: the secrets a run learns as it goes (a refreshed
// installation token) are scrubbed from then on.
func Dynamic(more func() []string, secrets ...string) *Scrubber {
	s := &Scrubber{static: secrets, more: more}
	s.build(more())
	return s
}

// build makes the forms and the replacer of the static secrets and extra.
func (s *Scrubber) build(extra []string) {
	var forms []string
	for _, sec := range append(append([]string{}, s.static...), extra...) {
		if len(sec) < MinLen {
			continue
		}
		forms = append(forms, sec)
		if b, err := json.Marshal(sec); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != sec {
				forms = append(forms, esc)
			}
		}
	}
	// Longest first: a secret that holds another is replaced whole.
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	forms = slices.Compact(forms)
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Mark)
	}
	s.seen, s.forms, s.replacer = len(extra), forms, strings.NewReplacer(pairs...)
}

// current returns the forms and the replacer, rebuilt when the dynamic
// source has more to say.
func (s *Scrubber) current() ([]string, *strings.Replacer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.more != nil {
		if extra := s.more(); len(extra) != s.seen {
			s.build(extra)
		}
	}
	return s.forms, s.replacer
}

// String returns text with every secret replaced by Mark.
func (s *Scrubber) String(text string) string {
	if s == nil {
		return text
	}
	_, r := s.current()
	return r.Replace(text)
}

// Bytes is String for bytes; b is returned as is when it holds no secret.
func (s *Scrubber) Bytes(b []byte) []byte {
	if s == nil || !s.containsBytes(b) {
		return b
	}
	_, r := s.current()
	return []byte(r.Replace(string(b)))
}

// Contains reports whether text holds a secret.
func (s *Scrubber) Contains(text string) bool {
	if s == nil {
		return false
	}
	forms, _ := s.current()
	for _, f := range forms {
		if strings.Contains(text, f) {
			return true
		}
	}
	return false
}

func (s *Scrubber) containsBytes(b []byte) bool {
	forms, _ := s.current()
	for _, f := range forms {
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
