package lang

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		tier    Tier
		argv    string
		want    Verdict
		network bool
		reason  string // substring of the refusal
	}{
		// Allowed at build.
		{name: "go build", tier: TierBuild, argv: "go build ./...", want: AllowedUnsandboxed},
		{name: "go build -o inside", tier: TierBuild, argv: "go build -o bin/app ./cmd/app", want: AllowedUnsandboxed},
		{name: "go vet", tier: TierBuild, argv: "go vet ./...", want: AllowedUnsandboxed},
		{name: "go list", tier: TierBuild, argv: "go list -m all", want: AllowedUnsandboxed},
		{name: "go mod download", tier: TierBuild, argv: "go mod download", want: AllowedUnsandboxed, network: true},
		{name: "go mod tidy", tier: TierBuild, argv: "go mod tidy", want: AllowedUnsandboxed, network: true},
		{name: "go mod verify", tier: TierBuild, argv: "go mod verify", want: AllowedUnsandboxed, network: true},
		{name: "go mod why", tier: TierBuild, argv: "go mod why example.com/x", want: AllowedUnsandboxed, network: true},
		{name: "go mod graph", tier: TierBuild, argv: "go mod graph", want: AllowedUnsandboxed, network: true},
		{name: "gofmt -l", tier: TierBuild, argv: "gofmt -l .", want: AllowedUnsandboxed},
		{name: "gofmt -l -s", tier: TierBuild, argv: "gofmt -s -l pkg", want: AllowedUnsandboxed},
		{name: "flutter analyze", tier: TierBuild, argv: "flutter analyze", want: AllowedUnsandboxed},
		// Build-tier commands stay allowed at test.
		{name: "go vet at test", tier: TierTest, argv: "go vet ./...", want: AllowedUnsandboxed},
		{name: "gofmt at test", tier: TierTest, argv: "gofmt -l .", want: AllowedUnsandboxed},
		// Allowed at test, sandboxed.
		{name: "go test", tier: TierTest, argv: "go test ./...", want: AllowedSandboxed},
		{name: "go test -run", tier: TierTest, argv: "go test -run TestX -count=1 ./pkg", want: AllowedSandboxed},
		{name: "flutter test", tier: TierTest, argv: "flutter test", want: AllowedSandboxed},
		// Test commands refused at build.
		{name: "go test at build", tier: TierBuild, argv: "go test ./...", want: Refused, reason: "needs --verify test"},
		{name: "flutter test at build", tier: TierBuild, argv: "flutter test", want: Refused, reason: "needs --verify test"},
		// Off refuses everything.
		{name: "off", tier: TierOff, argv: "go build ./...", want: Refused, reason: "verification is off"},
		{name: "off test", tier: TierOff, argv: "go test ./...", want: Refused, reason: "verification is off"},
		// Flags that run a program.
		{name: "toolexec", tier: TierBuild, argv: "go build -toolexec x ./...", want: Refused, reason: "-toolexec"},
		{name: "toolexec=", tier: TierBuild, argv: "go build -toolexec=x ./...", want: Refused, reason: "-toolexec"},
		{name: "--toolexec", tier: TierTest, argv: "go test --toolexec=x ./...", want: Refused, reason: "-toolexec"},
		{name: "exec", tier: TierTest, argv: "go test -exec x ./...", want: Refused, reason: "-exec"},
		{name: "exec=", tier: TierTest, argv: "go test -exec=x ./...", want: Refused, reason: "-exec"},
		{name: "vettool", tier: TierBuild, argv: "go vet -vettool=x ./...", want: Refused, reason: "-vettool"},
		{name: "vettool separate", tier: TierBuild, argv: "go vet -vettool x ./...", want: Refused, reason: "-vettool"},
		{name: "overlay", tier: TierBuild, argv: "go build -overlay=o.json ./...", want: Refused, reason: "-overlay"},
		{name: "overlay list", tier: TierBuild, argv: "go list -overlay o.json ./...", want: Refused, reason: "-overlay"},
		{name: "external linker", tier: TierBuild, argv: "go build -ldflags=-linkmode=external,-extld=x ./...", want: Refused, reason: "-extld"},
		{name: "external linker separate", tier: TierBuild, argv: "go build -ldflags -extld=x ./...", want: Refused, reason: "-extld"},
		{name: "external linker flags", tier: TierTest, argv: "go test -ldflags=-extldflags=-Bx ./...", want: Refused, reason: "-extld"},
		{name: "ldflags that set a variable", tier: TierBuild, argv: "go build -ldflags=-X=main.v=1 ./...", want: AllowedUnsandboxed},
		{name: "another compiler", tier: TierBuild, argv: "go build -compiler=gccgo ./...", want: Refused, reason: "-compiler"},
		{name: "gccgo flags", tier: TierBuild, argv: "go build -gccgoflags=x ./...", want: Refused, reason: "-gccgoflags"},
		// go mod sub-commands beyond the five.
		{name: "go mod edit", tier: TierBuild, argv: "go mod edit -replace a=b", want: Refused, reason: "go mod allows only"},
		{name: "go mod init", tier: TierBuild, argv: "go mod init x", want: Refused, reason: "go mod allows only"},
		{name: "go mod vendor", tier: TierTest, argv: "go mod vendor", want: Refused, reason: "go mod allows only"},
		{name: "go mod bare", tier: TierBuild, argv: "go mod", want: Refused, reason: "got nothing"},
		// Other go sub-commands.
		{name: "go run", tier: TierTest, argv: "go run .", want: Refused, reason: "go run is not"},
		{name: "go generate", tier: TierTest, argv: "go generate ./...", want: Refused, reason: "go generate is not"},
		{name: "go install", tier: TierBuild, argv: "go install ./...", want: Refused, reason: "go install is not"},
		{name: "go get", tier: TierBuild, argv: "go get example.com/x", want: Refused, reason: "go get is not"},
		{name: "go tool", tier: TierBuild, argv: "go tool compile x.go", want: Refused, reason: "go tool is not"},
		{name: "go -C", tier: TierBuild, argv: "go -C sub build", want: Refused, reason: "go -C is not"},
		{name: "go alone", tier: TierBuild, argv: "go", want: Refused, reason: "needs a sub-command"},
		// gofmt may only report.
		{name: "gofmt -w", tier: TierBuild, argv: "gofmt -w .", want: Refused, reason: "-w"},
		{name: "gofmt -r", tier: TierBuild, argv: "gofmt -l -r a->b .", want: Refused, reason: "metacharacter"},
		{name: "gofmt without -l", tier: TierBuild, argv: "gofmt .", want: Refused, reason: "only as gofmt -l"},
		// flutter sub-commands.
		{name: "flutter run", tier: TierTest, argv: "flutter run", want: Refused, reason: "flutter run is not"},
		{name: "flutter pub", tier: TierTest, argv: "flutter pub get", want: Refused, reason: "flutter pub is not"},
		{name: "flutter alone", tier: TierTest, argv: "flutter", want: Refused, reason: "needs a sub-command"},
		// Other programs.
		{name: "make", tier: TierTest, argv: "make test", want: Refused, reason: "make is not"},
		{name: "sh", tier: TierTest, argv: "sh -c x", want: Refused, reason: "sh is not"},
		{name: "workspace binary", tier: TierTest, argv: "./go test", want: Refused, reason: "is a path"},
		{name: "absolute go", tier: TierTest, argv: "/usr/local/go/bin/go test", want: Refused, reason: "is a path"},
		// Paths out of the workspace.
		{name: "-o absolute", tier: TierBuild, argv: "go build -o /usr/local/bin/x .", want: Refused, reason: "outside the workspace"},
		{name: "-o= dotdot", tier: TierBuild, argv: "go build -o=../x .", want: Refused, reason: "outside the workspace"},
		{name: "package dotdot", tier: TierBuild, argv: "go vet ../other/...", want: Refused, reason: "outside the workspace"},
		{name: "gofmt absolute", tier: TierBuild, argv: "gofmt -l /etc", want: Refused, reason: "outside the workspace"},
		{name: "dotdot inside name", tier: TierBuild, argv: "go vet ./a..b/...", want: AllowedUnsandboxed},
		// Nothing to run.
		{name: "empty", tier: TierTest, argv: "", want: Refused, reason: "empty command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Check(tt.tier, strings.Fields(tt.argv))
			assert.Equal(t, tt.want, d.Verdict, "reason: %s", d.Reason)
			assert.Equal(t, tt.network, d.Network)
			assert.Equal(t, tt.want != Refused, d.Allowed())
			if tt.reason != "" {
				assert.Contains(t, d.Reason, tt.reason)
			}
		})
	}
}

