package manifest

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// pyproject.toml's requirements, for Python's dependency step when there
// is no requirements.txt: PEP 621's [project] dependencies, the test
// extras of [project.optional-dependencies] and the test groups of PEP
// 735's [dependency-groups]. The file is the workspace's, so hostile: this
// reads only the subset of TOML those need (tables, keys, strings, arrays,
// inline tables; other values are skipped), with bounded nesting and
// counts, and keeps only requirements that are a name with versions and
// markers, never a URL, a path or a pip option.

// pythonTestExtras are the extras and groups that hold test dependencies.
var pythonTestExtras = []string{"test", "tests", "testing", "dev"}

// Bounds of the reader.
const (
	maxTOMLDepth        = 16
	maxPythonRequires   = 256
	maxRequirementBytes = 512
)

// pipOption is a word of a requirement line that pip reads as an option
// of its own (--hash, --config-settings).
var pipOption = regexp.MustCompile(`\s-`)

// PyprojectRequirements returns core's form of the requirements of a
// pyproject.toml (pipRequirement), the project's own name left out (an
// extra that names it), and the Entries it left out because they are not a
// name with versions.
func PyprojectRequirements(b []byte) (reqs []string, dropped []pipDropped, err error) {
	values, err := readTOML(b, func(path []string) bool {
		switch {
		case len(path) == 2 && path[0] == "project" && (path[1] == "dependencies" || path[1] == "name" || path[1] == "optional-dependencies"):
			return true
		case len(path) == 3 && path[0] == "project" && path[1] == "optional-dependencies":
			return slices.Contains(pythonTestExtras, path[2])
		case len(path) == 1 && path[0] == "dependency-groups":
			return true
		case len(path) == 2 && path[0] == "dependency-groups":
			return slices.Contains(pythonTestExtras, path[1])
		}
		return false
	})
	if err != nil {
		return nil, nil, fmt.Errorf("pyproject.toml: %w", err)
	}
	name, _ := values["project.name"].(string)
	var lists []any
	lists = append(lists, values["project.dependencies"])
	for _, extra := range pythonTestExtras {
		lists = append(lists, values["project.optional-dependencies."+extra], values["dependency-groups."+extra])
		// The same as an inline table ([project] optional-dependencies = {…}).
		if t, ok := values["project.optional-dependencies"].(map[string]any); ok {
			lists = append(lists, t[extra])
		}
		if t, ok := values["dependency-groups"].(map[string]any); ok {
			lists = append(lists, t[extra])
		}
	}
	seen := map[string]bool{}
	for _, l := range lists {
		items, _ := l.([]any)
		for _, it := range items {
			s, ok := it.(string)
			if !ok {
				continue // a group's {include-group = …}
			}
			req, why := pipRequirement(s)
			if why == "" && (strings.ContainsAny(s, "\n\r") || pipOption.MatchString(s)) {
				why = "not one requirement on one line" // pip's options (--hash) are no part of a PEP 508 requirement
			}
			if why != "" {
				dropped = append(dropped, pipDropped{where: "pyproject.toml", line: s, why: why})
				continue
			}
			s = req
			if name != "" && NormalizePythonName(RequirementName(s)) == NormalizePythonName(name) {
				continue
			}
			if !seen[s] && len(reqs) < maxPythonRequires {
				seen[s] = true
				reqs = append(reqs, s)
			}
		}
	}
	return reqs, dropped, nil
}

// RequirementName is the name a requirement starts with.
func RequirementName(req string) string {
	end := strings.IndexFunc(req, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	})
	if end < 0 {
		return req
	}
	return req[:end]
}

// nameSeparators are the runs PEP 503 folds into one -.
var nameSeparators = regexp.MustCompile(`[-_.]+`)

// NormalizePythonName is PEP 503's form of a name.
func NormalizePythonName(name string) string {
	return strings.ToLower(nameSeparators.ReplaceAllString(name, "-"))
}

// tomlReader reads the subset of TOML PyprojectRequirements needs.
type tomlReader struct {
	b    []byte
	i    int
	line int
}

