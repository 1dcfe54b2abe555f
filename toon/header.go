package toon

import (
	"strconv"
	"strings"
)

// headKind classifies the start of a line.
type headKind int

const (
	headNone  headKind = iota // neither a key-value line nor an array header
	headField                 // key: value (or key: alone)
	headArray                 // [key][N<delim>]{fields}: values
)

// header is a parsed array header (§6).
type header struct {
	length       int
	delim        byte
	fields       []string // nil unless a fields segment is present
	fieldsQuoted []bool
}

// lineHead is the parsed start of a line: its key and, for array headers,
// the header itself. rest is the untrimmed text after the colon.
type lineHead struct {
	kind   headKind
	key    string
	quoted bool // the key was quoted
	hasKey bool // false for keyless headers such as "[2]:"
	hdr    header
	rest   string
	why    error // for headNone: why the line is not a key-value line
}

// headerError is a malformed array header. Errors marked fallback are the
// §6 cases (bad length, content between "]" and ":") after which a
// non-strict decoder reads the line as a key-value line with a literal key.
type headerError struct {
	msg      string
	fallback bool
}

// parseHead parses the key or array header at the start of content.
func parseHead(content string, num int, strict bool) (lineHead, error) {
	var lh lineHead
	if content[0] == '"' {
		key, end, err := scanQuoted(content, 0, num)
		if err != nil {
			return lh, err
		}
		lh.key, lh.quoted, lh.hasKey = key, true, true
		if end < len(content) && content[end] == '[' {
			h, rest, herr := parseHeaderTail(content, end, num, strict)
			if herr != nil {
				return lh, syntaxErr(num, "%s", herr.msg)
			}
			lh.kind, lh.hdr, lh.rest = headArray, h, rest
			return lh, nil
		}
		j := end
		for j < len(content) && (content[j] == ' ' || content[j] == '\t') {
			j++
		}
		if j < len(content) && content[j] == ':' {
			lh.kind, lh.rest = headField, content[j+1:]
			return lh, nil
		}
		lh.why = syntaxErr(num, "missing ':' after key %q", key)
		return lh, nil
	}
	colon := strings.IndexByte(content, ':')
	bracket := strings.IndexByte(content, '[')
	if bracket >= 0 && (colon < 0 || bracket < colon) {
		keyText := content[:bracket]
		h, rest, herr := parseHeaderTail(content, bracket, num, strict)
		switch {
		case herr == nil:
			if keyText != "" && strict && !isUnquotedKey(keyText) {
				return lh, invalidKeyErr(num, keyText)
			}
			lh.kind, lh.key, lh.hasKey, lh.hdr, lh.rest = headArray, keyText, keyText != "", h, rest
			return lh, nil
		case colon < 0:
			lh.why = syntaxErr(num, "%s", herr.msg)
			return lh, nil
		case !herr.fallback || strict:
			return lh, syntaxErr(num, "%s", herr.msg)
		}
		// Non-strict §6 fall-through: the text before the colon is a literal key.
		lh.kind, lh.key, lh.hasKey, lh.rest = headField, trimWS(content[:colon]), true, content[colon+1:]
		return lh, nil
	}
	if colon < 0 {
		lh.why = syntaxErr(num, "missing ':' in %q; expected \"key: value\"", content)
		return lh, nil
	}
	key := trimWS(content[:colon])
	if key == "" {
		return lh, syntaxErr(num, "missing key before ':'")
	}
	if strict && !isUnquotedKey(key) {
		return lh, invalidKeyErr(num, key)
	}
	lh.kind, lh.key, lh.hasKey, lh.rest = headField, key, true, content[colon+1:]
	return lh, nil
}

func invalidKeyErr(num int, key string) error {
	return syntaxErr(num, "invalid unquoted key %q: unquoted keys must match ^[A-Za-z_][A-Za-z0-9_.]*$; quote the key", key)
}