func TestCheckRefusesEveryMetacharacter(t *testing.T) {
	t.Parallel()
	for _, c := range metacharacters {
		t.Run(string(c), func(t *testing.T) {
			t.Parallel()
			argv := []string{"go", "test", "./x" + string(c) + "y"}
			for _, tier := range []Tier{TierBuild, TierTest} {
				d := Check(tier, argv)
				assert.Equal(t, Refused, d.Verdict, "tier %s", tier)
				assert.Contains(t, d.Reason, "metacharacter")
			}
			_, err := SplitCommand("go test ./x" + string(c) + "y")
			assert.Error(t, err)
		})
	}
}

func TestSplitCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		want    []string
		wantErr string
	}{
		{name: "plain", text: "go test ./...", want: []string{"go", "test", "./..."}},
		{name: "extra blanks", text: "  go\tvet   ./pkg  ", want: []string{"go", "vet", "./pkg"}},
		{name: "flag value", text: "go test -run=TestA -count=1", want: []string{"go", "test", "-run=TestA", "-count=1"}},
		{name: "empty", text: "   ", wantErr: "empty command"},
		{name: "pipe", text: "go test ./... | tee x", wantErr: `metacharacter "|"`},
		{name: "and", text: "go vet && go test", wantErr: `metacharacter "&"`},
		{name: "semicolon", text: "go vet; rm -r x", wantErr: `metacharacter ";"`},
		{name: "substitution", text: "go test $(pwd)", wantErr: `metacharacter "$"`},
		{name: "backtick", text: "go test `pwd`", wantErr: "metacharacter \"`\""},
		{name: "redirect", text: "go test > out", wantErr: `metacharacter ">"`},
		{name: "quote", text: `go test -run 'A|B'`, wantErr: "metacharacter"},
		{name: "glob", text: "gofmt -l *.go", wantErr: `metacharacter "*"`},
		{name: "tilde", text: "gofmt -l ~/x", wantErr: `metacharacter "~"`},
		{name: "newline", text: "go vet\nrm x", wantErr: "metacharacter"},
		{name: "backslash", text: `go test .\x`, wantErr: "metacharacter"},
		{name: "a metacharacter first", text: "$GOPATH/bin/tool ./...", wantErr: `metacharacter "$"`},
		{name: "a redirect first", text: ">out go test", wantErr: `metacharacter ">"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := SplitCommand(tt.text)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseTier(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Tier{"": TierOff, "off": TierOff, "BUILD": TierBuild, " test ": TierTest} {
		got, err := ParseTier(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := ParseTier("all")
	assert.ErrorContains(t, err, `must be off, build or test, got "all"`)
}

// TestAllowedAgreesWithCheck: every command the list says a tier runs
// unattended passes Check at that tier, where the list says it runs; the
// list is what the prompt tells the model.
func TestAllowedAgreesWithCheck(t *testing.T) {
	t.Parallel()
	for _, tier := range []Tier{TierOff, TierBuild, TierTest} {
		t.Run(string(tier), func(t *testing.T) {
			allowed := Allowed(tier)
			if tier == TierOff && len(allowed) != 0 {
				t.Fatalf("off allows %v", allowed)
			}
			for _, a := range allowed {
				// A placeholder stands for any plain word.
				words := strings.Fields(strings.ReplaceAll(a.Command, "<script>", "test"))
				for _, alt := range strings.Split(words[len(words)-1], "|") {
					argv := append(append([]string{}, words[:len(words)-1]...), alt)
					d := Check(tier, argv)
					if !d.Allowed() {
						t.Errorf("%v listed as allowed at %s but Check refuses it: %s", argv, tier, d.Reason)
					}
					if got := d.Verdict == AllowedSandboxed; got != a.Sandboxed {
						t.Errorf("%v: listed sandboxed=%v, Check says %v", argv, a.Sandboxed, d.Verdict)
					}
				}
			}
		})
	}
	if len(Allowed(TierTest)) <= len(Allowed(TierBuild)) {
		t.Error("the test tier should allow more than the build tier")
	}
}

// TestCheckTestPatterns: go test's -run and -skip may hold a pattern of
// test names (the harness runs a file's tests in one command), and
// nothing else a shell or a glob would read; any other argument with
// such characters is refused as before.
func TestCheckTestPatterns(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		argv    []string
		allowed bool
	}{
		{[]string{"go", "test", ".", "-run", "^(TestA|TestB)$"}, true},
		{[]string{"go", "test", "./pkg", "-run=^TestA$"}, true},
		{[]string{"go", "test", ".", "-skip", "^(TestSlow)$", "-run", "TestA/sub.case"}, true},
		{[]string{"go", "test", ".", "-run", "^(TestA|TestB)$;rm"}, false},
		{[]string{"go", "test", ".", "-run", "Test*"}, false},
		{[]string{"go", "test", ".", "-run", "$(id)"}, true}, // no shell reads it: a pattern go test matches no test with
		{[]string{"go", "test", ".", "-run", "`id`"}, false},
		{[]string{"go", "test", "./x|y"}, false},
		{[]string{"go", "test", "-run", "^(A)$"}, true},
		{[]string{"go", "vet", "-run", "^(A)$", "."}, false},
		{[]string{"gofmt", "-l", "^(A)$"}, false},
	} {
		d := Check(TierTest, tt.argv)
		assert.Equal(t, tt.allowed, d.Allowed(), "%q: %s", tt.argv, d.Reason)
	}
}
