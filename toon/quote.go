package toon

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// encodeKey renders an object key or field name, quoting it unless it
// matches ^[A-Za-z_][A-Za-z0-9_.]*$ (§7.3).
func encodeKey(k string) string {
	if isUnquotedKey(k) {
		return k
	}
	return string(appendQuoted(nil, k))
}

// appendString appends a string value, quoted when §7.2 requires it for the
// given delimiter.
func appendString(buf []byte, s string, delim byte) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if needsQuotes(s, delim) {
		return appendQuoted(buf, s)
	}
	return append(buf, s...)
}

// needsQuotes implements the quoting rules of §7.2, and quotes a string
// that begins with "#", which the reference decoder reads as a comment
// when it starts a line.
func needsQuotes(s string, delim byte) bool {
	if s == "" || s == "true" || s == "false" || s == "null" || s[0] == '-' || s[0] == '#' {
		return true
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if isSpaceRune(first) || isSpaceRune(last) {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ':', '"', '\\', '[', ']', '{', '}', delim:
			return true
		default:
			if c < 0x20 {
				return true
			}
		}
	}
	return isNumericLike(s)
}

// isSpaceRune reports leading or trailing characters that a trimming
// reader could drop.
func isSpaceRune(r rune) bool {
	return unicode.IsSpace(r) || r == '\uFEFF'
}

// isNumericLike matches /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.
func isNumericLike(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		return i > start
	}
	if !digits() {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

const hexDigits = "0123456789abcdef"

// appendQuoted appends s as a quoted string escaped per §7.1.
func appendQuoted(buf []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"':
			buf = append(buf, '\\', '"')
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
