package main

import (
	"cmp"
	"path/filepath"
	"slices"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/budget"
	"github.com/coreagent/core/session/review"
)

// listEntry is a session as list --json shows it: its record, what its
// last run spent by turn and by tool (from its report.json, when there is
// one), so the most expensive runs and turns are one query away, and a
// review's findings (as report.json's "review" has them).
type listEntry struct {
	*session.Record
	Spend       []budget.TurnSpend `json:"spend,omitempty"`
	SpendByTool []budget.ToolSpend `json:"spend_by_tool,omitempty"`
	Review      *review.Report     `json:"review,omitempty"`
}

// listEntries adds each record's last spend, and a review's findings, read
// as strictly as the FINDINGS column reads them (loadReview).
func listEntries(store *session.Store, recs []*session.Record) []listEntry {
	out := make([]listEntry, 0, len(recs))
	for _, r := range recs {
		e := listEntry{Record: r}
		if rep, err := store.LoadReport(r.ID); err == nil {
			e.Spend, e.SpendByTool = rep.Spend, rep.SpendByTool
		}
		if r.Kind == review.Kind {
			e.Review, _ = loadReview(filepath.Join(store.Dir(r.ID), session.ReportFile))
		}
		out = append(out, e)
	}
	return out
}

// sortByCost puts the most expensive sessions first; those whose cost is
// unknown last, newest first as before.
func sortByCost(recs []*session.Record) {
	slices.SortStableFunc(recs, func(a, b *session.Record) int {
		switch {
		case a.CostUSD == nil && b.CostUSD == nil:
			return 0
		case a.CostUSD == nil:
			return 1
		case b.CostUSD == nil:
			return -1
		}
		return cmp.Compare(*b.CostUSD, *a.CostUSD)
	})
}
