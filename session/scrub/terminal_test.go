package scrub

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerminal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{name: "plain text, newlines and tabs stay", in: "ok\tgo test ./...\nPASS\n", want: "ok\tgo test ./...\nPASS\n"},
		{name: "UTF-8 stays", in: "héllo ─ 世界 ✓", want: "héllo ─ 世界 ✓"},
		{name: "CRLF stays", in: "line\r\nnext\r\n", want: "line\r\nnext\r\n"},
		{name: "clear screen (CSI)", in: "\x1b[2J\x1b[H", want: `\x1b[2J\x1b[H`},
		{name: "colour (CSI)", in: "\x1b[31mred\x1b[0m", want: `\x1b[31mred\x1b[0m`},
		{name: "clipboard (OSC 52, BEL)", in: "\x1b]52;c;cm0gLXJmIH4=\x07", want: `\x1b]52;c;cm0gLXJmIH4=\x07`},
		{name: "title (OSC 0, ST)", in: "\x1b]0;pwned\x1b\\", want: `\x1b]0;pwned\x1b\`},
		{name: "hyperlink (OSC 8)", in: "\x1b]8;;http://evil.test/\x1b\\click\x1b]8;;\x1b\\", want: `\x1b]8;;http://evil.test/\x1b\click\x1b]8;;\x1b\`},
		{name: "DCS", in: "\x1bP1$r0m\x1b\\", want: `\x1bP1$r0m\x1b\`},
		{name: "bare ESC", in: "a\x1bb", want: `a\x1bb`},
		{name: "BEL and backspace", in: "ding\x07 rm -rf\b\b\b\b\b\bls", want: `ding\x07 rm -rf\x08\x08\x08\x08\x08\x08ls`},
		{name: "a carriage return that overwrites", in: "evil\rgood\n", want: `evil\x0dgood` + "\n"},
		{name: "a final carriage return", in: "x\r", want: `x\x0d`},
		{name: "DEL and NUL", in: "a\x7fb\x00", want: `a\x7fb\x00`},
		{name: "C1 CSI as a rune", in: "a\u009b2Jb", want: `a\u009b2Jb`},
		{name: "C1 CSI as a raw byte", in: "a\x9b2Jb", want: `a\x9b2Jb`},
		{name: "NEL as a rune", in: "\u0085", want: `\u0085`},
		{name: "bidi override", in: "access\u202e level", want: `access\u202e level`},
		{name: "bidi isolate", in: "\u2066x\u2069", want: `\u2066x\u2069`},
		{name: "invalid UTF-8", in: "\xff\xfe ok \xc3", want: `\xff\xfe ok \xc3`},
		{name: "a PR URL with an escape", in: "https://github.test/o/r/pull/1\x1b]8;;http://evil.test\x07", want: `https://github.test/o/r/pull/1\x1b]8;;http://evil.test\x07`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Terminal(tt.in)
			if got != tt.want {
				t.Errorf("Terminal(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Terminal(got); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
		})
	}
}

// TestTerminalWriter: the writer escapes what it passes on, holds a
// character split across writes until it is whole, and a CR until it
// knows whether an LF follows.
func TestTerminalWriter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "one write", writes: []string{"\x1b[2Jhi\n"}, want: `\x1b[2Jhi` + "\n"},
		{name: "a rune split in two", writes: []string{"a\xe2\x94", "\x80b"}, want: "a─b"},
		{name: "a C1 rune split in two", writes: []string{"a\xc2", "\x9bb"}, want: `a\u009bb`},
		{name: "CR then LF in the next write", writes: []string{"a\r", "\nb"}, want: "a\r\nb"},
		{name: "CR then text in the next write", writes: []string{"a\r", "b"}, want: `a\x0db`},
		{name: "an escape split in two", writes: []string{"\x1b", "]0;t\x07"}, want: `\x1b]0;t\x07`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			w := TerminalWriter(&out)
			for _, s := range tt.writes {
				n, err := w.Write([]byte(s))
				if err != nil || n != len(s) {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if out.String() != tt.want {
				t.Errorf("wrote %q, want %q", out.String(), tt.want)
			}
			if TerminalWriter(w) != w {
				t.Error("wrapping twice made a second writer")
			}
		})
	}
}

// checkTerminalSafe fails when out holds anything a terminal would obey.
func checkTerminalSafe(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Terminal(%q) = %q: not UTF-8", in, out)
	}
	for i, r := range out {
		switch {
		case r == '\n' || r == '\t':
		case r == '\r' && strings.HasPrefix(out[i:], "\r\n"):
		case r < 0x20 || r == 0x7f || hostileRune(r):
			t.Fatalf("Terminal(%q) = %q: holds %U at %d", in, out, r, i)
		}
	}
}

func FuzzTerminal(f *testing.F) {
	for _, s := range []string{"", "plain\n", "\x1b[2J", "\x1b]52;c;eA==\x07", "a\r\nb\rc", "\xc2\x9b", "\xe2\x80\xae", "\xff", "─\xe2\x94"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, in string, cut int) {
		out := Terminal(in)
		checkTerminalSafe(t, in, out)
		if again := Terminal(out); again != out {
			t.Fatalf("not idempotent on %q: %q then %q", in, out, again)
		}
		// Written in two pieces, the writer says the same, once what it
		// holds at the end is flushed.
		if cut < 0 {
			cut = -cut
		}
		if len(in) > 0 {
			cut %= len(in) + 1
		} else {
			cut = 0
		}
		var buf bytes.Buffer
		w := TerminalWriter(&buf).(*terminalWriter)
		_, _ = w.Write([]byte(in[:cut]))
		_, _ = w.Write([]byte(in[cut:]))
		if got := buf.String() + Terminal(string(w.held)); got != out {
			t.Fatalf("written as %q and %q: %q, want %q", in[:cut], in[cut:], got, out)
		}
	})
}
