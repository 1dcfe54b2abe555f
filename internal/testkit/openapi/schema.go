package openapi

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// resolve follows a {"$ref": "#/..."} to what it points to in the
// description; anything else is itself.
func (d *Description) resolve(v any) any {
	for range 32 { // a cycle of $refs ends here
		m, ok := v.(map[string]any)
		ref, isRef := m["$ref"].(string)
		if !ok || !isRef {
			return v
		}
		v = d.pointer(ref)
	}
	return nil
}

// pointer is what a local JSON pointer ("#/components/schemas/x") names.
func (d *Description) pointer(ref string) any {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = d.doc
	for _, tok := range strings.Split(rest, "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	return cur
}

// validate checks v against schema; each error starts with where in the
// value it is ("output.annotations[0].path").
func (d *Description) validate(schema map[string]any, v any, at string) []string {
	s, _ := d.resolve(schema).(map[string]any)
	if s == nil {
		return nil
	}
	if v == nil {
		if s["nullable"] == true || s["type"] == nil {
			return nil
		}
		return []string{fmt.Sprintf("%s: null is not allowed", field(at))}
	}
	if typ, ok := s["type"].(string); ok && !hasType(typ, v) {
		return []string{fmt.Sprintf("%s: want %s, got %s", field(at), typ, typeOf(v))}
	}
	var errs []string
	errs = append(errs, d.validateEnum(s, v, at)...)
	errs = append(errs, d.validateCombined(s, v, at)...)
	switch v := v.(type) {
	case map[string]any:
		errs = append(errs, d.validateObject(s, v, at)...)
	case []any:
		errs = append(errs, d.validateArray(s, v, at)...)
	case string:
		errs = append(errs, validateString(s, v, at)...)
	case json.Number:
		errs = append(errs, validateNumber(s, v, at)...)
	}
	return errs
}

func (d *Description) validateEnum(s map[string]any, v any, at string) []string {
	enum, ok := s["enum"].([]any)
	if !ok {
		return nil
	}
	for _, e := range enum {
		if equal(e, v) {
			return nil
		}
	}
	var names []string
	for _, e := range enum {
		names = append(names, fmt.Sprint(e))
	}
	return []string{fmt.Sprintf("%s: %s is not one of %s", field(at), show(v), strings.Join(names, ", "))}
}

// validateCombined checks allOf, anyOf and oneOf.
func (d *Description) validateCombined(s map[string]any, v any, at string) []string {
	var errs []string
	for _, sub := range schemas(s["allOf"]) {
		errs = append(errs, d.validate(sub, v, at)...)
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		subs := schemas(s[kw])
		if len(subs) == 0 {
			continue
		}
		matched, why := 0, []string{}
		for _, sub := range subs {
			e := d.validate(sub, v, at)
			if len(e) == 0 {
				matched++
			}
			why = append(why, strings.Join(e, ", "))
		}
		switch {
		case matched == 0:
			errs = append(errs, fmt.Sprintf("%s: matches none of %s: (%s)", field(at), kw, strings.Join(why, ") or (")))
		case kw == "oneOf" && matched > 1:
			errs = append(errs, fmt.Sprintf("%s: matches %d of oneOf, not one", field(at), matched))
		}
	}
	return errs
}

func (d *Description) validateObject(s map[string]any, v map[string]any, at string) []string {
	var errs []string
	props, _ := s["properties"].(map[string]any)
	required, _ := s["required"].([]any)
	for _, r := range required {
		if name, ok := r.(string); ok {
			if _, has := v[name]; !has {
				errs = append(errs, fmt.Sprintf("%s: required, missing", join(at, name)))
			}
		}
	}
	for _, name := range sortedKeys(v) {
		if sub, ok := props[name].(map[string]any); ok {
			errs = append(errs, d.validate(sub, v[name], join(at, name))...)
			continue
		}
		switch extra := s["additionalProperties"].(type) {
		case bool:
			if !extra {
				errs = append(errs, fmt.Sprintf("%s: not a property this operation takes", join(at, name)))
			}
		case map[string]any:
			errs = append(errs, d.validate(extra, v[name], join(at, name))...)
		}
	}
	return errs
}

func (d *Description) validateArray(s map[string]any, v []any, at string) []string {
	var errs []string
	if n, ok := s["maxItems"].(float64); ok && float64(len(v)) > n {
		errs = append(errs, fmt.Sprintf("%s: %d items, at most %v allowed", field(at), len(v), n))
	}
	if n, ok := s["minItems"].(float64); ok && float64(len(v)) < n {
		errs = append(errs, fmt.Sprintf("%s: %d items, at least %v needed", field(at), len(v), n))
	}
	if items, ok := s["items"].(map[string]any); ok {
		for i, e := range v {
			errs = append(errs, d.validate(items, e, fmt.Sprintf("%s[%d]", at, i))...)
		}
	}
	return errs
}

func validateString(s map[string]any, v, at string) []string {
	n := utf8.RuneCountInString(v)
	var errs []string
	if limit, ok := s["maxLength"].(float64); ok && float64(n) > limit {
		errs = append(errs, fmt.Sprintf("%s: %d characters, at most %v allowed", field(at), n, limit))
	}
	if limit, ok := s["minLength"].(float64); ok && float64(n) < limit {
		errs = append(errs, fmt.Sprintf("%s: %d characters, at least %v needed", field(at), n, limit))
	}
	if p, ok := s["pattern"].(string); ok {
		if re, err := regexp.Compile(p); err == nil && !re.MatchString(v) {
			errs = append(errs, fmt.Sprintf("%s: %q does not match %s", field(at), v, p))
		}
	}
	return errs
}

func validateNumber(s map[string]any, v json.Number, at string) []string {
	f, err := v.Float64()
	if err != nil {
		return []string{fmt.Sprintf("%s: %s is not a number", field(at), v)}
	}
	var errs []string
	if m, ok := s["minimum"].(float64); ok && f < m {
		errs = append(errs, fmt.Sprintf("%s: %s is below the minimum %v", field(at), v, m))
	}
	if m, ok := s["maximum"].(float64); ok && f > m {
		errs = append(errs, fmt.Sprintf("%s: %s is above the maximum %v", field(at), v, m))
	}
	return errs
}

// hasType reports whether v is of the JSON schema type typ.
func hasType(typ string, v any) bool {
	switch typ {
	case "integer":
		n, ok := v.(json.Number)
		return ok && !strings.ContainsAny(n.String(), ".eE")
	case "number":
		_, ok := v.(json.Number)
		return ok
	}
	return typeOf(v) == typ
}

func typeOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// equal compares an enum's value (decoded without UseNumber) with v.
func equal(e, v any) bool {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		return err == nil && e == f
	}
	return e == v
}

func schemas(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// field names where a value is, "the body" at the top.
func field(at string) string {
	if at == "" {
		return "the body"
	}
	return at
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
