package toon

import (
	"strings"
	"unicode/utf8"
)

// line is one physical line of a document.
type line struct {
	num     int    // 1-based line number
	depth   int    // indentation level
	content string // text after the indentation, trailing whitespace kept
	blank   bool   // the line holds only whitespace
}

// splitLines breaks a document into lines and computes their depth,
// enforcing the indentation rules of §12.
func splitLines(data string, indent int, strict bool) ([]line, error) {
	if !utf8.ValidString(data) {
		bad := 0
		for bad < len(data) {
			r, size := utf8.DecodeRuneInString(data[bad:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			bad += size
		}
		return nil, syntaxErr(1+strings.Count(data[:bad], "\n"), "invalid UTF-8 encoding")
	}
	lines := make([]line, 0, 1+strings.Count(data, "\n"))
	num := 0
	for rest := data; ; {
		num++
		raw, next, more := strings.Cut(rest, "\n")
		rest = next
		if more {
			raw = strings.TrimSuffix(raw, "\r")
		}
		ws := 0
		for ws < len(raw) && (raw[ws] == ' ' || raw[ws] == '\t') {
			ws++
		}
		if ws < len(raw) && raw[ws] == '#' && strings.IndexByte(raw[:ws], '\t') < 0 {
			// A full-line comment, as the reference implementation reads
			// one: dropped before any indentation check.
			if !more {
				break
			}
			continue
		}
		l := line{num: num}
		switch {
		case ws == len(raw):
			l.blank = true
		case strings.IndexByte(raw[:ws], '\t') >= 0:
			return nil, syntaxErr(num, "tab character in indentation; indent with spaces")
		default:
			if strict && ws%indent != 0 {
				return nil, syntaxErr(num, "indentation of %d spaces is not a multiple of %d", ws, indent)
			}
			l.depth = ws / indent
			l.content = raw[ws:]
		}
		lines = append(lines, l)
		if !more {
			break
		}
	}
	return lines, nil
}

// trimWS removes surrounding spaces and tabs.
func trimWS(s string) string {
	i, j := 0, len(s)
	for i < j && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	return s[i:j]
}

// scanQuoted reads the quoted string that starts at s[i] (a double quote)
// and returns its unescaped value and the index just past the closing quote.
// Escapes and characters follow §7.1.
func scanQuoted(s string, i, num int) (string, int, error) {
	start := i + 1
	j := start
	for j < len(s) && s[j] != '"' && s[j] != '\\' && (s[j] >= 0x20 || s[j] == '\t') {
		j++
	}
	if j < len(s) && s[j] == '"' {
		return s[start:j], j + 1, nil
	}
	var b strings.Builder
	b.Grow(len(s) - start)
	b.WriteString(s[start:j])
	for j < len(s) {
		c := s[j]
		if c >= 0x20 && c != '"' && c != '\\' {
			k := j + 1
			for k < len(s) && s[k] >= 0x20 && s[k] != '"' && s[k] != '\\' {
				k++
			}
			b.WriteString(s[j:k])
			j = k
			continue
		}
		switch {
		case c == '"':
			return b.String(), j + 1, nil
		case c == '\\':
			if j+1 >= len(s) {
				return "", 0, syntaxErr(num, "unterminated quoted string")
			}
			switch e := s[j+1]; e {
			case '\\', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := hex4(s, j+2)
				if !ok {
					return "", 0, syntaxErr(num, "invalid \\u escape: expected four hex digits")
				}
				if r >= 0xD800 && r <= 0xDFFF {
					return "", 0, syntaxErr(num, "invalid \\u escape: surrogate U+%04X is not a Unicode scalar value", r)
				}
				b.WriteRune(r)
				j += 4
			default:
				r, _ := utf8.DecodeRuneInString(s[j+1:])
				return "", 0, syntaxErr(num, "invalid escape sequence \\%c in quoted string (allowed: \\\\ \\\" \\n \\r \\t \\uXXXX)", r)
			}
			j += 2
		case c < 0x20 && c != '\t':
			return "", 0, syntaxErr(num, "control character U+%04X must be escaped in a quoted string", c)
		default:
			b.WriteByte(c)
			j++
		}
	}
	return "", 0, syntaxErr(num, "unterminated quoted string")
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		c := s[k]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// splitDelimited splits s on unquoted occurrences of delim (§11.2, B.3).
// Tokens are returned untrimmed.
func splitDelimited(s string, delim byte) []string {
	n := 1
	inQuotes := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuotes && c == '\\':
			i++
		case c == '"':
			inQuotes = !inQuotes
		case !inQuotes && c == delim:
			n++
		}
	}
	out := make([]string, 0, n)
	start := 0
	inQuotes = false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuotes && c == '\\':
			i++
		case c == '"':
			inQuotes = !inQuotes
		case !inQuotes && c == delim:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// firstUnquoted returns the positions of the first unquoted delim and the
// first unquoted colon in s, or -1.
func firstUnquoted(s string, delim byte) (delimPos, colonPos int) {
	delimPos, colonPos = -1, -1
	inQuotes := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuotes && c == '\\':
			i++
		case c == '"':
			inQuotes = !inQuotes
		case inQuotes:
		case c == delim && delimPos < 0:
			delimPos = i
		case c == ':' && colonPos < 0:
			colonPos = i
		}
		if delimPos >= 0 && colonPos >= 0 {
			break
		}
	}
	return delimPos, colonPos
}

// parsePrimitive decodes a value token (§4): a quoted string, true, false,
// null, a number, or else an unquoted string. The token is trimmed first;
// an empty token is the empty string.
func parsePrimitive(tok string, num int, useNumber bool) (any, error) {
	tok = trimWS(tok)
	if tok == "" {
		return "", nil
	}
	switch tok {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if tok[0] == '"' {
		s, end, err := scanQuoted(tok, 0, num)
		if err != nil {
			return nil, err
		}
		if end != len(tok) {
			return nil, syntaxErr(num, "unexpected text %q after closing quote", tok[end:])
		}
		return s, nil
	}
	if v, ok := numberValue(tok, useNumber); ok {
		return v, nil
	}
	return tok, nil
}

// isIdentifierSegment reports whether s matches ^[A-Za-z_][A-Za-z0-9_]*$
// (§1.9), the segments eligible for key folding and path expansion.
func isIdentifierSegment(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')) {
			return false
		}
	}
	return true
}

// isUnquotedKey reports whether s may appear as an unquoted key: it matches
// ^[A-Za-z_][A-Za-z0-9_.]*$ (§7.3).
func isUnquotedKey(s string) bool {
	if s == "" || isDigit(s[0]) || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || c == '.' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')) {
			return false
		}
	}
	return true
}
