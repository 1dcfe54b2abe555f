package scrub

import (
	"io"
	"sync"
	"unicode/utf8"
)

// What reaches a person's terminal. Text from the model, from a command in
// the box, from a page or from GitHub (a branch, a URL, a title) may carry
// control characters a terminal obeys: escape sequences (CSI: clear the
// screen, move the cursor; OSC: set the title, write the clipboard with
// OSC 52, hyperlinks with OSC 8; DCS), a bare ESC, C1 controls
// (U+0080-U+009F, and the raw bytes 0x80-0x9f some terminals read as
// them), BEL, backspace and carriage returns that overwrite what was
// printed, and the bidirectional overrides that reorder a line. Terminal
// shows each of them escaped, so the sequence is printed and not obeyed:
// ESC as \x1b, a C1 control as \u009b, a byte that is not UTF-8 as \xNN.
// Newlines and tabs stay, and so does a carriage return right before a
// newline (CRLF text). Everything else is kept as it is; escaping what is
// already escaped changes nothing.

// Terminal returns s with every control character escaped (see above).
func Terminal(s string) string {
	out, rest := appendTerminal(nil, []byte(s), true)
	return string(append(out, rest...))
}

// TerminalWriter returns a writer that escapes, as Terminal does, what it
// passes on to w: the one wrapper of every writer whose text a person's
// terminal shows (a session's progress and output, the command line's
// standard output and error). A character split across two writes is
// held until the next one completes it. Safe for concurrent use.
func TerminalWriter(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	if tw, ok := w.(*terminalWriter); ok {
		return tw
	}
	return &terminalWriter{w: w}
}

type terminalWriter struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte // an unfinished character, or a carriage return, from the last write
}

func (t *terminalWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	in := p
	if len(t.held) > 0 {
		in = append(t.held, p...)
	}
	out, rest := appendTerminal(make([]byte, 0, len(in)+16), in, false)
	t.held = append(t.held[:0:0], rest...)
	if len(out) > 0 {
		if _, err := t.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

const hexDigits = "0123456789abcdef"

// appendTerminal appends p, escaped, to dst. Unless final, it returns the
// tail that may still change meaning with the next bytes (an unfinished
// UTF-8 character, a carriage return) as rest, not escaped.
func appendTerminal(dst, p []byte, final bool) (out, rest []byte) {
	for i := 0; i < len(p); {
		b := p[i]
		switch {
		case b == '\n' || b == '\t' || (b >= 0x20 && b < 0x7f):
			dst = append(dst, b)
			i++
			continue
		case b == '\r':
			if i+1 < len(p) && p[i+1] == '\n' {
				dst = append(dst, '\r', '\n')
				i += 2
				continue
			}
			if i+1 == len(p) && !final {
				return dst, p[i:]
			}
			dst = appendByte(dst, b)
			i++
			continue
		case b < utf8.RuneSelf:
			dst = appendByte(dst, b) // C0 controls and DEL
			i++
			continue
		}
		if !final && !utf8.FullRune(p[i:]) {
			return dst, p[i:]
		}
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = appendByte(dst, b)
		case hostileRune(r):
			dst = append(dst, '\\', 'u',
				hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
		default:
			dst = append(dst, p[i:i+size]...)
		}
		i += size
	}
	return dst, nil
}

// hostileRune reports whether a terminal may obey r rather than show it:
// the C1 controls and the bidirectional embeddings, overrides and
// isolates.
func hostileRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

func appendByte(dst []byte, b byte) []byte {
	return append(dst, '\\', 'x', hexDigits[b>>4], hexDigits[b&0xf])
}