// errTOML is what a malformed file gets.
var errTOML = errors.New("not TOML that core reads")

func (r *tomlReader) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s: %w", r.line, fmt.Sprintf(format, args...), errTOML)
}

// readTOML returns the values at the dotted paths keep accepts, by path.
func readTOML(b []byte, keep func(path []string) bool) (map[string]any, error) {
	r := &tomlReader{b: b, line: 1}
	out := map[string]any{}
	var table []string
	for {
		r.space(true)
		if r.i >= len(r.b) {
			return out, nil
		}
		if r.b[r.i] == '[' {
			r.i++
			array := r.i < len(r.b) && r.b[r.i] == '['
			if array {
				r.i++
			}
			key, err := r.key()
			if err != nil {
				return nil, err
			}
			if !r.take(']') || array && !r.take(']') {
				return nil, r.errorf("a table header does not end with ]")
			}
			table = key
			if array {
				table = append([]string{"[]"}, key...) // an array of tables: nothing core reads
			}
		} else {
			key, err := r.key()
			if err != nil {
				return nil, err
			}
			if !r.take('=') {
				return nil, r.errorf("a key without =")
			}
			r.space(false)
			v, err := r.value(0)
			if err != nil {
				return nil, err
			}
			path := append(slices.Clone(table), key...)
			if keep(path) {
				out[strings.Join(path, ".")] = v
			}
		}
		r.space(false)
		if r.i < len(r.b) && r.b[r.i] != '\n' && r.b[r.i] != '\r' {
			return nil, r.errorf("more after a value on its line")
		}
	}
}

// space skips blanks and comments, and new lines when lines is set.
func (r *tomlReader) space(lines bool) {
	for r.i < len(r.b) {
		switch c := r.b[r.i]; {
		case c == ' ' || c == '\t':
			r.i++
		case c == '#':
			for r.i < len(r.b) && r.b[r.i] != '\n' {
				r.i++
			}
		case lines && (c == '\n' || c == '\r'):
			if c == '\n' {
				r.line++
			}
			r.i++
		default:
			return
		}
	}
}

