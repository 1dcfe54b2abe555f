package testclass

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGoTests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{name: "tests and a fuzz test, in order", src: "package p\nimport \"testing\"\nfunc TestB(t *testing.T) {}\nfunc FuzzA(f *testing.F) {}\nfunc Test(t *testing.T) {}\n",
			want: []string{"TestB", "FuzzA", "Test"}},
		{name: "a renamed import", src: "package p\nimport tt \"testing\"\nfunc TestX(t *tt.T) {}\n", want: []string{"TestX"}},
		{name: "not tests", src: "package p\nimport \"testing\"\nfunc Testing(t *testing.T) {}\nfunc TestH(t *testing.T, n int) {}\nfunc helper(t *testing.T) {}\nfunc (s S) TestM(t *testing.T) {}\nfunc BenchmarkB(b *testing.B) {}\nfunc TestV(t testing.T) {}\nfunc TestR(t *testing.T) error { return nil }\nfunc FuzzT(t *testing.T) {}\n"},
		{name: "a test after a lower-case-free suffix", src: "package p\nimport \"testing\"\nfunc Test_x(t *testing.T) {}\nfunc TestÉ(t *testing.T) {}\nfunc Testé(t *testing.T) {}\n", want: []string{"Test_x", "TestÉ"}},
		{name: "a file that does not parse", src: "package p\nfunc TestX(t *testing.T) {"},
		{name: "empty", src: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, goTests(tt.src))
		})
	}
}

// FuzzGoTests: whatever a test file says, the names found are Go
// identifiers that go test runs, so that they make a -run pattern that
// matches exactly them.
func FuzzGoTests(f *testing.F) {
	f.Add("package p\nimport \"testing\"\nfunc TestA(t *testing.T) {}\n")
	f.Add("package p\nfunc Test(t *testing.T) {}\nfunc FuzzZ(f *testing.F) {}\n")
	f.Add("package p\nfunc TestA[T any](t *testing.T) {}\n")
	f.Fuzz(func(t *testing.T, src string) {
		for _, name := range goTests(src) {
			if !isTestName(name, "Test") && !isTestName(name, "Fuzz") {
				t.Fatalf("%q is not a test's name", name)
			}
			for _, r := range name {
				if r == '|' || r == '(' || r == ')' || r == '$' || r == '^' || r == '/' || r == ' ' {
					t.Fatalf("%q would break the -run pattern", name)
				}
			}
		}
	})
}
