package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Description is a parsed OpenAPI description.
type Description struct {
	doc   map[string]any
	paths []pathTemplate
}

// pathTemplate is one path of the description, split in segments.
type pathTemplate struct {
	raw  string
	segs []string
}

// Parse reads an OpenAPI description's JSON.
func Parse(data []byte) (*Description, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse the OpenAPI description: %w", err)
	}
	paths, ok := doc["paths"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the OpenAPI description has no paths")
	}
	d := &Description{doc: doc}
	for p := range paths {
		d.paths = append(d.paths, pathTemplate{raw: p, segs: strings.Split(strings.Trim(p, "/"), "/")})
	}
	return d, nil
}

// spanning are the parameters that GitHub takes with their slashes as
// they are when they end a path: a Git reference ("heads/topic" in
// /git/refs/{ref}) and a file's path (/contents/{path}).
var spanning = map[string]bool{"{ref}": true, "{path}": true}

// Template is the description's path template that path matches (the
// one with the most literal segments, then one whose segments are path's
// one for one), or "".
func (d *Description) Template(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	best, bestScore := "", -1
	for _, t := range d.paths {
		if score := t.match(segs); score > bestScore {
			best, bestScore = t.raw, score
		}
	}
	return best
}

// match scores how well segs match t: twice its literal segments, and one
// more when each parameter takes one segment; -1 when they do not match.
// A spanning parameter that ends t takes the rest of segs.
func (t pathTemplate) match(segs []string) int {
	last := len(t.segs) - 1
	exact := len(t.segs) == len(segs)
	if !exact && (len(segs) < len(t.segs) || !spanning[t.segs[last]]) {
		return -1
	}
	score := 0
	for i, s := range t.segs {
		switch {
		case s == segs[i]:
			score += 2
		case !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}"):
			return -1
		}
	}
	if exact {
		score++
	}
	return score
}

// BodySchema is the JSON schema of the request body of method on path,
// or nil when the operation takes none (or the description has no such
// operation).
func (d *Description) BodySchema(method, path string) map[string]any {
	tmpl := d.Template(path)
	if tmpl == "" {
		return nil
	}
	op, _ := d.doc["paths"].(map[string]any)[tmpl].(map[string]any)[strings.ToLower(method)].(map[string]any)
	body, _ := d.resolve(op["requestBody"]).(map[string]any)
	content, _ := body["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	schema, _ := media["schema"].(map[string]any)
	return schema
}

// Validate checks body, the JSON of a request method path, against its
// operation's request body schema. A request to an operation with no
// such schema is valid. The error names each field at fault.
func (d *Description) Validate(method, path string, body []byte) error {
	schema := d.BodySchema(method, path)
	if schema == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%s %s: the body is not JSON: %w", method, path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s %s: the body is not JSON: more follows its value", method, path)
	}
	if errs := d.validate(schema, v, ""); len(errs) > 0 {
		return fmt.Errorf("%s %s (%s) against GitHub's description: %s", method, path, d.Template(path), strings.Join(errs, "; "))
	}
	return nil
}

// fixture is the description scripts/fixtures.sh fetches.
var fixture = sync.OnceValues(func() (*Description, error) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	data, err := os.ReadFile(filepath.Join(root, ".fixtures", "openapi", "generated", "api.github.com.json"))
	if err != nil {
		return nil, err
	}
	return Parse(data)
})

// GitHub returns GitHub's REST API description from .fixtures/openapi.
// When it was not fetched the test skips, or, under
// CORE_REQUIRE_FIXTURES=1 (as in CI), fails.
func GitHub(t testing.TB) *Description {
	t.Helper()
	d, err := fixture()
	if err != nil {
		if os.Getenv("CORE_REQUIRE_FIXTURES") == "1" {
			t.Fatalf("GitHub's OpenAPI description is missing under CORE_REQUIRE_FIXTURES=1 (run ./scripts/fixtures.sh): %v", err)
		}
		t.Skipf("GitHub's OpenAPI description is missing (run ./scripts/fixtures.sh): %v", err)
	}
	return d
}
