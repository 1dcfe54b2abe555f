package toon

import (
	"math"
	"strconv"
	"strings"
)

// decimal is an exactly parsed decimal literal: its value is
// (-1)^neg × 0.digits × 10^pos. digits has no leading or trailing zeros; an
// empty digits string means zero (the sign of zero is dropped).
type decimal struct {
	neg    bool
	digits string
	pos    int
}

// maxExponentDigits bounds the exponent of a parsed literal so that position
// arithmetic cannot overflow.
const maxExponentDigits = 15

// parseDecimal parses s using the JSON number grammar, which is also TOON's
// numeric token grammar (§4): -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
// Tokens with forbidden leading zeros ("05", "-007") are rejected.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	intStart := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[intStart:i]
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return d, false
	}
	fracPart := ""
	if i < len(s) && s[i] == '.' {
		i++
		fracStart := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		fracPart = s[fracStart:i]
		if fracPart == "" {
			return d, false
		}
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		expNeg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		expStart := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		expText := strings.TrimLeft(s[expStart:i], "0")
		if i == expStart || len(expText) > maxExponentDigits {
			return d, false
		}
		for _, c := range []byte(expText) {
			exp = exp*10 + int(c-'0')
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(s) {
		return d, false
	}
	digits := intPart + fracPart
	pos := len(intPart) + exp
	trimmed := strings.TrimLeft(digits, "0")
	pos -= len(digits) - len(trimmed)
	d.digits = strings.TrimRight(trimmed, "0")
	d.pos = pos
	if d.digits == "" {
		d.neg = false
		d.pos = 0
	}
	return d, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// canonical renders d in the canonical number form of §2: plain decimal for
// zero and 1e-6 ≤ |n| < 1e21, exponent form (lowercase e, explicit exponent
// sign, shortest mantissa) otherwise.
func (d decimal) canonical() string {
	if d.digits == "" {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	n := len(d.digits)
	switch {
	case d.pos >= -5 && d.pos <= 21:
		switch {
		case d.pos <= 0:
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -d.pos))
			b.WriteString(d.digits)
		case d.pos >= n:
			b.WriteString(d.digits)
			b.WriteString(strings.Repeat("0", d.pos-n))
		default:
			b.WriteString(d.digits[:d.pos])
			b.WriteByte('.')
			b.WriteString(d.digits[d.pos:])
		}
	default:
		b.WriteByte(d.digits[0])
		if n > 1 {
			b.WriteByte('.')
			b.WriteString(d.digits[1:])
		}
		b.WriteByte('e')
		e := d.pos - 1
		if e < 0 {
			b.WriteByte('-')
			e = -e
		} else {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(e))
	}
	return b.String()
}

// smallIntegerText returns d as a plain integer literal when d is an integer
// with at most 20 digits (enough to decide int64 and uint64 membership).
func (d decimal) smallIntegerText() (string, bool) {
	if d.digits == "" {
		return "0", true
	}
	if d.pos < len(d.digits) || d.pos > 20 {
		return "", false
	}
	s := d.digits + strings.Repeat("0", d.pos-len(d.digits))
	if d.neg {
		s = "-" + s
	}
	return s, true
}

// formatFloat renders a finite float in canonical form using the shortest
// decimal that round-trips at the given bit size.
func formatFloat(f float64, bits int) string {
	if f == 0 {
		return "0"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	d, _ := parseDecimal(strconv.FormatFloat(f, 'e', -1, bits))
	return d.canonical()
}

// numberValue interprets an unquoted token as a number (§4). It reports
// false when the token is not numeric and must be read as a string.
func numberValue(tok string, useNumber bool) (any, bool) {
	if tok == "" || (tok[0] != '-' && !isDigit(tok[0])) {
		return nil, false
	}
	d, ok := parseDecimal(tok)
	if !ok {
		return nil, false
	}
	if useNumber {
		return Number(tok), true
	}
	return decimalValue(d, tok), true
}

// decimalValue converts a parsed literal to int64 when it is an integer in
// range, to float64 when the float64 nearest to it renders back to the same
// canonical decimal (so nothing is lost), and to a lossless Number otherwise
// (for example 9223372036854775808, 1e400 or 0.10000000000000000001).
func decimalValue(d decimal, text string) any {
	if d.digits == "" {
		return int64(0)
	}
	if s, ok := d.smallIntegerText(); ok {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err == nil && f != 0 && formatFloat(f, 64) == d.canonical() {
		return f
	}
	return Number(text)
}
