package toon

import (
	"fmt"
	"sort"
	"strings"
)

// Decoder decodes TOON documents with a fixed set of options. A Decoder is
// safe for concurrent use. The zero value is not usable; call [NewDecoder].
type Decoder struct {
	indent          int
	strict          bool
	expandPaths     bool
	useNumber       bool
	disallowUnknown bool
}

// DecodeOption configures a [Decoder].
type DecodeOption func(*Decoder)

// DecodeIndent sets the number of spaces per indentation level (default 2).
// Values below 1 make decoding fail.
func DecodeIndent(n int) DecodeOption { return func(d *Decoder) { d.indent = n } }

// Strict turns strict mode (§14) on or off. It is on by default.
func Strict(on bool) DecodeOption { return func(d *Decoder) { d.strict = on } }

// ExpandPaths turns safe path expansion (§13.4, expandPaths="safe") on or
// off: unquoted dotted keys whose segments are all identifiers are split
// into nested objects and deep-merged. It is off by default.
func ExpandPaths(on bool) DecodeOption { return func(d *Decoder) { d.expandPaths = on } }

// UseNumber makes every decoded number a [Number] holding its literal text.
func UseNumber() DecodeOption { return func(d *Decoder) { d.useNumber = true } }

// DisallowUnknownFields makes [Unmarshal] fail with an *[UnknownFieldError]
// when an object key matches no field of the destination struct.
func DisallowUnknownFields() DecodeOption { return func(d *Decoder) { d.disallowUnknown = true } }

// NewDecoder returns a Decoder with the given options applied over the
// defaults (indent 2, strict mode on, no path expansion).
func NewDecoder(opts ...DecodeOption) *Decoder {
	d := &Decoder{indent: 2, strict: true}
	for _, o := range opts {
		o(d)
	}
	return d
}

// Decode parses a TOON document into a generic value (see the package
// documentation for the types used). Malformed input yields a *[SyntaxError].
func Decode(data []byte, opts ...DecodeOption) (any, error) {
	return NewDecoder(opts...).Decode(data)
}

// Decode parses a TOON document into a generic value.
func (d *Decoder) Decode(data []byte) (any, error) {
	if d.indent < 1 {
		return nil, fmt.Errorf("toon: indent must be at least 1, got %d", d.indent)
	}
	lines, err := splitLines(string(data), d.indent, d.strict)
	if err != nil {
		return nil, err
	}
	p := &parser{lines: lines, strict: d.strict, expand: d.expandPaths, useNumber: d.useNumber}
	p.next = make([]int, len(lines)+1)
	p.next[len(lines)] = len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].blank {
			p.next[i] = p.next[i+1]
		} else {
			p.next[i] = i
		}
	}
	for i, l := range lines {
		if l.blank {
			p.blanks = append(p.blanks, i)
		}
	}
	v, err := p.document()
	if err != nil {
		return nil, err
	}
	return v, nil
}

// parser holds the state of one decode.
type parser struct {
	lines     []line
	pos       int   // index of the next unconsumed line
	next      []int // next[i]: index of the first non-blank line at or after i
	blanks    []int // indices of blank lines, ascending
	strict    bool
	expand    bool
	useNumber bool
}

// peek returns the index of the next non-blank line at or after p.pos.
func (p *parser) peek() (int, bool) {
	i := p.next[p.pos]
	return i, i < len(p.lines)
}

