package toon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fixtureFile is one file of the official conformance suite
// (@toon-format/spec tests/fixtures).
type fixtureFile struct {
	Version     string        `json:"version"`
	Category    string        `json:"category"`
	Description string        `json:"description"`
	Tests       []fixtureCase `json:"tests"`
}

type fixtureCase struct {
	Name           string          `json:"name"`
	Input          json.RawMessage `json:"input"`
	Expected       json.RawMessage `json:"expected"`
	ShouldError    bool            `json:"shouldError"`
	Options        fixtureOptions  `json:"options"`
	SpecSection    string          `json:"specSection"`
	Note           string          `json:"note"`
	MinSpecVersion string          `json:"minSpecVersion"`
}

type fixtureOptions struct {
	Delimiter    *string `json:"delimiter"`
	Indent       *int    `json:"indent"`
	Strict       *bool   `json:"strict"`
	KeyFolding   *string `json:"keyFolding"`
	FlattenDepth *int    `json:"flattenDepth"`
	ExpandPaths  *string `json:"expandPaths"`
}

const fixturesHint = "TOON conformance fixtures not found; run ./scripts/fixtures.sh (or set CORE_TOON_FIXTURES)"

// fixturesDir locates the fixtures: $CORE_TOON_FIXTURES, else
// ../.fixtures/toon-spec/tests/fixtures relative to this package. It
// returns "" when they are absent.
func fixturesDir() string {
	dir := os.Getenv("CORE_TOON_FIXTURES")
	if dir == "" {
		dir = filepath.Join("..", ".fixtures", "toon-spec", "tests", "fixtures")
	}
	if st, err := os.Stat(filepath.Join(dir, "decode")); err != nil || !st.IsDir() {
		return ""
	}
	return dir
}

// requireFixtures returns the fixtures directory, skipping the test when it
// is absent (failing instead when CORE_REQUIRE_FIXTURES=1).
func requireFixtures(t testing.TB) string {
	t.Helper()
	dir := fixturesDir()
	if dir == "" {
		if os.Getenv("CORE_REQUIRE_FIXTURES") == "1" {
			t.Fatal(fixturesHint)
		}
		t.Skip(fixturesHint)
	}
	return dir
}

// loadFixtures reads every fixture file of a category ("decode" or
// "encode"), sorted by file name.
func loadFixtures(t testing.TB, dir, category string) map[string]fixtureFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, category, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no fixture files in %s", filepath.Join(dir, category))
	}
	files := map[string]fixtureFile{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f fixtureFile
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		files[strings.TrimSuffix(filepath.Base(p), ".json")] = f
	}
	return files
}

func sortedNames(files map[string]fixtureFile) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (o fixtureOptions) decodeOptions() []DecodeOption {
	var opts []DecodeOption
	if o.Indent != nil {
		opts = append(opts, DecodeIndent(*o.Indent))
	}
	if o.Strict != nil {
		opts = append(opts, Strict(*o.Strict))
	}
	if o.ExpandPaths != nil {
		opts = append(opts, ExpandPaths(*o.ExpandPaths == "safe"))
	}
	return opts
}

func (o fixtureOptions) encodeOptions(t *testing.T) []EncodeOption {
	var opts []EncodeOption
	if o.Indent != nil {
		opts = append(opts, EncodeIndent(*o.Indent))
	}
	if o.Delimiter != nil {
		if len(*o.Delimiter) != 1 {
			t.Fatalf("bad delimiter option %q", *o.Delimiter)
		}
		opts = append(opts, WithDelimiter(Delimiter((*o.Delimiter)[0])))
	}
	if o.KeyFolding != nil {
		opts = append(opts, KeyFolding(*o.KeyFolding == "safe"))
	}
	if o.FlattenDepth != nil {
		opts = append(opts, FlattenDepth(*o.FlattenDepth))
	}
	return opts
}

func toJSON(v any) string {
	b, err := appendJSON(nil, v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// TestConformance runs every case of the official decode and encode
// fixtures.
func TestConformance(t *testing.T) {
	runFixtures(t, requireFixtures(t), "TOON conformance")
}

// TestInteropFixtures runs core's own cases, in the fixtures' format, for
// what the reference TypeScript implementation (@toon-format/toon 4.x) does
// beyond the spec suite: full-line comments on decode, and strings that
// begin with "#" quoted on encode so that no output line reads as one.
func TestInteropFixtures(t *testing.T) {
	runFixtures(t, filepath.Join("testdata", "interop"), "TOON interop")
}

// runFixtures runs every decode and encode case under dir.
func runFixtures(t *testing.T, dir, what string) {
	var decodePass, decodeTotal, encodePass, encodeTotal, errorCases int

	decodeFiles := loadFixtures(t, dir, "decode")
	for _, name := range sortedNames(decodeFiles) {
		for _, tc := range decodeFiles[name].Tests {
			decodeTotal++
			if tc.ShouldError {
				errorCases++
			}
			ok := t.Run("decode/"+name+"/"+tc.Name, func(t *testing.T) {
				var input string
				if err := json.Unmarshal(tc.Input, &input); err != nil {
					t.Fatalf("decode fixture input is not a string: %v", err)
				}
				got, err := Decode([]byte(input), tc.Options.decodeOptions()...)
				if tc.ShouldError {
					if err == nil {
						t.Fatalf("input %q: expected an error, got %s", input, toJSON(got))
					}
					if _, ok := err.(*SyntaxError); !ok {
						t.Fatalf("input %q: error %v is %T, want *SyntaxError", input, err, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("input %q: unexpected error: %v", input, err)
				}
				want, err := parseJSON(tc.Expected, true)
				if err != nil {
					t.Fatalf("expected value: %v", err)
				}
				if !Equal(got, want) {
					t.Fatalf("input %q:\n got  %s\n want %s", input, toJSON(got), toJSON(want))
				}
			})
			if ok {
				decodePass++
			}
		}
	}

	encodeFiles := loadFixtures(t, dir, "encode")
	for _, name := range sortedNames(encodeFiles) {
		for _, tc := range encodeFiles[name].Tests {
			encodeTotal++
			if tc.ShouldError {
				errorCases++
			}
			ok := t.Run("encode/"+name+"/"+tc.Name, func(t *testing.T) {
				input, err := parseJSON(tc.Input, true)
				if err != nil {
					t.Fatalf("encode fixture input: %v", err)
				}
				out, err := Marshal(input, tc.Options.encodeOptions(t)...)
				if tc.ShouldError {
					if err == nil {
						t.Fatalf("expected an error, got %q", out)
					}
					return
				}
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				var want string
				if err := json.Unmarshal(tc.Expected, &want); err != nil {
					t.Fatalf("encode fixture expectation is not a string: %v", err)
				}
				if string(out) != want {
					t.Fatalf("input %s:\n got  %q\n want %q", tc.Input, out, want)
				}
			})
			if ok {
				encodePass++
			}
		}
	}

	t.Logf("%s: %d/%d cases passed (decode %d/%d, encode %d/%d; %d error cases)",
		what, decodePass+encodePass, decodeTotal+encodeTotal, decodePass, decodeTotal, encodePass, encodeTotal, errorCases)
}
