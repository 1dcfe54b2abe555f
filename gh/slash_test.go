package gh

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want []Command
	}{
		{name: "bare", body: "/core fix", want: []Command{{Name: "fix"}}},
		{name: "review", body: "LGTM?\n/core review focus on the parser", want: []Command{{Name: "review", Args: "focus on the parser"}}},
		{name: "quoted review", body: "> /core review", want: nil},
		{name: "with instruction", body: "/core fix make the tests pass  ", want: []Command{{Name: "fix", Args: "make the tests pass"}}},
		{name: "case-insensitive", body: "/CORE Fix it", want: []Command{{Name: "fix", Args: "it"}}},
		{name: "after text", body: "Thanks!\n\n/core fix please\nmore text", want: []Command{{Name: "fix", Args: "please"}}},
		{name: "leading spaces", body: "  /core fix x", want: []Command{{Name: "fix", Args: "x"}}},
		{name: "not at line start", body: "please /core fix this", want: nil},
		{name: "quoted", body: "> /core fix\nI disagree", want: nil},
		{name: "quoted with spaces", body: "  >  /core fix", want: nil},
		{name: "nested quote", body: ">> /core fix", want: nil},
		{name: "fenced code", body: "```\n/core fix\n```", want: nil},
		{name: "fenced with language", body: "```sh\n/core fix\n```\n/core help", want: []Command{{Name: "help"}}},
		{name: "tilde fence", body: "~~~\n/core fix\n~~~", want: nil},
		{name: "unclosed fence", body: "```\n/core fix", want: nil},
		{name: "indented code", body: "text\n\n    /core fix", want: nil},
		{name: "inline code", body: "run `/core fix` to start", want: nil},
		{name: "html comment", body: "<!--\n/core fix\n-->", want: nil},
		{name: "zero-width inside", body: "/co\u200bre fix", want: []Command{{Name: "fix"}}},
		{name: "several", body: "/core stop\n/core fix again", want: []Command{{Name: "stop"}, {Name: "fix", Args: "again"}}},
		{name: "crlf", body: "hi\r\n/core fix now\r\n", want: []Command{{Name: "fix", Args: "now"}}},
		{name: "other word", body: "/corefix", want: nil},
		{name: "no command name", body: "/core", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, ParseCommands(tt.body))
		})
	}
}

func TestIsBot(t *testing.T) {
	t.Parallel()
	assert.True(t, IsBot("dependabot[bot]", "Bot"))
	assert.True(t, IsBot("evil[bot]", "User"), "a [bot] suffix is refused whatever the type says")
	assert.True(t, IsBot("core-app", "Bot"), "the type says bot")
	assert.False(t, IsBot("alice", "User"))
}

func FuzzParseCommands(f *testing.F) {
	f.Add("> /core fix\n```\n/core fix\n```\n/core fix go")
	f.Fuzz(func(t *testing.T, body string) {
		for _, c := range ParseCommands(body) {
			if c.Name == "" {
				t.Fatalf("empty command name from %q", body)
			}
		}
	})
}

func TestParseCommandsForAnotherTrigger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, trigger, body string
		want                []Command
	}{
		{name: "at-mention", trigger: "@core", body: "hey\n@core fix the build\n", want: []Command{{Name: "fix", Args: "the build"}}},
		{name: "case-insensitive", trigger: "@core", body: "@CORE Fix it", want: []Command{{Name: "fix", Args: "it"}}},
		{name: "the default no longer counts", trigger: "@core", body: "/core fix it", want: nil},
		{name: "quoted", trigger: "@core", body: "> @core fix it", want: nil},
		{name: "not a prefix of a longer word", trigger: "@core", body: "@corey fix it", want: nil},
		{name: "regexp characters are literal", trigger: "/c.re", body: "/core fix it\n/c.re fix that", want: []Command{{Name: "fix", Args: "that"}}},
		{name: "a bad phrase finds nothing", trigger: "core bot", body: "core bot fix it", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ParseCommandsFor(tt.body, tt.trigger)
			if len(got) != len(tt.want) {
				t.Fatalf("ParseCommandsFor(%q, %q) = %v, want %v", tt.body, tt.trigger, got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("command %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestCheckTrigger(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"/core", "@core", "core", "@my-bot", "/c.re"} {
		if err := CheckTrigger(ok); err != nil {
			t.Errorf("CheckTrigger(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "/", "@", "core bot", "/core\n", "(core)", "@@core"} {
		if err := CheckTrigger(bad); err == nil {
			t.Errorf("CheckTrigger(%q) = nil, want an error", bad)
		}
	}
}