// document decides the root form (§5) and parses the whole input.
func (p *parser) document() (any, error) {
	first, ok := p.peek()
	if !ok {
		return Object{}, nil
	}
	l := p.lines[first]
	if l.depth != 0 {
		return nil, syntaxErr(l.num, "unexpected indentation: the first line must not be indented")
	}
	lh, err := parseHead(l.content, l.num, p.strict)
	if err != nil {
		return nil, err
	}
	if lh.kind == headArray && !lh.hasKey {
		p.pos = first + 1
		v, err := p.array(lh, l, 0)
		if err != nil {
			return nil, err
		}
		if i, ok := p.peek(); ok {
			return nil, syntaxErr(p.lines[i].num, "unexpected content after the root array")
		}
		return v, nil
	}
	nonBlank := len(p.lines) - len(p.blanks)
	if nonBlank == 1 {
		if trimWS(l.content) == "[]" {
			return []any{}, nil
		}
		if lh.kind == headNone {
			return parsePrimitive(l.content, l.num, p.useNumber)
		}
	}
	p.pos = first
	return p.object(0)
}

// object parses the fields of an object at the given depth.
func (p *parser) object(depth int) (Object, error) {
	var b objBuilder
	if err := p.fields(&b, depth); err != nil {
		return nil, err
	}
	return b.build(p)
}

// fields parses consecutive field lines at depth into b.
func (p *parser) fields(b *objBuilder, depth int) error {
	for {
		i, ok := p.peek()
		if !ok {
			return nil
		}
		l := p.lines[i]
		if l.depth < depth {
			return nil
		}
		if l.depth > depth {
			return unexpectedIndent(l, depth)
		}
		if l.content == "-" || strings.HasPrefix(l.content, "- ") || strings.HasPrefix(l.content, "-\t") {
			return syntaxErr(l.num, "unexpected list item: no array header declares it; expected \"key: value\"")
		}
		p.pos = i + 1
		lh, err := parseHead(l.content, l.num, p.strict)
		if err != nil {
			return err
		}
		if err := p.field(b, lh, l, depth); err != nil {
			return err
		}
	}
}

func unexpectedIndent(l line, want int) error {
	return syntaxErr(l.num, "unexpected indentation (level %d where level %d or less was expected)", l.depth, want)
}

// field decodes the value of one field line whose key sits at depth and
// adds it to b.
func (p *parser) field(b *objBuilder, lh lineHead, l line, depth int) error {
	var val any
	var err error
	switch lh.kind {
	case headNone:
		return lh.why
	case headArray:
		if !lh.hasKey {
			return syntaxErr(l.num, "array header without a key inside an object; expected \"key[N]: ...\"")
		}
		val, err = p.array(lh, l, depth)
	default:
		switch rest := trimWS(lh.rest); rest {
		case "":
			val, err = p.object(depth + 1)
		case "[]":
			val = []any{}
		default:
			val, err = parsePrimitive(rest, l.num, p.useNumber)
		}
	}
	if err != nil {
		return err
	}
	return b.add(p, entry{key: lh.key, quoted: lh.quoted, val: val, line: l.num})
}

