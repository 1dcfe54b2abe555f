package toon

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Delimiter is the character separating inline array values and tabular
// row cells (§11).
type Delimiter byte

// The delimiters defined by the specification.
const (
	Comma Delimiter = ','  // the default; headers carry no delimiter symbol
	Tab   Delimiter = '\t' // headers carry a tab inside the brackets: [N<TAB>]
	Pipe  Delimiter = '|'  // headers carry a pipe inside the brackets: [N|]
)

// Encoder encodes Go values as TOON with a fixed set of options. An Encoder
// is safe for concurrent use. The zero value is not usable; call
// [NewEncoder].
type Encoder struct {
	indent       int
	delim        Delimiter
	keyFolding   bool
	flattenDepth int
}

// EncodeOption configures an [Encoder].
type EncodeOption func(*Encoder)

// EncodeIndent sets the number of spaces per indentation level (default 2).
// Values below 1 make encoding fail.
func EncodeIndent(n int) EncodeOption { return func(e *Encoder) { e.indent = n } }

// WithDelimiter sets the document delimiter used for every array header,
// inline array and tabular row, and for delimiter-aware quoting (§11.1).
// The default is [Comma]; any value other than Comma, Tab and Pipe makes
// encoding fail.
func WithDelimiter(d Delimiter) EncodeOption { return func(e *Encoder) { e.delim = d } }

// KeyFolding turns safe key folding (§13.4, keyFolding="safe") on or off:
// chains of single-key objects whose keys are identifiers are written as
// one dotted key, such as "a.b.c: 1". It is off by default.
func KeyFolding(on bool) EncodeOption { return func(e *Encoder) { e.keyFolding = on } }

// FlattenDepth limits how many segments key folding joins into one key
// (§13.4 flattenDepth). The default is unlimited; values below 2 disable
// folding in effect, and negative values make encoding fail.
func FlattenDepth(n int) EncodeOption { return func(e *Encoder) { e.flattenDepth = n } }

