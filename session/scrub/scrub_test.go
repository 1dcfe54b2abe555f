package scrub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestString(t *testing.T) {
	t.Parallel()
	s := New("ghs_Secret123", "key<&>\"x", "ab", "ghs_Secret123LONGER")
	tests := []struct {
		name, in, want string
	}{
		{name: "none", in: "nothing here", want: "nothing here"},
		{name: "plain", in: "token ghs_Secret123 here", want: "token [redacted] here"},
		{name: "twice", in: "ghs_Secret123ghs_Secret123", want: "[redacted][redacted]"},
		{name: "longer secret holding a shorter one", in: "x ghs_Secret123LONGER y", want: "x [redacted] y"},
		{name: "too short to be a secret", in: "ab cd", want: "ab cd"},
		{name: "JSON-escaped form", in: `{"k":"key\u003c\u0026\u003e\"x"}`, want: `{"k":"[redacted]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, s.String(tt.in))
			assert.Equal(t, tt.want, string(s.Bytes([]byte(tt.in))))
			assert.Equal(t, tt.want != tt.in, s.Contains(tt.in))
		})
	}
}

func TestJSONOfASecretIsScrubbed(t *testing.T) {
	t.Parallel()
	secret := `p<a>ss&"word\`
	s := New(secret)
	b, err := json.Marshal(map[string]string{"error": "it was " + secret})
	require.NoError(t, err)
	out := s.Bytes(b)
	var back map[string]string
	require.NoError(t, json.Unmarshal(out, &back), "still JSON")
	assert.Equal(t, "it was [redacted]", back["error"])
}

func TestNilScrubsNothing(t *testing.T) {
	t.Parallel()
	var s *Scrubber
	assert.Nil(t, New(), "no secrets")
	assert.Nil(t, New("", "abc"), "none long enough")
	assert.Equal(t, "x", s.String("x"))
	assert.False(t, s.Contains("x"))
	var b strings.Builder
	assert.Same(t, &b, s.Writer(&b))
	assert.NoError(t, s.Error(nil))
}

func TestError(t *testing.T) {
	t.Parallel()
	s := New("sekrit-value")
	base := fmt.Errorf("open sekrit-value: %w", fs.ErrNotExist)
	err := s.Error(base)
	assert.Equal(t, "open [redacted]: file does not exist", err.Error())
	assert.ErrorIs(t, err, fs.ErrNotExist)
	var pe *fs.PathError
	assert.False(t, errors.As(err, &pe))
	clean := errors.New("nothing secret")
	assert.Same(t, clean, s.Error(clean), "an error without a secret is returned as is")
	assert.NoError(t, s.Error(nil))
}

func TestWriter(t *testing.T) {
	t.Parallel()
	s := New("sekrit-value")
	var b strings.Builder
	w := s.Writer(&b)
	n, err := fmt.Fprintf(w, "turn 1/40  run_shell echo %s  1ms\n", "sekrit-value")
	require.NoError(t, err)
	assert.Equal(t, len("turn 1/40  run_shell echo sekrit-value  1ms\n"), n, "the caller's count")
	assert.Equal(t, "turn 1/40  run_shell echo [redacted]  1ms\n", b.String())
	assert.Same(t, w, s.Writer(w), "not wrapped twice")
}

func TestDynamicLearnsNewSecrets(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	tokens := []string{"ghs_first_token"}
	s := Dynamic(func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string{}, tokens...)
	}, "sk-model-key")
	if got := s.String("ghs_first_token sk-model-key ghs_second_token"); got != Mark+" "+Mark+" ghs_second_token" {
		t.Fatalf("before the refresh: %q", got)
	}
	mu.Lock()
	tokens = append(tokens, "ghs_second_token")
	mu.Unlock()
	if got := s.String("ghs_second_token"); got != Mark {
		t.Fatalf("a token handed out later is scrubbed too: %q", got)
	}
	var b strings.Builder
	w := s.Writer(&b)
	_, _ = w.Write([]byte("push with ghs_second_token\n"))
	if strings.Contains(b.String(), "ghs_second_token") {
		t.Fatalf("a writer made earlier scrubs it too: %q", b.String())
	}
}
