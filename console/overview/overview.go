// Package overview computes the console's overview of a window of runs
// (runs a day by how they ended, spend a day, the contract's verdicts,
// run times, the costliest runs) and draws its charts as SVG, on the
// server, for a page that needs no script. It takes a neutral Run, so
// it does not know the console: the console says how each run ended
// (console.EndingOf) and in which order the endings stack.
package overview

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Windows are the window lengths, in days, the overview offers.
var Windows = []int{7, 30, 90}

// Verdict shares' keys. Unverified is every run the contract did not
// judge held or broken: no contract, verdict none or unjudged.
const (
	VerdictHeld       = "held"
	VerdictBroken     = "broken"
	VerdictUnverified = "unverified"
)

// costliest is how many of the most expensive runs the overview lists.
const costliest = 10

// Run is one run as the overview reads it.
type Run struct {
	ID, Repo string
	Started  time.Time
	// Duration is how long the run took; zero when it is not known.
	Duration time.Duration
	// Ending is how the run ended, a key of Window.Endings.
	Ending  string
	Verdict string // the contract's: held, broken, none, unjudged or ""
	// CostUSD is what the run cost; nil when no price was set, which is
	// not $0.
	CostUSD *float64
	Goal    string
}

// Window is what the overview covers: the days UTC up to and including
// Today's, one repository's runs (its name in any case) or (Repo "") the
// organisation's, and
// the endings in the order the charts stack them.
type Window struct {
	Days  int
	Today time.Time
	Repo  string
	// Endings are the ending keys, bottom of a bar first; Live is the one
	// of runs that have not ended (they have no verdict or run time yet).
	Endings []string
	Live    string
}

// Day is one UTC day of the window.
type Day struct {
	Date     time.Time
	ByEnding map[string]int
	Runs     int
	// SpendUSD is what the day's priced runs cost; Priced counts them,
	// Unpriced the day's runs with no price set.
	SpendUSD         float64
	Priced, Unpriced int
}

// Shares are the contract's verdicts of the window's ended runs.
type Shares struct {
	Held, Broken, Unverified int
}

// Total is the number of ended runs the shares are of.
func (s Shares) Total() int { return s.Held + s.Broken + s.Unverified }

// Percent is n's share of the total, rounded to a whole percent; 0 of 0
// is 0.
func (s Shares) Percent(n int) int {
	if s.Total() == 0 {
		return 0
	}
	return int(math.Round(100 * float64(n) / float64(s.Total())))
}

// Summary is the overview of a window.
type Summary struct {
	Window Window
	Days   []Day // oldest first, every day of the window, runs or none
	// Endings are the keys the bars stack, Window.Endings followed by any
	// other a run had, sorted.
	Endings  []string
	Runs     int
	Ended    int
	Verdicts Shares
	// Median and P90 are the ended runs' run times (of those with a known
	// duration, Timed of them), interpolated between neighbours.
	Median, P90 time.Duration
	Timed       int
	SpendUSD    float64
	Unpriced    int
	Costliest   []Run // the most expensive priced runs, dearest first
}

// Start is the first instant of the window.
func (w Window) Start() time.Time {
	return day(w.Today).AddDate(0, 0, 1-w.Days)
}

// End is the first instant after the window.
func (w Window) End() time.Time {
	return day(w.Today).AddDate(0, 0, 1)
}

// Compute summarises the runs that started in w (of w.Repo, when set);
// others are left out.
func Compute(runs []Run, w Window) Summary {
	s := Summary{Window: w, Endings: slices.Clone(w.Endings)}
	start, end := w.Start(), w.End()
	for d := start; d.Before(end); d = d.AddDate(0, 0, 1) {
		s.Days = append(s.Days, Day{Date: d, ByEnding: map[string]int{}})
	}
	var times []time.Duration
	for _, r := range runs {
		if r.Started.Before(start) || !r.Started.Before(end) || w.Repo != "" && !strings.EqualFold(r.Repo, w.Repo) {
			continue
		}
		d := &s.Days[int(day(r.Started).Sub(start)/(24*time.Hour))]
		d.Runs++
		d.ByEnding[r.Ending]++
		if !slices.Contains(s.Endings, r.Ending) {
			s.Endings = append(s.Endings, r.Ending)
			slices.Sort(s.Endings[len(w.Endings):])
		}
		s.Runs++
		if r.CostUSD != nil {
			d.SpendUSD += *r.CostUSD
			d.Priced++
			s.SpendUSD += *r.CostUSD
			s.Costliest = append(s.Costliest, r)
		} else {
			d.Unpriced++
			s.Unpriced++
		}
		if r.Ending == w.Live {
			continue
		}
		s.Ended++
		s.Verdicts.add(r.Verdict)
		if r.Duration > 0 {
			times = append(times, r.Duration)
		}
	}
	slices.Sort(times)
	s.Timed = len(times)
	s.Median, s.P90 = Percentile(times, 0.5), Percentile(times, 0.9)
	slices.SortStableFunc(s.Costliest, func(a, b Run) int {
		return cmp.Or(cmp.Compare(*b.CostUSD, *a.CostUSD), b.Started.Compare(a.Started), cmp.Compare(a.ID, b.ID))
	})
	s.Costliest = s.Costliest[:min(len(s.Costliest), costliest)]
	return s
}

func (s *Shares) add(verdict string) {
	switch verdict {
	case VerdictHeld:
		s.Held++
	case VerdictBroken:
		s.Broken++
	default:
		s.Unverified++
	}
}

// Percentile is the q-quantile (0 ≤ q ≤ 1) of sorted, interpolated
// linearly between the two nearest values: the median of an even count
// is the mean of the middle two. Zero for none.
func Percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	frac := pos - float64(lo)
	return sorted[lo] + time.Duration(math.Round(frac*float64(sorted[hi]-sorted[lo])))
}

// Dollars shows an amount as the console does everywhere: four decimals.
func Dollars(usd float64) string {
	return fmt.Sprintf("$%.4f", usd)
}

func day(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