// NewEncoder returns an Encoder with the given options applied over the
// defaults (indent 2, comma delimiter, no key folding).
func NewEncoder(opts ...EncodeOption) *Encoder {
	e := &Encoder{indent: 2, delim: Comma, flattenDepth: math.MaxInt}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Marshal returns the TOON encoding of v. See the package documentation for
// how Go values map to the data model. The output uses LF line endings and
// has no trailing newline; an empty object encodes as an empty document.
func Marshal(v any, opts ...EncodeOption) ([]byte, error) {
	return NewEncoder(opts...).Marshal(v)
}

// Marshal returns the TOON encoding of v.
func (e *Encoder) Marshal(v any) ([]byte, error) {
	if e.indent < 1 {
		return nil, fmt.Errorf("toon: indent must be at least 1, got %d", e.indent)
	}
	if e.delim != Comma && e.delim != Tab && e.delim != Pipe {
		return nil, fmt.Errorf("toon: invalid delimiter %q: use Comma, Tab or Pipe", rune(e.delim))
	}
	if e.flattenDepth < 0 {
		return nil, fmt.Errorf("toon: flatten depth must not be negative, got %d", e.flattenDepth)
	}
	nv, err := normalize(v)
	if err != nil {
		return nil, err
	}
	w := &writer{indent: e.indent, delim: byte(e.delim), fold: e.keyFolding, flatten: e.flattenDepth}
	if w.delim != ',' {
		w.delimSym = string(w.delim)
	}
	w.root(nv)
	return w.buf, nil
}

// writer renders a normalized value tree. Normalized trees hold only nil,
// bool, string, int64, uint64, canonNum, Object and []any.
type writer struct {
	buf      []byte
	lines    int
	indent   int
	delim    byte
	delimSym string // "" for comma, else the delimiter itself
	fold     bool
	flatten  int
	rootDots map[string]bool // root-level literal keys containing '.'

	dash   bool // the next line starts with "- " at depth dashAt
	dashAt int
}

// canonNum is a number already rendered in canonical form.
type canonNum string

// line starts a new output line at depth.
func (w *writer) line(depth int) {
	if w.lines > 0 {
		w.buf = append(w.buf, '\n')
	}
	w.lines++
	if w.dash {
		w.dash = false
		w.spaces(w.dashAt)
		w.buf = append(w.buf, '-', ' ')
		return
	}
	w.spaces(depth)
}

func (w *writer) spaces(depth int) {
	for n := depth * w.indent; n > 0; n-- {
		w.buf = append(w.buf, ' ')
	}
}

func (w *writer) root(v any) {
	switch x := v.(type) {
	case Object:
		if w.fold {
			for _, m := range x {
				if strings.IndexByte(m.Key, '.') >= 0 {
					if w.rootDots == nil {
						w.rootDots = map[string]bool{}
					}
					w.rootDots[m.Key] = true
				}
			}
		}
		w.fields(x, 0, w.flatten, "", true)
	case []any:
		w.array("", x, 0, ctxRoot)
	default:
		w.line(0)
		w.primitive(x, w.delim)
	}
}

// fields writes the members of obj at depth. budget is the remaining
// flatten depth; path is the dotted path of obj from the root, meaningful
// only when tracked (objects reached without crossing an array).
func (w *writer) fields(obj Object, depth, budget int, path string, tracked bool) {
	for _, m := range obj {
		if w.fold && w.tryFold(obj, m, depth, budget, path, tracked) {
			continue
		}
		w.field(encodeKey(m.Key), m.Value, depth, budget, joinPath(path, m.Key), tracked)
	}
}

func joinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// field writes one member whose key is already encoded.
func (w *writer) field(key string, v any, depth, budget int, path string, tracked bool) {
	switch x := v.(type) {
	case Object:
		w.line(depth)
		w.buf = append(w.buf, key...)
		w.buf = append(w.buf, ':')
		w.fields(x, depth+1, budget, path, tracked)
	case []any:
		w.array(key, x, depth, ctxField)
	default:
		w.line(depth)
		w.buf = append(w.buf, key...)
		w.buf = append(w.buf, ':', ' ')
		w.primitive(x, w.delim)
	}
}

// tryFold writes m as a folded dotted key when safe folding applies
// (§13.4) and reports whether it did.
func (w *writer) tryFold(siblings Object, m Member, depth, budget int, path string, tracked bool) bool {
	cur, ok := m.Value.(Object)
	if !ok || len(cur) != 1 || budget < 2 || !isIdentifierSegment(m.Key) {
		return false
	}
	segs := []string{m.Key}
	var leaf any = cur
	for len(segs) < budget {
		o, ok := leaf.(Object)
		if !ok || len(o) != 1 {
			break
		}
		segs = append(segs, o[0].Key)
		leaf = o[0].Value
	}
	if !allIdentifiers(segs) {
		return false
	}
	key := strings.Join(segs, ".")
	if _, clash := siblings.Get(key); clash {
		return false
	}
	full := joinPath(path, key)
	if tracked && w.rootDots[full] {
		return false
	}
	if tail, ok := leaf.(Object); ok && len(tail) > 0 {
		w.line(depth)
		w.buf = append(w.buf, key...)
		w.buf = append(w.buf, ':')
		w.fields(tail, depth+1, budget-len(segs), full, tracked)
		return true
	}
	w.field(key, leaf, depth, budget, full, tracked)
	return true
}

// Array contexts decide how an empty array is written and whether the
// tabular form is available.
const (
	ctxField = iota // key[N]: ... inside an object
	ctxRoot         // [N]: ... at the root
	ctxItem         // - [N]: ... as a list item
)

func (w *writer) array(key string, arr []any, depth, ctx int) {
	w.line(depth)
	w.buf = append(w.buf, key...)
	if len(arr) == 0 {
		switch ctx {
		case ctxField:
			w.buf = append(w.buf, ": []"...)
		case ctxRoot:
			w.buf = append(w.buf, "[]"...)
		default:
			w.buf = append(w.buf, "[0"...)
			w.buf = append(w.buf, w.delimSym...)
			w.buf = append(w.buf, "]:"...)
		}
		return
	}
	w.buf = append(w.buf, '[')
	w.buf = strconv.AppendInt(w.buf, int64(len(arr)), 10)
	w.buf = append(w.buf, w.delimSym...)
	w.buf = append(w.buf, ']')
	if allPrimitive(arr) {
		w.buf = append(w.buf, ':', ' ')
		for i, v := range arr {
			if i > 0 {
				w.buf = append(w.buf, w.delim)
			}
			w.primitive(v, w.delim)
		}
		return
	}
	if ctx != ctxItem {
		if fields := tabularFields(arr); fields != nil {
			w.buf = append(w.buf, '{')
			for i, f := range fields {
				if i > 0 {
					w.buf = append(w.buf, w.delim)
				}
				w.buf = append(w.buf, encodeKey(f)...)
			}
			w.buf = append(w.buf, '}', ':')
			for _, row := range arr {
				obj := row.(Object)
				w.line(depth + 1)
				for i, f := range fields {
					if i > 0 {
						w.buf = append(w.buf, w.delim)
					}
					v, _ := obj.Get(f)
					w.primitive(v, w.delim)
				}
			}
			return
		}
	}
	w.buf = append(w.buf, ':')
	for _, v := range arr {
		w.item(v, depth+1)
	}
}

// item writes one list item with its hyphen at depth (§9.4, §10).
func (w *writer) item(v any, depth int) {
	switch x := v.(type) {
	case Object:
		if len(x) == 0 {
			w.line(depth)
			w.buf = append(w.buf, '-')
			return
		}
		w.dash, w.dashAt = true, depth
		w.fields(x, depth+1, w.flatten, "", false)
	case []any:
		w.dash, w.dashAt = true, depth
		w.array("", x, depth, ctxItem)
	default:
		w.line(depth)
		w.buf = append(w.buf, '-', ' ')
		w.primitive(x, w.delim)
	}
}

func isPrimitive(v any) bool {
	switch v.(type) {
	case Object, []any:
		return false
	}
	return true
}

func allPrimitive(arr []any) bool {
	for _, v := range arr {
		if !isPrimitive(v) {
			return false
		}
	}
	return true
}

// tabularFields returns the field list when arr qualifies for the tabular
// form (§9.3): non-empty objects sharing one key set, all values primitive.
func tabularFields(arr []any) []string {
	first, ok := arr[0].(Object)
	if !ok || len(first) == 0 {
		return nil
	}
	for _, el := range arr {
		obj, ok := el.(Object)
		if !ok || len(obj) != len(first) {
			return nil
		}
		for i, m := range obj {
			if !isPrimitive(m.Value) {
				return nil
			}
			if m.Key != first[i].Key {
				if _, ok := first.Get(m.Key); !ok {
					return nil
				}
			}
		}
	}
	return first.Keys()
}

func (w *writer) primitive(v any, delim byte) {
	switch x := v.(type) {
	case nil:
		w.buf = append(w.buf, "null"...)
	case bool:
		w.buf = strconv.AppendBool(w.buf, x)
	case int64:
		w.buf = strconv.AppendInt(w.buf, x, 10)
	case uint64:
		w.buf = strconv.AppendUint(w.buf, x, 10)
	case canonNum:
		w.buf = append(w.buf, x...)
	case string:
		w.buf = appendString(w.buf, x, delim)
	}
}
