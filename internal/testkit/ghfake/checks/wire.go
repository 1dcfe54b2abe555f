package checks

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"strconv"
	"time"
)

type wireOutput struct {
	Title            *string `json:"title"`
	Summary          *string `json:"summary"`
	Text             *string `json:"text"`
	AnnotationsCount int     `json:"annotations_count"`
	AnnotationsURL   string  `json:"annotations_url"`
}

type wireSuiteRef struct {
	ID int64 `json:"id"`
}

type wireRun struct {
	ID          int64        `json:"id"`
	NodeID      string       `json:"node_id"`
	HeadSHA     string       `json:"head_sha"`
	ExternalID  string       `json:"external_id"`
	URL         string       `json:"url"`
	HTMLURL     string       `json:"html_url"`
	DetailsURL  string       `json:"details_url"`
	Status      string       `json:"status"`
	Conclusion  *string      `json:"conclusion"`
	StartedAt   string       `json:"started_at"`
	CompletedAt *string      `json:"completed_at"`
	Output      wireOutput   `json:"output"`
	Name        string       `json:"name"`
	CheckSuite  wireSuiteRef `json:"check_suite"`
	// App is the double's (Host.App).
	App          any   `json:"app"`
	PullRequests []any `json:"pull_requests"`
}

type wireAnnotation struct {
	Path            string  `json:"path"`
	BlobHref        string  `json:"blob_href"`
	StartLine       int     `json:"start_line"`
	EndLine         int     `json:"end_line"`
	StartColumn     *int    `json:"start_column"`
	EndColumn       *int    `json:"end_column"`
	AnnotationLevel string  `json:"annotation_level"`
	Title           *string `json:"title"`
	Message         string  `json:"message"`
	RawDetails      *string `json:"raw_details"`
}

// wireRun is a check run of repo as GitHub sends it; its app is GitHub
// Actions, or the App that created it.
func (s *Server) wireRun(repo Repo, cr *runState) wireRun {
	id := strconv.FormatInt(cr.id, 10)
	url := repo.APIURL + "/check-runs/" + id
	var conclusion *string
	if cr.Status == "completed" {
		conclusion = &cr.Conclusion
	}
	created := wireTime(cr.started)
	return wireRun{
		ID: cr.id, NodeID: nodeID("CR", cr.id), HeadSHA: cr.HeadSHA, ExternalID: cr.ExternalID,
		URL: url, HTMLURL: cr.HTMLURL, DetailsURL: cmp.Or(cr.DetailsURL, cr.HTMLURL),
		Status: cr.Status, Conclusion: conclusion,
		StartedAt: created, CompletedAt: wireTimePtr(cr.completed),
		Output: wireOutput{
			Title: wireText(cr.Title), Summary: wireText(cr.Summary), Text: wireText(cr.Text),
			AnnotationsCount: len(cr.Annotations), AnnotationsURL: url + "/annotations",
		},
		Name:         cr.Name,
		CheckSuite:   wireSuiteRef{ID: cr.suite},
		App:          s.host.App(cr.App, created),
		PullRequests: []any{},
	}
}

func wireTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func wireTimePtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := wireTime(t)
	return &s
}

func wireText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nodeID makes a GraphQL-style node id for a kind and database id, as
// ghfake's do.
func nodeID(kind string, id int64) string {
	return kind + "_" + base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d", id))
}