// take consumes c after blanks.
func (r *tomlReader) take(c byte) bool {
	r.space(false)
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// key reads a dotted key of bare and quoted parts.
func (r *tomlReader) key() ([]string, error) {
	var parts []string
	for {
		r.space(false)
		if r.i >= len(r.b) {
			return nil, r.errorf("a key ends the file")
		}
		switch r.b[r.i] {
		case '"', '\'':
			s, err := r.str()
			if err != nil {
				return nil, err
			}
			parts = append(parts, s)
		default:
			start := r.i
			for r.i < len(r.b) && isBareKey(r.b[r.i]) {
				r.i++
			}
			if r.i == start {
				return nil, r.errorf("no key")
			}
			parts = append(parts, string(r.b[start:r.i]))
		}
		if !r.take('.') {
			return parts, nil
		}
	}
}

func isBareKey(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// value reads a string, an array, an inline table, or another scalar (as
// its text).
func (r *tomlReader) value(depth int) (any, error) {
	if depth > maxTOMLDepth {
		return nil, r.errorf("nested deeper than %d", maxTOMLDepth)
	}
	if r.i >= len(r.b) {
		return nil, r.errorf("a value ends the file")
	}
	switch r.b[r.i] {
	case '"', '\'':
		return r.str()
	case '[':
		r.i++
		var items []any
		for {
			r.space(true)
			if r.i < len(r.b) && r.b[r.i] == ']' {
				r.i++
				return items, nil
			}
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			items = append(items, v)
			r.space(true)
			if r.i < len(r.b) && r.b[r.i] == ',' {
				r.i++
				continue
			}
			if r.i < len(r.b) && r.b[r.i] == ']' {
				r.i++
				return items, nil
			}
			return nil, r.errorf("an array item without , or ]")
		}
	case '{':
		r.i++
		t := map[string]any{}
		for {
			r.space(true)
			if r.i < len(r.b) && r.b[r.i] == '}' {
				r.i++
				return t, nil
			}
			key, err := r.key()
			if err != nil {
				return nil, err
			}
			if !r.take('=') {
				return nil, r.errorf("an inline table's key without =")
			}
			r.space(false)
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			t[strings.Join(key, ".")] = v
			r.space(true)
			if r.i < len(r.b) && r.b[r.i] == ',' {
				r.i++
				continue
			}
			if r.i < len(r.b) && r.b[r.i] == '}' {
				r.i++
				return t, nil
			}
			return nil, r.errorf("an inline table's item without , or }")
		}
	}
	// A number, a boolean, a date: its text, to the end of the value.
	start := r.i
	for r.i < len(r.b) && !strings.ContainsRune(",]}#\n\r", rune(r.b[r.i])) {
		r.i++
	}
	s := strings.TrimSpace(string(r.b[start:r.i]))
	if s == "" {
		return nil, r.errorf("no value")
	}
	return s, nil
}

// str reads a basic or literal string, on one line or several.
func (r *tomlReader) str() (string, error) {
	q := r.b[r.i]
	delim := string(q)
	if strings.HasPrefix(string(r.b[r.i:min(r.i+3, len(r.b))]), strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	r.i += len(delim)
	multi := len(delim) == 3
	if multi && r.i < len(r.b) && r.b[r.i] == '\n' {
		r.i++ // the new line right after the opening quotes is not part of it
		r.line++
	}
	var sb strings.Builder
	for {
		if r.i >= len(r.b) {
			return "", r.errorf("a string ends the file")
		}
		if strings.HasPrefix(string(r.b[r.i:min(r.i+len(delim), len(r.b))]), delim) {
			r.i += len(delim)
			// A multi-line string may end with up to two more quotes.
			for n := 0; multi && n < 2 && r.i < len(r.b) && r.b[r.i] == q; n++ {
				sb.WriteByte(q)
				r.i++
			}
			return sb.String(), nil
		}
		c := r.b[r.i]
		switch {
		case c == '\n' && !multi:
			return "", r.errorf("a string runs past its line")
		case c == '\n':
			r.line++
		case c == '\\' && q == '"':
			if err := r.escape(&sb, multi); err != nil {
				return "", err
			}
			continue
		}
		sb.WriteByte(c)
		r.i++
	}
}

// escape reads one escape of a basic string into sb.
func (r *tomlReader) escape(sb *strings.Builder, multi bool) error {
	r.i++
	if r.i >= len(r.b) {
		return r.errorf("an escape ends the file")
	}
	c := r.b[r.i]
	r.i++
	switch c {
	case 'b':
		sb.WriteByte('\b')
	case 't':
		sb.WriteByte('\t')
	case 'n':
		sb.WriteByte('\n')
	case 'f':
		sb.WriteByte('\f')
	case 'r':
		sb.WriteByte('\r')
	case 'e':
		sb.WriteByte(0x1b)
	case '"', '\\':
		sb.WriteByte(c)
	case 'u', 'U', 'x':
		n := map[byte]int{'u': 4, 'U': 8, 'x': 2}[c]
		if r.i+n > len(r.b) {
			return r.errorf("a short \\%c escape", c)
		}
		v, err := strconv.ParseUint(string(r.b[r.i:r.i+n]), 16, 32)
		if err != nil {
			return r.errorf("a bad \\%c escape", c)
		}
		r.i += n
		sb.WriteRune(rune(v))
	case ' ', '\t', '\r', '\n':
		if !multi {
			return r.errorf("a line ending backslash outside a multi-line string")
		}
		// A line ending backslash: the blanks and new lines after it go.
		r.i--
		for r.i < len(r.b) && strings.ContainsRune(" \t\r\n", rune(r.b[r.i])) {
			if r.b[r.i] == '\n' {
				r.line++
			}
			r.i++
		}
	default:
		return r.errorf("an unknown escape \\%c", c)
	}
	return nil
}
