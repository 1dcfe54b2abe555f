package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/review"
)

// TestReviewFindings: list's FINDINGS cell is read from a review's
// report.json, strictly: a link, a huge file or bad JSON is "?", never
// followed, read whole or trusted.
func TestReviewFindings(t *testing.T) {
	t.Parallel()
	store, err := session.NewStore(t.TempDir())
	require.NoError(t, err)
	outside := filepath.Join(t.TempDir(), "report.json")
	require.NoError(t, os.WriteFile(outside, []byte(`{"review":{"findings":[{"confirmed":true}]}}`), 0o600))
	for _, tc := range []struct {
		name   string
		kind   string
		report string // "" for none, "link" for a link to a good one
		want   string
	}{
		{name: "a change run", kind: "", report: `{"review":{"findings":[{"confirmed":true}]}}`, want: ""},
		{name: "a review", kind: review.Kind, report: `{"kind":"review","review":{"findings":[{"confirmed":true},{"confirmed":false},{}]}}`, want: "1 confirmed, 2 unconfirmed"},
		{name: "a review with none", kind: review.Kind, report: `{"review":{"findings":[]}}`, want: "no finding"},
		{name: "no report yet", kind: review.Kind, want: "-"},
		{name: "a report without its review", kind: review.Kind, report: `{"status":"failed"}`, want: "-"},
		{name: "bad JSON", kind: review.Kind, report: `{"review":{"findings":7}}`, want: "?"},
		{name: "a link", kind: review.Kind, report: "link", want: "?"},
		{name: "huge", kind: review.Kind, report: `{"review":{"findings":[]},"x":"` + strings.Repeat("a", maxReportBytes) + `"}`, want: "?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &session.Record{ID: session.NewID(time.Now())}
			rec.Kind = tc.kind
			dir := store.Dir(rec.ID)
			require.NoError(t, os.MkdirAll(dir, 0o700))
			switch tc.report {
			case "":
			case "link":
				require.NoError(t, os.Symlink(outside, filepath.Join(dir, session.ReportFile)))
			default:
				require.NoError(t, os.WriteFile(filepath.Join(dir, session.ReportFile), []byte(tc.report), 0o600))
			}
			assert.Equal(t, tc.want, reviewFindings(store, rec))
		})
	}
}

// TestListJSONCarriesFindings: list --json gives a review's findings as
// its report.json has them, and nothing for a change run or a review
// whose report is a link.
func TestListJSONCarriesFindings(t *testing.T) {
	t.Parallel()
	store, err := session.NewStore(t.TempDir())
	require.NoError(t, err)
	outside := filepath.Join(t.TempDir(), "report.json")
	require.NoError(t, os.WriteFile(outside, []byte(`{"review":{"findings":[{"claim":"planted","confirmed":true}]}}`), 0o600))
	write := func(kind, report string) *session.Record {
		rec := &session.Record{ID: session.NewID(time.Now())}
		rec.Kind = kind
		dir := store.Dir(rec.ID)
		require.NoError(t, os.MkdirAll(dir, 0o700))
		if report == "link" {
			require.NoError(t, os.Symlink(outside, filepath.Join(dir, session.ReportFile)))
		} else {
			require.NoError(t, os.WriteFile(filepath.Join(dir, session.ReportFile), []byte(report), 0o600))
		}
		return rec
	}
	recs := []*session.Record{
		write(review.Kind, `{"kind":"review","review":{"findings":[{"file":"a.go","line":3,"claim":"off by one","confirmed":true},{"claim":"maybe","confirmed":false}]}}`),
		write("", `{"review":{"findings":[{"claim":"not a review's","confirmed":true}]}}`),
		write(review.Kind, "link"),
	}
	var out strings.Builder
	require.NoError(t, writeJSON(&out, listEntries(store, recs)))
	got := out.String()
	assert.Contains(t, got, `"claim": "off by one"`)
	assert.Contains(t, got, `"claim": "maybe"`)
	assert.NotContains(t, got, "not a review's")
	assert.NotContains(t, got, "planted", "a link is never followed")
}
