package console

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reviewFields is a review's report: one confirmed finding with its
// reproduction's runs, one unconfirmed, and the harness's classification
// of the pull request's tests (session/review.Report), with markup in
// what the model and the repository wrote.
const reviewFields = `,"kind":"review","summary":"Add subtracts.","review":{"findings":[` +
	`{"file":"calc.go","line":6,"claim":"Add returns a - b <script>alert(1)</script>","confirmed":true,"why":"red on the head",` +
	`"reproduction":{"path":"repro_test.go","content":"x","command":["go","test","-run","TestRepro"],"expect":"want 5",` +
	`"head":{"exit":1,"passed":false,"seconds":1.5,"excerpt":"want 5"},"base":{"exit":0,"passed":true,"seconds":1.2,"excerpt":""}}},` +
	`{"file":"x.go","line":3,"claim":"maybe racy","confirmed":false,"why":"no reproduction"}],` +
	`"tests":{"files":[{"path":"calc_test.go","ecosystem":"go","commands":[["go","test"]],"new":true,` +
	`"base":{"exit":1,"passed":false,"seconds":2},"head":{"exit":0,"passed":true,"seconds":1},"class":"tests_change","reason":"red <b>then</b> green"}],"left_out":2}}`

// TestReviewRunsShowTheirFindings: the Runs page says each run's kind and
// a review's findings' counts; a review's page lists its confirmed
// findings with the harness's runs and the classification of the pull
// request's tests, all escaped. The report is kept as sent, by either
// store.
func TestReviewRunsShowTheirFindings(t *testing.T) {
	t.Parallel()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, open(t))
			for id, fields := range map[string]string{"s-review": reviewFields, "s-change": goalFields,
				"s-broken": `,"kind":"review","review":{"findings":[],"tests":{"files":[],"error":"list the pull request's files: 502"}}`} {
				code, body := h.call(t, http.MethodPost, "/api/session-runs", h.alice, report(id, "done", fields))
				require.Equal(t, http.StatusCreated, code, string(body))
			}
			b, _ := h.signIn(t, "bob")
			resp, page := b.get(t, "/runs")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Contains(t, row(t, page, "s-review"), `<span class="kind">review</span> · <span class="findings">1 confirmed, 1 unconfirmed</span>`)
			assert.Contains(t, row(t, page, "s-change"), `<span class="kind">change</span>`)
			assert.NotContains(t, row(t, page, "s-change"), `class="findings"`)
			assert.Contains(t, row(t, page, "s-broken"), `<span class="findings">no finding</span>`)

			resp, page = b.get(t, "/runs/s-review")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			for _, want := range []string{
				`<dd id="kind">review</dd>`,
				`<h2 id="review">Review: 1 confirmed, 1 unconfirmed</h2>`,
				`<td><code>calc.go:6</code></td><td>Add returns a - b &lt;script&gt;alert(1)&lt;/script&gt;</td><td><code>go test -run TestRepro</code></td><td>exit 1 (1.5s)</td><td>passed (1.2s)</td>`,
				`<tr class="test"><td><code>calc_test.go</code></td><td>new: exit 1 (2.0s)</td><td>passed (1.0s)</td><td><b>tests the change</b>: red &lt;b&gt;then&lt;/b&gt; green</td></tr>`,
				`2 more test files were left out`,
			} {
				assert.Contains(t, page, want)
			}
			assert.Len(t, regexp.MustCompile(`<tr class="finding">`).FindAllString(page, -1), 1, "only the confirmed finding is listed")
			section := page[strings.Index(page, `<h2 id="review">`):strings.Index(page, `<details id="raw">`)]
			assert.NotContains(t, section, "maybe racy", "an unconfirmed finding is counted, not listed")

			_, page = b.get(t, "/runs/s-broken")
			assert.Contains(t, page, `<p class="err" id="tests-error">The harness could not classify the pull request's tests: list the pull request&#39;s files: 502</p>`)
			assert.Contains(t, page, `<p id="no-confirmed">`)
			assert.NotContains(t, page, `id="no-tests"`, "an error is not \"no test file\"")

			_, page = b.get(t, "/runs/s-change")
			assert.Contains(t, page, `<dd id="kind">change</dd>`)
			assert.NotContains(t, page, `id="review"`)
		})
	}
}

// FuzzReviewOf: whatever a report holds, reading its review never panics,
// and what the pages show of it is bounded.
func FuzzReviewOf(f *testing.F) {
	f.Add([]byte(`{` + reviewFields[1:] + `}`))
	f.Add([]byte(`{"kind":"review","review":{"findings":[{"confirmed":true,"reproduction":{"command":null,"head":null}}],"tests":{"files":[{}]}}}`))
	f.Add([]byte(`{"kind":"review","review":null}`))
	f.Fuzz(func(t *testing.T, report []byte) {
		run := &Run{Report: report}
		run.fill(detailOf(run))
		v := reviewOf(detailOf(run))
		if v == nil {
			return
		}
		for _, fv := range v.Findings {
			if len([]rune(fv.Claim)) > 500 || len([]rune(fv.Where)) > 220 || len([]rune(fv.Command)) > 300 {
				t.Fatalf("a finding unbounded: %+v", fv)
			}
		}
		for _, tv := range v.Tests {
			if len([]rune(tv.Path)) > 200 || len([]rune(tv.Reason)) > 300 {
				t.Fatalf("a test row unbounded: %+v", tv)
			}
		}
	})
}
