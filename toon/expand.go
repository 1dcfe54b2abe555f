package toon

import "strings"

// entry is one decoded field before the object is assembled.
type entry struct {
	key    string
	quoted bool
	val    any
	line   int
}

// objBuilder collects the fields of one object, detecting duplicate keys
// (§14.4) and applying path expansion (§13.4) when the object is built.
type objBuilder struct {
	entries []entry
	index   map[string]int // built lazily once the object grows
}

const linearLookupMax = 16

func (b *objBuilder) find(key string) int {
	if b.index != nil {
		if i, ok := b.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range b.entries {
		if b.entries[i].key == key {
			return i
		}
	}
	return -1
}

// add appends e; a duplicate key is an error in strict mode and replaces the
// earlier value in place (last write wins) otherwise.
func (b *objBuilder) add(p *parser, e entry) error {
	if i := b.find(e.key); i >= 0 {
		if p.strict {
			return syntaxErr(e.line, "duplicate key %q (first defined on line %d)", e.key, b.entries[i].line)
		}
		b.entries[i].val = e.val
		return nil
	}
	b.entries = append(b.entries, e)
	if b.index != nil {
		b.index[e.key] = len(b.entries) - 1
	} else if len(b.entries) > linearLookupMax {
		b.index = make(map[string]int, 2*len(b.entries))
		for i, x := range b.entries {
			b.index[x.key] = i
		}
	}
	return nil
}

// build assembles the object, expanding dotted keys when enabled.
func (b *objBuilder) build(p *parser) (Object, error) {
	if !p.expand {
		obj := make(Object, 0, len(b.entries))
		for _, e := range b.entries {
			obj = append(obj, Member{Key: e.key, Value: e.val})
		}
		return obj, nil
	}
	root := &xobj{}
	for _, e := range b.entries {
		segs := []string{e.key}
		if !e.quoted && strings.IndexByte(e.key, '.') >= 0 {
			if s := strings.Split(e.key, "."); allIdentifiers(s) {
				segs = s
			}
		}
		if err := p.insert(root, segs, e.val, e.line, ""); err != nil {
			return nil, err
		}
	}
	return root.object(), nil
}

func allIdentifiers(segs []string) bool {
	for _, s := range segs {
		if !isIdentifierSegment(s) {
			return false
		}
	}
	return true
}

// xobj is an object under construction during path expansion. Member
// values are either *xobj nodes (still being merged into) or final values.
type xobj struct {
	members []Member
	index   map[string]int // built lazily once the object grows
}

func (x *xobj) find(key string) int {
	if x.index != nil {
		if i, ok := x.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range x.members {
		if x.members[i].Key == key {
			return i
		}
	}
	return -1
}

func (x *xobj) add(key string, val any) {
	x.members = append(x.members, Member{Key: key, Value: val})
	if x.index != nil {
		x.index[key] = len(x.members) - 1
	} else if len(x.members) > linearLookupMax {
		x.index = make(map[string]int, 2*len(x.members))
		for i, m := range x.members {
			x.index[m.Key] = i
		}
	}
}

// object converts x to an Object, finishing nested nodes.
func (x *xobj) object() Object {
	obj := make(Object, len(x.members))
	for i, m := range x.members {
		if c, ok := m.Value.(*xobj); ok {
			m.Value = c.object()
		}
		obj[i] = m
	}
	return obj
}

func isObjectValue(v any) bool {
	switch v.(type) {
	case Object, *xobj:
		return true
	}
	return false
}

// mergeable returns v as an *xobj, converting a decoded Object once.
func mergeable(v any) *xobj {
	if x, ok := v.(*xobj); ok {
		return x
	}
	x := &xobj{}
	for _, m := range v.(Object) {
		x.add(m.Key, m.Value)
	}
	return x
}

// insert stores val at the path segs inside x, deep-merging objects.
// Conflicts are errors in strict mode and last-write-wins otherwise.
func (p *parser) insert(x *xobj, segs []string, val any, line int, prefix string) error {
	key := segs[0]
	path := key
	if prefix != "" {
		path = prefix + "." + key
	}
	i := x.find(key)
	if i < 0 {
		if len(segs) == 1 {
			x.add(key, val)
			return nil
		}
		child := &xobj{}
		x.add(key, child)
		return p.insert(child, segs[1:], val, line, path)
	}
	existing := x.members[i].Value
	if len(segs) == 1 {
		if !isObjectValue(existing) || !isObjectValue(val) {
			if p.strict {
				return conflictErr(line, path, existing, val)
			}
			x.members[i].Value = val
			return nil
		}
		dst := mergeable(existing)
		x.members[i].Value = dst
		for _, m := range val.(Object) {
			if err := p.insert(dst, []string{m.Key}, m.Value, line, path); err != nil {
				return err
			}
		}
		return nil
	}
	var child *xobj
	switch {
	case isObjectValue(existing):
		child = mergeable(existing)
	case p.strict:
		return conflictErr(line, path, existing, Object{})
	default:
		child = &xobj{}
	}
	x.members[i].Value = child
	return p.insert(child, segs[1:], val, line, path)
}

func conflictErr(line int, path string, existing, incoming any) error {
	return syntaxErr(line, "expansion conflict at path '%s' (%s vs %s)", path, kindName(existing), kindName(incoming))
}

func kindName(v any) string {
	switch v.(type) {
	case Object, *xobj:
		return "object"
	case []any:
		return "array"
	}
	return "primitive"
}
