package overview

import (
	"encoding/xml"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Series is how a chart shows one ending: its legend's words and its
// colour (a CSS colour).
type Series struct {
	Key, Label, Color string
}

// The charts' frame, in SVG user units.
const (
	chartW, chartH     = 720, 280
	padL, padR         = 60, 12
	padT, padB         = 12, 90 // the bottom holds the dates, the axis' title and two rows of legend
	plotW, plotH       = chartW - padL - padR, chartH - padT - padB
	otherColor         = "#8c959f"
	spendColor         = "#54aeff"
	heldColor          = "#2da44e"
	brokenColor        = "#cf222e"
	unverifiedColor    = "#d4a72c"
	dateLayout         = "2006-01-02"
	shortDateLayout    = "Jan 2"
	legendY            = padT + plotH + 56
	verdictW, verdictH = 720, 90
)

// svg writes one chart; every text it is given is escaped.
type svg struct {
	b strings.Builder
}

func (s *svg) open(id, title, desc string, w, h int) {
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" id="%s" class="chart" viewBox="0 0 %d %d" role="img" aria-labelledby="%[1]s-title %[1]s-desc">`, esc(id), w, h)
	fmt.Fprintf(&s.b, `<title id="%s-title">%s</title><desc id="%[1]s-desc">%s</desc>`, esc(id), esc(title), esc(desc))
}

func (s *svg) text(x, y float64, anchor, class, body string) {
	fmt.Fprintf(&s.b, `<text x="%s" y="%s" text-anchor="%s" class="%s">%s</text>`, num(x), num(y), anchor, class, esc(body))
}

func (s *svg) close() template.HTML {
	s.b.WriteString(`</svg>`)
	return template.HTML(s.b.String()) // #nosec G203 -- every value in it went through esc
}

// axes draws the value axis (its ticks up to top, labelled by label) and
// the days under the plot, and the axes' titles.
func (s *svg) axes(days []Day, top float64, label func(float64) string, yTitle string) {
	ticks := 4
	for i := 0; i <= ticks; i++ {
		v := top * float64(i) / float64(ticks)
		y := padT + plotH - plotH*float64(i)/float64(ticks)
		fmt.Fprintf(&s.b, `<line x1="%d" x2="%d" y1="%s" y2="%[3]s" stroke="#d0d7de" stroke-width="1"/>`, padL, padL+plotW, num(y))
		s.text(padL-6, y+4, "end", "tick", label(v))
	}
	slot := float64(plotW) / float64(max(1, len(days)))
	every := max(1, int(math.Ceil(float64(len(days))/8)))
	for i, d := range days {
		if i%every == 0 || i == len(days)-1 && len(days) <= 8 {
			s.text(padL+slot*(float64(i)+0.5), padT+plotH+16, "middle", "tick", d.Date.Format(shortDateLayout))
		}
	}
	s.text(padL+plotW/2, padT+plotH+34, "middle", "axis", "day (UTC)")
	fmt.Fprintf(&s.b, `<text x="14" y="%d" text-anchor="middle" class="axis" transform="rotate(-90 14 %[1]d)">%s</text>`, padT+plotH/2, esc(yTitle))
}

// legend draws one swatch and label a series, left to right from y, on
// as many rows as they take.
func (s *svg) legend(y float64, items []Series) {
	x := float64(padL)
	for _, it := range items {
		w := 22 + 6.5*float64(len([]rune(it.Label)))
		if x > padL && x+w > chartW-padR {
			x, y = padL, y+16
		}
		fmt.Fprintf(&s.b, `<g class="legend" data-key="%s"><rect x="%s" y="%s" width="10" height="10" fill="%s"/>`,
			esc(it.Key), num(x), num(y-9), esc(it.Color))
		s.text(x+14, y, "start", "legend", it.Label)
		s.b.WriteString(`</g>`)
		x += w
	}
}

// RunsChart draws the runs of each day as a bar, stacked by ending in
// s.Endings' order; series gives each ending its words and colour (an
// ending without one is shown by its key, in grey).
func RunsChart(s Summary, series []Series) template.HTML {
	items := SeriesOf(s.Endings, series)
	most := 0
	for _, d := range s.Days {
		most = max(most, d.Runs)
	}
	top := niceTop(float64(most), true)
	var c svg
	c.open("runs-chart", fmt.Sprintf("Runs a day, by how they ended, over %d days", len(s.Days)),
		fmt.Sprintf("%d runs from %s to %s; each bar is one UTC day, its parts stacked by how the runs ended.",
			s.Runs, s.Window.Start().Format(dateLayout), s.Window.Today.UTC().Format(dateLayout)), chartW, chartH)
	c.axes(s.Days, top, func(v float64) string { return strconv.Itoa(int(math.Round(v))) }, "runs")
	slot := float64(plotW) / float64(max(1, len(s.Days)))
	for i, d := range s.Days {
		date := d.Date.Format(dateLayout)
		x := padL + slot*float64(i) + slot*0.1
		fmt.Fprintf(&c.b, `<g class="day" data-day="%s" data-runs="%d"><title>%s</title>`, date, d.Runs, esc(dayTitle(d, items)))
		y := float64(padT + plotH)
		if d.Runs == 0 {
			fmt.Fprintf(&c.b, `<rect class="empty" x="%s" y="%s" width="%s" height="1" fill="%s"/>`, num(x), num(y-1), num(slot*0.8), otherColor)
		}
		for _, it := range items {
			n := d.ByEnding[it.Key]
			if n == 0 {
				continue
			}
			h := plotH * float64(n) / top
			y -= h
			fmt.Fprintf(&c.b, `<rect class="seg" x="%s" y="%s" width="%s" height="%s" fill="%s" data-ending="%s" data-count="%d"><title>%s: %d %s</title></rect>`,
				num(x), num(y), num(slot*0.8), num(h), esc(it.Color), esc(it.Key), n, date, n, esc(it.Label))
		}
		c.b.WriteString(`</g>`)
	}
	c.legend(legendY, items)
	return c.close()
}

// SpendChart draws what each day's priced runs cost; a day's runs with no
// price set add nothing to it, and its bar's title counts them.
func SpendChart(s Summary) template.HTML {
	most := 0.0
	for _, d := range s.Days {
		most = max(most, d.SpendUSD)
	}
	top := niceTop(most, false)
	var c svg
	c.open("spend-chart", fmt.Sprintf("Spend a day over %d days", len(s.Days)),
		fmt.Sprintf("%s over %d priced runs from %s to %s; %d runs had no price set and count for nothing here.",
			Dollars(s.SpendUSD), s.Runs-s.Unpriced, s.Window.Start().Format(dateLayout), s.Window.Today.UTC().Format(dateLayout), s.Unpriced), chartW, chartH)
	c.axes(s.Days, top, func(v float64) string { return "$" + strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64) }, "US dollars")
	slot := float64(plotW) / float64(max(1, len(s.Days)))
	for i, d := range s.Days {
		h := plotH * d.SpendUSD / top
		fmt.Fprintf(&c.b, `<rect class="spend" x="%s" y="%s" width="%s" height="%s" fill="%s" data-day="%s" data-usd="%.4f" data-priced="%d" data-unpriced="%d"><title>%s: %s over %d priced runs, %d with no price set</title></rect>`,
			num(padL+slot*float64(i)+slot*0.1), num(float64(padT+plotH)-max(h, 1)), num(slot*0.8), num(max(h, 1)), spendColor,
			d.Date.Format(dateLayout), d.SpendUSD, d.Priced, d.Unpriced, d.Date.Format(dateLayout), Dollars(d.SpendUSD), d.Priced, d.Unpriced)
	}
	c.legend(legendY, []Series{{Key: "spend", Label: "cost of priced runs", Color: spendColor}})
	return c.close()
}

