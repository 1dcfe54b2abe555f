package toon

import (
	"reflect"
	"sort"
	"strings"
	"sync"
)

// structField describes one encodable/decodable struct field.
type structField struct {
	name      string
	index     []int
	typ       reflect.Type
	tagged    bool
	omitEmpty bool
	omitZero  bool
}

// structInfo is the resolved field set of a struct type.
type structInfo struct {
	fields []structField
	byName map[string]int
}

var structCache sync.Map // reflect.Type -> *structInfo

// fieldsOf resolves the fields of struct type t the way encoding/json does:
// exported fields named by the "toon" tag, else the "json" tag, else the Go
// name; fields of embedded structs without a name are promoted, with the
// usual dominance rules for conflicting names.
func fieldsOf(t reflect.Type) *structInfo {
	if si, ok := structCache.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{fields: typeFields(t), byName: map[string]int{}}
	for i, f := range si.fields {
		si.byName[f.name] = i
	}
	actual, _ := structCache.LoadOrStore(t, si)
	return actual.(*structInfo)
}

// lookup finds the field for key: an exact name match first, then a
// case-insensitive one.
func (si *structInfo) lookup(key string) (*structField, bool) {
	if i, ok := si.byName[key]; ok {
		return &si.fields[i], true
	}
	for i := range si.fields {
		if strings.EqualFold(si.fields[i].name, key) {
			return &si.fields[i], true
		}
	}
	return nil, false
}

// fieldTag returns the struct tag used for naming: "toon", else "json".
func fieldTag(f reflect.StructField) (string, bool) {
	if tag, ok := f.Tag.Lookup("toon"); ok {
		return tag, true
	}
	return f.Tag.Lookup("json")
}

// typeFields lists the fields of the struct type t to encode, in order.
func typeFields(t reflect.Type) []structField {
	return inIndexOrder(dominantFields(allFields(t)))
}

// fieldLevel is a struct type met on the walk, at its index path.
type fieldLevel struct {
	typ   reflect.Type
	index []int
}

// allFields walks t and its embedded structs breadth first, each type
// once, and returns every field to encode, name conflicts included.
func allFields(t reflect.Type) []structField {
	var found []structField
	var current []fieldLevel
	next := []fieldLevel{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current, next = next, nil
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			visited[lv.typ] = true
			for i := 0; i < lv.typ.NumField(); i++ {
				f, embedded, ok := lv.field(i)
				if embedded != nil {
					next = append(next, *embedded)
					continue
				}
				if ok {
					found = append(found, f)
				}
			}
		}
	}
	return found
}

// field reads the i-th field of lv's type: a field to encode (ok), an
// untagged embedded struct to walk next (embedded), or neither.
func (lv fieldLevel) field(i int) (f structField, embedded *fieldLevel, ok bool) {
	sf := lv.typ.Field(i)
	ft := sf.Type
	if sf.Anonymous {
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if !sf.IsExported() && ft.Kind() != reflect.Struct {
			return f, nil, false
		}
	} else if !sf.IsExported() {
		return f, nil, false
	}
	tag, _ := fieldTag(sf)
	if tag == "-" {
		return f, nil, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	index := append(append([]int(nil), lv.index...), i)
	if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
		return f, &fieldLevel{typ: ft, index: index}, false
	}
	if !sf.IsExported() {
		return f, nil, false
	}
	f = structField{name: name, index: index, typ: sf.Type, tagged: name != ""}
	if name == "" {
		f.name = sf.Name
	}
	for _, o := range strings.Split(opts, ",") {
		switch o {
		case "omitempty":
			f.omitEmpty = true
		case "omitzero":
			f.omitZero = true
		}
	}
	return f, nil, true
}

// dominantFields resolves name conflicts: the shallowest field wins; among
// equally deep fields a single tagged one wins; otherwise all are dropped.
func dominantFields(found []structField) []structField {
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].name != found[j].name {
			return found[i].name < found[j].name
		}
		if len(found[i].index) != len(found[j].index) {
			return len(found[i].index) < len(found[j].index)
		}
		return found[i].tagged && !found[j].tagged
	})
	out := found[:0]
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j].name == found[i].name {
			j++
		}
		group := found[i:j]
		if len(group) == 1 || len(group[0].index) < len(group[1].index) ||
			(group[0].tagged && !group[1].tagged) {
			out = append(out, group[0])
		}
		i = j
	}
	return out
}

// inIndexOrder sorts fields in the order of their index paths.
func inIndexOrder(out []structField) []structField {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].index, out[j].index
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
	return out
}

// fieldByIndex walks index from v, returning false when it crosses a nil
// embedded pointer.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}
