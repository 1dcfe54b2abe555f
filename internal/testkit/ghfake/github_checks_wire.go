package ghfake

import (
	"cmp"
	"strconv"
	"strings"
)

type wireCheckOutput struct {
	Title            *string `json:"title"`
	Summary          *string `json:"summary"`
	Text             *string `json:"text"`
	AnnotationsCount int     `json:"annotations_count"`
	AnnotationsURL   string  `json:"annotations_url"`
}

type wireCheckSuiteRef struct {
	ID int64 `json:"id"`
}

type wireCheckRun struct {
	ID           int64             `json:"id"`
	NodeID       string            `json:"node_id"`
	HeadSHA      string            `json:"head_sha"`
	ExternalID   string            `json:"external_id"`
	URL          string            `json:"url"`
	HTMLURL      string            `json:"html_url"`
	DetailsURL   string            `json:"details_url"`
	Status       string            `json:"status"`
	Conclusion   *string           `json:"conclusion"`
	StartedAt    string            `json:"started_at"`
	CompletedAt  *string           `json:"completed_at"`
	Output       wireCheckOutput   `json:"output"`
	Name         string            `json:"name"`
	CheckSuite   wireCheckSuiteRef `json:"check_suite"`
	App          WireApp           `json:"app"`
	PullRequests []wirePull        `json:"pull_requests"`
}

// WireApp is a GitHub App as GitHub sends it.
type WireApp struct {
	ID          int64             `json:"id"`
	Slug        string            `json:"slug"`
	NodeID      string            `json:"node_id"`
	Owner       *WireUser         `json:"owner"`
	Name        string            `json:"name"`
	ClientID    string            `json:"client_id"`
	Description *string           `json:"description"`
	ExternalURL string            `json:"external_url"`
	HTMLURL     string            `json:"html_url"`
	CreatedAt   string            `json:"created_at"`
	UpdatedAt   string            `json:"updated_at"`
	Permissions map[string]string `json:"permissions"`
	Events      []string          `json:"events"`
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

// actionsAppID is the id of the GitHub Actions app on github.com, which
// reports the check runs of workflow jobs.
const actionsAppID = 15368

// actionsBot is the login of a workflow's GITHUB_TOKEN.
const actionsBot = "github-actions[bot]"

// wireCheckRun is a check run as GitHub sends it; its app is GitHub
// Actions, or the App that created it. Callers hold g.mu.
func (r *Repo) wireCheckRun(cr *checkRunState) wireCheckRun {
	id := strconv.FormatInt(cr.id, 10)
	url := r.apiURL() + "/check-runs/" + id
	var conclusion *string
	if cr.Status == "completed" {
		conclusion = &cr.Conclusion
	}
	created := wireTime(cr.started)
	return wireCheckRun{
		ID: cr.id, NodeID: nodeID("CR", cr.id), HeadSHA: cr.HeadSHA, ExternalID: cr.ExternalID,
		URL: url, HTMLURL: cr.HTMLURL, DetailsURL: cmp.Or(cr.DetailsURL, cr.HTMLURL),
		Status: cr.Status, Conclusion: conclusion,
		StartedAt: created, CompletedAt: wireTimePtr(cr.completed),
		Output: wireCheckOutput{
			Title: wireText(cr.Title), Summary: wireText(cr.Summary), Text: wireText(cr.Text),
			AnnotationsCount: len(cr.Annotations), AnnotationsURL: url + "/annotations",
		},
		Name:         cr.Name,
		CheckSuite:   wireCheckSuiteRef{ID: cr.suite},
		App:          r.wireCheckApp(cr.App, created),
		PullRequests: []wirePull{},
	}
}

// wireCheckApp is the App that reports a check run: GitHub Actions, or
// the App whose bot login made it.
func (r *Repo) wireCheckApp(login, created string) WireApp {
	id, slug, name := int64(actionsAppID), "github-actions", "GitHub Actions"
	if login != "" && login != actionsBot {
		slug = strings.TrimSuffix(login, "[bot]")
		id, name = r.g.accountID(login), slug
	}
	return WireApp{
		ID: id, Slug: slug, NodeID: nodeID("A", id),
		Name: name, HTMLURL: r.g.URL + "/apps/" + slug,
		Owner: ptr(r.g.wireUser("github")), CreatedAt: created, UpdatedAt: created,
		Permissions: map[string]string{"checks": "write", "contents": "write", "metadata": "read"},
		Events:      []string{},
	}
}

func ptr[T any](v T) *T { return &v }
