package toon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// referenceDecoder is a node program that decodes, with the reference
// TypeScript implementation, every TOON document of the JSON array on stdin
// and prints a JSON array of {"value": …} or {"error": "…"}.
const referenceDecoder = `
import { decode } from %q;
let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
const out = JSON.parse(input).map((doc) => {
  try { return { value: decode(doc) }; } catch (e) { return { error: String(e.message) }; }
});
process.stdout.write(JSON.stringify(out));
`

// requireReference returns the reference implementation's entry module,
// skipping the test when it or node is absent (failing instead when
// CORE_REQUIRE_FIXTURES=1).
func requireReference(t *testing.T) string {
	t.Helper()
	mod, err := filepath.Abs(filepath.Join("..", ".fixtures", "toon-ref", "dist", "index.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat(mod)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		const hint = "the reference TOON implementation or node is missing; run ./scripts/fixtures.sh and install nodejs"
		if os.Getenv("CORE_REQUIRE_FIXTURES") == "1" {
			t.Fatal(hint)
		}
		t.Skip(hint)
	}
	return mod
}

type referenceResult struct {
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
}

// referenceDecode decodes docs with the reference implementation.
func referenceDecode(t *testing.T, mod string, docs []string) []referenceResult {
	t.Helper()
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "decode.mjs")
	src := []byte(fmt.Sprintf(referenceDecoder, "file://"+filepath.ToSlash(mod)))
	if err := os.WriteFile(script, src, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "node", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var results []referenceResult
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("node output: %v\n%s", err, out)
	}
	if len(results) != len(docs) {
		t.Fatalf("node decoded %d documents of %d", len(results), len(docs))
	}
	return results
}

// TestReferenceDecodesOurEncoding encodes the input of every encode case
// (the official suite's and core's own) and of values that once broke
// interop, and decodes the output with the reference implementation: it
// must give the input back.
func TestReferenceDecodesOurEncoding(t *testing.T) {
	mod := requireReference(t)
	var inputs []any
	var names []string
	dirs := []string{filepath.Join("testdata", "interop")}
	if dir := fixturesDir(); dir != "" {
		dirs = append(dirs, dir)
	}
	for _, dir := range dirs {
		files := loadFixtures(t, dir, "encode")
		for _, name := range sortedNames(files) {
			for _, tc := range files[name].Tests {
				if tc.ShouldError || tc.Options != (fixtureOptions{}) {
					continue // the reference decodes with default options
				}
				v, err := parseJSON(tc.Input, true)
				if err != nil {
					t.Fatal(err)
				}
				inputs, names = append(inputs, v), append(names, name+"/"+tc.Name)
			}
		}
	}
	inputs = append(inputs,
		Object{{Key: "my key", Value: "#hash"}},
		Object{{Key: "rows", Value: []any{
			Object{{Key: "a", Value: "#hash"}, {Key: "b", Value: "[1]"}},
			Object{{Key: "a", Value: "# spaced"}, {Key: "b", Value: "x"}},
		}}},
		Object{{Key: "tool", Value: "write_file"}, {Key: "content", Value: "# title\n\ttab \"q\" \\ </parameter>\n"}},
	)
	names = append(names, "hash after quoted key", "hash in tabular rows", "multi-line content")
	docs := make([]string, len(inputs))
	for i, v := range inputs {
		out, err := Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		docs[i] = string(out)
	}
	for i, r := range referenceDecode(t, mod, docs) {
		t.Run(names[i], func(t *testing.T) {
			if r.Error != "" {
				t.Fatalf("the reference cannot decode our %q: %s", docs[i], r.Error)
			}
			// Compared as JSON maps: a tabular array takes its header's key
			// order, as the package documents.
			var got, want any
			if err := json.Unmarshal(r.Value, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(toJSON(inputs[i])), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("our %q decodes in the reference to %s, want %s", docs[i], r.Value, toJSON(inputs[i]))
			}
		})
	}
}

// TestReferenceAgreesWithInteropDecodeCases runs core's own decode cases
// through the reference implementation, so they record what it does.
func TestReferenceAgreesWithInteropDecodeCases(t *testing.T) {
	mod := requireReference(t)
	files := loadFixtures(t, filepath.Join("testdata", "interop"), "decode")
	var cases []fixtureCase
	var docs []string
	for _, name := range sortedNames(files) {
		for _, tc := range files[name].Tests {
			var doc string
			if err := json.Unmarshal(tc.Input, &doc); err != nil {
				t.Fatal(err)
			}
			cases, docs = append(cases, tc), append(docs, doc)
		}
	}
	for i, r := range referenceDecode(t, mod, docs) {
		tc := cases[i]
		t.Run(tc.Name, func(t *testing.T) {
			if tc.ShouldError {
				if r.Error == "" {
					t.Fatalf("the reference decodes %q to %s; the case expects an error", docs[i], r.Value)
				}
				return
			}
			if r.Error != "" {
				t.Fatalf("the reference fails on %q: %s", docs[i], r.Error)
			}
			got, err := parseJSON(r.Value, true)
			if err != nil {
				t.Fatal(err)
			}
			want, err := parseJSON(tc.Expected, true)
			if err != nil {
				t.Fatal(err)
			}
			if !Equal(got, want) {
				t.Fatalf("the reference decodes %q to %s, the case expects %s", docs[i], r.Value, tc.Expected)
			}
		})
	}
}