// parseHeaderTail parses the bracket segment starting at s[i] == '[', the
// optional fields segment and the colon, returning the header and the text
// after the colon.
func parseHeaderTail(s string, i, num int, strict bool) (header, string, *headerError) {
	var h header
	k := strings.IndexByte(s[i:], ']')
	if k < 0 {
		return h, "", &headerError{msg: "unterminated array length: missing ']'", fallback: true}
	}
	inner := s[i+1 : i+k]
	h.delim = ','
	if n := len(inner); n > 0 && (inner[n-1] == '\t' || inner[n-1] == '|') {
		h.delim = inner[n-1]
		inner = inner[:n-1]
	}
	if !validLength(inner) {
		return h, "", &headerError{msg: "invalid array length " + strconv.Quote(s[i:i+k+1]) +
			": expected [N], [N|] or [N<TAB>] with N a non-negative integer without leading zeros", fallback: true}
	}
	n, err := strconv.Atoi(inner)
	if err != nil {
		return h, "", &headerError{msg: "array length " + inner + " is too large", fallback: true}
	}
	h.length = n
	j := i + k + 1
	if j < len(s) && s[j] == '{' {
		end := closingBrace(s, j+1)
		if end < 0 {
			return h, "", &headerError{msg: "unterminated field list: missing '}'"}
		}
		if herr := parseFields(&h, s[j+1:end], num, strict); herr != nil {
			return h, "", herr
		}
		j = end + 1
	}
	if j >= len(s) {
		return h, "", &headerError{msg: "missing ':' after array header " + strconv.Quote(s[:j])}
	}
	if s[j] != ':' {
		end := strings.IndexByte(s[j:], ':')
		if end < 0 {
			end = len(s) - j
		}
		return h, "", &headerError{msg: "unexpected " + strconv.Quote(s[j:j+end]) +
			" after array header; expected ':' right after ']' or '}'", fallback: true}
	}
	return h, s[j+1:], nil
}

// validLength matches "0" / %x31-39 *DIGIT.
func validLength(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// closingBrace returns the index of the first unquoted '}' at or after i.
func closingBrace(s string, i int) int {
	inQuotes := false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case inQuotes && c == '\\':
			i++
		case c == '"':
			inQuotes = !inQuotes
		case !inQuotes && c == '}':
			return i
		}
	}
	return -1
}

// parseFields splits and decodes a fields segment with the header's
// delimiter.
func parseFields(h *header, text string, num int, strict bool) *headerError {
	for _, tok := range splitDelimited(text, h.delim) {
		name := trimWS(tok)
		if name == "" {
			return &headerError{msg: "empty field name in tabular header"}
		}
		if name[0] == '"' {
			v, end, err := scanQuoted(name, 0, num)
			if err != nil {
				return &headerError{msg: err.(*SyntaxError).Msg}
			}
			if end != len(name) {
				return &headerError{msg: "unexpected text " + strconv.Quote(name[end:]) + " after quoted field name"}
			}
			h.fields = append(h.fields, v)
			h.fieldsQuoted = append(h.fieldsQuoted, true)
			continue
		}
		if strict {
			for _, d := range []byte{',', '|', '\t'} {
				if d != h.delim && strings.IndexByte(name, d) >= 0 {
					return &headerError{msg: "header delimiter mismatch: the field list uses " + delimName(d) +
						" but the bracket declares " + delimName(h.delim)}
				}
			}
			if !isUnquotedKey(name) {
				return &headerError{msg: "invalid unquoted field name " + strconv.Quote(name) +
					": field names must match ^[A-Za-z_][A-Za-z0-9_.]*$ or be quoted"}
			}
		}
		h.fields = append(h.fields, name)
		h.fieldsQuoted = append(h.fieldsQuoted, false)
	}
	return nil
}

func delimName(d byte) string {
	switch d {
	case '\t':
		return "tab"
	case '|':
		return "pipe"
	}
	return "comma"
}