// array parses the body of an array whose header line l sits at depth.
func (p *parser) array(lh lineHead, l line, depth int) (any, error) {
	h := lh.hdr
	rest := trimWS(lh.rest)
	if h.fields != nil {
		if rest != "" {
			return nil, syntaxErr(l.num, "unexpected values after tabular header; rows belong on the following lines")
		}
		return p.tabular(h, l, depth+1)
	}
	if rest == "" {
		return p.list(h, l, depth+1)
	}
	toks := splitDelimited(rest, h.delim)
	if p.strict && len(toks) != h.length {
		return nil, countErr(l.num, h.length, len(toks))
	}
	vals := make([]any, len(toks))
	for i, t := range toks {
		v, err := parsePrimitive(t, l.num, p.useNumber)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

func countErr(num, declared, found int) error {
	return syntaxErr(num, "array declared %d %s, found %d", declared, plural(declared, "item"), found)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// capHint bounds a slice capacity derived from a declared length.
func capHint(n int) int { return min(n, 64) }

// list parses the "- " items of an expanded array at itemDepth.
func (p *parser) list(h header, hl line, itemDepth int) ([]any, error) {
	items := make([]any, 0, capHint(h.length))
	for {
		i, ok := p.peek()
		if !ok {
			break
		}
		l := p.lines[i]
		if l.depth < itemDepth {
			break
		}
		if l.depth > itemDepth {
			return nil, unexpectedIndent(l, itemDepth)
		}
		if l.content != "-" && !strings.HasPrefix(l.content, "- ") {
			if trimWS(l.content) != "-" {
				return nil, syntaxErr(l.num, "expected a list item \"- ...\" for the array declared on line %d", hl.num)
			}
		}
		p.pos = i + 1
		v, err := p.listItem(l, itemDepth)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
	if p.strict && len(items) != h.length {
		return nil, countErr(hl.num, h.length, len(items))
	}
	return items, p.checkBlanks(hl)
}

// checkBlanks rejects, in strict mode, blank lines between the header line
// of an array and the last line consumed for it (§12, §14.2).
func (p *parser) checkBlanks(hl line) error {
	if !p.strict {
		return nil
	}
	start, end := hl.num-1, p.pos-1
	k := sort.SearchInts(p.blanks, start+1)
	if k < len(p.blanks) && p.blanks[k] < end {
		return syntaxErr(p.lines[p.blanks[k]].num, "blank line inside the array declared on line %d", hl.num)
	}
	return nil
}

// listItem parses one list item whose hyphen sits at itemDepth (§9.4, §10).
func (p *parser) listItem(l line, itemDepth int) (any, error) {
	body := trimWS(l.content[1:])
	if body == "" {
		return Object{}, nil
	}
	lh, err := parseHead(body, l.num, p.strict)
	if err != nil {
		return nil, err
	}
	switch {
	case lh.kind == headNone:
		return parsePrimitive(body, l.num, p.useNumber)
	case lh.kind == headArray && !lh.hasKey:
		return p.array(lh, l, itemDepth)
	}
	// An object whose first field is on the hyphen line; its fields sit one
	// level below the hyphen.
	var b objBuilder
	if err := p.field(&b, lh, l, itemDepth+1); err != nil {
		return nil, err
	}
	if err := p.fields(&b, itemDepth+1); err != nil {
		return nil, err
	}
	return b.build(p)
}

// tabular parses the rows of a tabular array at rowDepth (§9.3).
func (p *parser) tabular(h header, hl line, rowDepth int) ([]any, error) {
	if p.strict {
		for i, f := range h.fields {
			for _, g := range h.fields[:i] {
				if f == g {
					return nil, syntaxErr(hl.num, "duplicate field %q in tabular header", f)
				}
			}
		}
	}
	rows := make([]any, 0, capHint(h.length))
	for {
		i, ok := p.peek()
		if !ok {
			break
		}
		l := p.lines[i]
		if l.depth < rowDepth {
			break
		}
		if l.depth > rowDepth {
			return nil, unexpectedIndent(l, rowDepth)
		}
		if d, c := firstUnquoted(l.content, h.delim); c >= 0 && (d < 0 || c < d) {
			break // a key-value line ends the rows
		}
		p.pos = i + 1
		toks := splitDelimited(l.content, h.delim)
		if p.strict && len(toks) != len(h.fields) {
			return nil, syntaxErr(l.num, "tabular row has %d %s, expected %d (fields: %s)",
				len(toks), plural(len(toks), "value"), len(h.fields), strings.Join(h.fields, string(h.delim)))
		}
		var b objBuilder
		for k, f := range h.fields {
			if k >= len(toks) {
				break
			}
			v, err := parsePrimitive(toks[k], l.num, p.useNumber)
			if err != nil {
				return nil, err
			}
			if err := b.add(p, entry{key: f, quoted: h.fieldsQuoted[k], val: v, line: l.num}); err != nil {
				return nil, err
			}
		}
		row, err := b.build(p)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	if p.strict && len(rows) != h.length {
		return nil, countErr(hl.num, h.length, len(rows))
	}
	return rows, p.checkBlanks(hl)
}
