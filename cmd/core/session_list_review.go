package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/review"
)

// maxReportBytes is the most of a report.json list reads for a review's
// findings: a report past it is not one core wrote.
const maxReportBytes = 16 << 20

// reviewFindings is the FINDINGS cell of a review's row: its findings'
// counts from its report.json ("1 confirmed, 2 unconfirmed"), "-" when
// the review has not reported yet, "?" when its report cannot be read;
// empty for a run that is not a review.
func reviewFindings(store *session.Store, rec *session.Record) string {
	if rec.Kind != review.Kind {
		return ""
	}
	r, err := loadReview(filepath.Join(store.Dir(rec.ID), session.ReportFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "-"
	case err != nil:
		return "?"
	case r == nil:
		return "-"
	}
	return r.FindingsText()
}

// loadReview reads the "review" of the report.json at path, strictly: no
// link followed, at most maxReportBytes, and JSON that decodes.
func loadReview(path string) (*review.Report, error) {
	if fi, err := os.Lstat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxReportBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxReportBytes {
		return nil, fmt.Errorf("%s is over %d bytes", path, maxReportBytes)
	}
	var rep struct {
		Review *review.Report `json:"review"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return rep.Review, nil
}