// VerdictChart draws the contract's verdicts of the ended runs as one
// bar of shares.
func VerdictChart(s Summary) template.HTML {
	v := s.Verdicts
	var c svg
	c.open("verdict-chart", "The contract's verdicts of the ended runs",
		fmt.Sprintf("Of %d ended runs: %d held (%d%%), %d broken (%d%%), %d unverified (%d%%).",
			v.Total(), v.Held, v.Percent(v.Held), v.Broken, v.Percent(v.Broken), v.Unverified, v.Percent(v.Unverified)), verdictW, verdictH)
	items := VerdictSeries()
	x, w := float64(padL), float64(verdictW-padL-padR)
	if v.Total() == 0 {
		fmt.Fprintf(&c.b, `<rect class="empty" x="%s" y="12" width="%s" height="30" fill="#f6f8fa"/>`, num(x), num(w))
		c.text(x+w/2, 32, "middle", "tick", "no ended runs")
	}
	for i, n := range []int{v.Held, v.Broken, v.Unverified} {
		if n == 0 {
			continue
		}
		sw := w * float64(n) / float64(v.Total())
		fmt.Fprintf(&c.b, `<rect class="verdict" x="%s" y="12" width="%s" height="30" fill="%s" data-verdict="%s" data-count="%d"><title>%s: %d of %d ended runs (%d%%)</title></rect>`,
			num(x), num(sw), items[i].Color, items[i].Key, n, esc(items[i].Label), n, v.Total(), v.Percent(n))
		x += sw
	}
	c.text(padL-6, 32, "end", "axis", "verdicts")
	c.legend(verdictH-16, items)
	return c.close()
}

// VerdictSeries are the verdict chart's shares, in its order.
func VerdictSeries() []Series {
	return []Series{
		{Key: VerdictHeld, Label: "held", Color: heldColor},
		{Key: VerdictBroken, Label: "broken", Color: brokenColor},
		{Key: VerdictUnverified, Label: "unverified", Color: unverifiedColor},
	}
}

// SeriesOf is a series for each of keys, in its order: series' own, or
// the key itself in grey for a key series does not name.
func SeriesOf(keys []string, series []Series) []Series {
	out := make([]Series, 0, len(keys))
	for _, k := range keys {
		it := Series{Key: k, Label: k, Color: otherColor}
		for _, s := range series {
			if s.Key == k {
				it = s
			}
		}
		out = append(out, it)
	}
	return out
}

// dayTitle is a day's bar's title: its runs, and how many ended each way.
func dayTitle(d Day, items []Series) string {
	date := d.Date.Format(dateLayout)
	if d.Runs == 0 {
		return date + ": no runs"
	}
	var parts []string
	for _, it := range items {
		if n := d.ByEnding[it.Key]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, it.Label))
		}
	}
	return fmt.Sprintf("%s: %d runs (%s)", date, d.Runs, strings.Join(parts, ", "))
}

// niceTop is the value axis' top: most rounded up to 1, 2 or 5 times a
// power of ten times the four ticks (a whole number for counts), and 1
// for nothing.
func niceTop(most float64, whole bool) float64 {
	if most <= 0 {
		if whole {
			return 4
		}
		return 1
	}
	step := most / 4
	p := math.Pow(10, math.Floor(math.Log10(step)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= step {
			step = m * p
			break
		}
	}
	if whole {
		step = math.Max(1, math.Ceil(step))
	}
	return step * 4
}

func num(f float64) string {
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64)
}

// esc escapes s for XML text and attributes; a character XML cannot
// hold (a NUL, invalid UTF-8) becomes U+FFFD.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}
