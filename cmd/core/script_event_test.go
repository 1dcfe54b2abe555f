package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/coreagent/core/internal/testkit/ghfake"
)

// webhookExamples are the real payloads of @octokit/webhooks-examples,
// loaded once: event name → examples.
type webhookExamples map[string][]map[string]any

var loadExamples = sync.OnceValues(func() (webhookExamples, error) {
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", ".fixtures", "webhooks", "api.github.com", "index.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var index []struct {
		Name     string           `json:"name"`
		Examples []map[string]any `json:"examples"`
	}
	if err := json.Unmarshal(b, &index); err != nil {
		return nil, err
	}
	out := webhookExamples{}
	for _, e := range index {
		out[e.Name] = e.Examples
	}
	return out, nil
})

// gh-event NAME ACTION FILE [PATH=VALUE | -PATH]...: write to FILE a real
// example payload of event NAME with action ACTION, edited: PATH=VALUE sets
// a dotted path (numbers and true/false/null are typed), -PATH deletes it.
func cmdGHEvent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: gh-event NAME ACTION FILE [PATH=VALUE | -PATH]...")
	}
	examples, err := loadExamples()
	if err != nil {
		ts.Fatalf("gh-event: the webhook examples are missing (run ./scripts/fixtures.sh): %v", err)
	}
	var payload map[string]any
	for _, ex := range examples[args[0]] {
		if a, _ := ex["action"].(string); a == args[1] || args[1] == "-" {
			payload = deepCopy(ex)
			break
		}
	}
	if payload == nil {
		ts.Fatalf("gh-event: no example of %s %s", args[0], args[1])
	}
	for _, edit := range args[3:] {
		if strings.HasPrefix(edit, "-") {
			setPath(payload, strings.Split(edit[1:], "."), nil, true)
			continue
		}
		path, value, ok := strings.Cut(edit, "=")
		if !ok {
			ts.Fatalf("gh-event: %q is not PATH=VALUE", edit)
		}
		setPath(payload, strings.Split(path, "."), typed(value), false)
	}
	accountIDs(ts, payload, args[3:])
	b, err := json.MarshalIndent(payload, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), b, 0o644))
}

// accountIDs gives each account an edit names by login (PATH.login=LOGIN)
// the id the script's GitHub knows it by, as GitHub's own payload would,
// unless an edit sets that id too (PATH.id=N) or no GitHub is served: an
// example's id is another account's (the payload's Codertocat), and core
// knows a run's starter by id.
func accountIDs(ts *testscript.TestScript, payload map[string]any, edits []string) {
	p, _ := ts.Value(githubKey{}).(**ghfake.GitHub)
	if p == nil || *p == nil {
		return
	}
	set := map[string]bool{}
	for _, edit := range edits {
		path, _, _ := strings.Cut(edit, "=")
		set[path] = true
	}
	for _, edit := range edits {
		path, login, ok := strings.Cut(edit, "=")
		account, isLogin := strings.CutSuffix(path, ".login")
		if !ok || !isLogin || set[account+".id"] {
			continue
		}
		setPath(payload, strings.Split(account+".id", "."), (*p).User(login).ID, false)
	}
}

func typed(v string) any {
	switch v {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n
	}
	return strings.ReplaceAll(v, `\n`, "\n")
}

func setPath(m map[string]any, path []string, v any, del bool) {
	for len(path) > 1 {
		next, ok := m[path[0]].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[path[0]] = next
		}
		m, path = next, path[1:]
	}
	if del {
		delete(m, path[0])
		return
	}
	m[path[0]] = v
}

func deepCopy(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}
