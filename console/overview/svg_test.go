package overview

import (
	"encoding/xml"
	"errors"
	"html/template"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// element is an SVG element as encoding/xml reads it back.
type element struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []element  `xml:",any"`
}

func (e element) attr(name string) string {
	for _, a := range e.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// all is every element under e (e too) named name.
func (e element) all(name string) []element {
	var out []element
	if e.XMLName.Local == name {
		out = append(out, e)
	}
	for _, c := range e.Children {
		out = append(out, c.all(name)...)
	}
	return out
}

// parse decodes a chart strictly, failing the test when it is not
// well-formed XML.
func parse(t *testing.T, h template.HTML) element {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(string(h)))
	dec.Strict = true
	var root element
	require.NoError(t, dec.Decode(&root), "the chart is well-formed XML:\n%s", h)
	_, err := dec.Token()
	require.True(t, errors.Is(err, io.EOF), "nothing follows the chart: %v", err)
	return root
}

// title is an element's own <title>.
func title(e element) string {
	for _, c := range e.Children {
		if c.XMLName.Local == "title" {
			return c.Text
		}
	}
	return ""
}

func sample() Summary {
	hostile := `<script>alert("x")</script> & ]]>`
	return Compute([]Run{
		{ID: "a", Repo: "acme/app", Started: at(0, 8), Ending: "held", Verdict: "held", CostUSD: usd(0.5), Goal: hostile},
		{ID: "b", Repo: "acme/app", Started: at(0, 9), Ending: "failed", Verdict: "broken", CostUSD: usd(0.25)},
		{ID: "c", Repo: "acme/app", Started: at(2, 9), Ending: hostile},
	}, window(7, ""))
}

func TestChartsAreWellFormedAndSayTheirNumbers(t *testing.T) {
	t.Parallel()
	s := sample()
	series := []Series{{Key: "held", Label: "held", Color: "#2da44e"}, {Key: "failed", Label: `failed "<&>"`, Color: "#cf222e"}}

	runs := parse(t, RunsChart(s, series))
	assert.Equal(t, "svg", runs.XMLName.Local)
	assert.Equal(t, "Runs a day, by how they ended, over 7 days", title(runs))
	require.Len(t, runs.all("desc"), 1)
	days := runs.all("g")
	var bars []element
	for _, g := range days {
		if g.attr("class") == "day" {
			bars = append(bars, g)
		}
	}
	require.Len(t, bars, 7, "a bar a day, an empty day too")
	assert.Equal(t, "2026-11-25: no runs", title(bars[0]))
	assert.Equal(t, "0", bars[0].attr("data-runs"))
	today := bars[6]
	assert.Equal(t, "2", today.attr("data-runs"))
	assert.Equal(t, `2026-12-01: 2 runs (1 held, 1 failed "<&>")`, title(today), "the label is escaped, and reads back as written")
	segs := today.all("rect")
	require.Len(t, segs, 2)
	assert.Equal(t, "held", segs[0].attr("data-ending"), "held stacks at the bottom")
	assert.Equal(t, "1", segs[0].attr("data-count"))
	assert.Equal(t, "2026-12-01: 1 held", title(segs[0]))
	odd := bars[4].all("rect")
	require.Len(t, odd, 1)
	assert.Equal(t, `<script>alert("x")</script> & ]]>`, odd[0].attr("data-ending"), "an unknown ending's key is escaped")
	assert.Contains(t, runs.all("text")[len(runs.all("text"))-1].Text, "<script>", "and shown as text in the legend")
	assert.NotContains(t, string(RunsChart(s, series)), "<script>", "never as markup")

	spend := parse(t, SpendChart(s))
	var spent []string
	for _, r := range spend.all("rect") {
		if r.attr("class") == "spend" {
			spent = append(spent, r.attr("data-day")+" "+r.attr("data-usd")+" "+r.attr("data-unpriced"))
		}
	}
	assert.Equal(t, []string{"2026-11-25 0.0000 0", "2026-11-26 0.0000 0", "2026-11-27 0.0000 0", "2026-11-28 0.0000 0",
		"2026-11-29 0.0000 1", "2026-11-30 0.0000 0", "2026-12-01 0.7500 0"}, spent)
	assert.Contains(t, string(SpendChart(s)), "<title>2026-12-01: $0.7500 over 2 priced runs, 0 with no price set</title>")

	verdicts := parse(t, VerdictChart(s))
	var shares []string
	for _, r := range verdicts.all("rect") {
		if r.attr("class") == "verdict" {
			shares = append(shares, title(r))
		}
	}
	assert.Equal(t, []string{"held: 1 of 3 ended runs (33%)", "broken: 1 of 3 ended runs (33%)", "unverified: 1 of 3 ended runs (33%)"}, shares)
}

func TestChartsOfAnEmptyWindow(t *testing.T) {
	t.Parallel()
	s := Compute(nil, window(90, ""))
	for name, h := range map[string]template.HTML{"runs": RunsChart(s, nil), "spend": SpendChart(s), "verdicts": VerdictChart(s)} {
		root := parse(t, h)
		assert.NotContains(t, string(h), "NaN", name)
		assert.NotContains(t, string(h), "Inf", name)
		assert.NotEmpty(t, title(root), name)
	}
	assert.Contains(t, string(VerdictChart(s)), "no ended runs")
}

func TestNiceTop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		most  float64
		whole bool
		want  float64
	}{
		{name: "no runs", most: 0, whole: true, want: 4},
		{name: "no spend", most: 0, want: 1},
		{name: "one run", most: 1, whole: true, want: 4},
		{name: "seven runs", most: 7, whole: true, want: 8},
		{name: "forty-one runs", most: 41, whole: true, want: 80},
		{name: "cents", most: 0.37, want: 0.4},
		{name: "dollars", most: 12.5, want: 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := niceTop(tt.most, tt.whole)
			assert.InDelta(t, tt.want, got, 1e-9)
			assert.GreaterOrEqual(t, got, tt.most)
		})
	}
}

// FuzzCharts: whatever the keys, labels, costs and times, every chart is
// well-formed XML.
func FuzzCharts(f *testing.F) {
	f.Add("held", `failed "<&>"`, 0.37, int64(3600), 30)
	f.Add("\x00]]>", "\xff\xfe", -1.0, int64(-5), 7)
	f.Fuzz(func(t *testing.T, key, label string, cost float64, secs int64, days int) {
		days = 1 + (days%90+90)%90
		runs := []Run{
			{ID: key, Repo: label, Started: today.Add(time.Duration(secs) * time.Second), Duration: time.Duration(secs) * time.Second, Ending: key, Verdict: label, CostUSD: &cost},
			{ID: "b", Started: today, Ending: label, Duration: time.Minute},
		}
		s := Compute(runs, window(days, ""))
		series := []Series{{Key: key, Label: label, Color: label}}
		for _, h := range []template.HTML{RunsChart(s, series), SpendChart(s), VerdictChart(s)} {
			dec := xml.NewDecoder(strings.NewReader(string(h)))
			dec.Strict = true
			var root element
			if err := dec.Decode(&root); err != nil {
				t.Fatalf("not well-formed: %v\n%s", err, h)
			}
		}
	})
}
