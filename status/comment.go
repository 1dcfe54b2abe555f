package status

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/coreagent/core/gh"
)

// Comment is a run's status comment. Its contract:
//
//   - Text is the headline, written by whoever carries the run out: the
//     Action (progress and the final result, with its verification line)
//     or the bot's local runner. The bot writes it only before the Action
//     starts (queued, dispatched) and when nothing else will (a dispatch
//     failure, /core stop, a restart).
//   - Notes are what the bot adds afterwards: the pull request's link, a
//     workflow run that failed. A writer keeps every note it found.
//   - RunURL links the workflow run; the markers close the comment: the
//     status marker, the workflow-run marker the bot cancels on
//     /core stop, and the cost marker the bot records the run's cost from.
type Comment struct {
	RunID       string
	Text        string
	Notes       []string
	RunURL      string
	WorkflowRun int64
	// Cost is what the run cost in dollars, as the Action's cost output
	// has it ("0.1234"); empty while unknown.
	Cost string
}

var runURLRe = regexp.MustCompile(`^<sub>\[workflow run\]\((.+)\)</sub>$`)

// Body renders the comment.
func (c Comment) Body() string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(c.Text))
	if len(c.Notes) > 0 {
		b.WriteString("\n\n" + notesMarker)
		for _, n := range c.Notes {
			b.WriteString("\n- " + strings.ReplaceAll(strings.TrimSpace(n), "\n", " "))
		}
	}
	b.WriteString("\n\n")
	if c.RunURL != "" {
		fmt.Fprintf(&b, "<sub>[workflow run](%s)</sub>\n", c.RunURL)
	}
	b.WriteString(Marker(c.RunID))
	if c.WorkflowRun != 0 {
		b.WriteString("\n" + WorkflowRunMarker(c.WorkflowRun))
	}
	if c.Cost != "" {
		b.WriteString("\n" + CostMarker(c.Cost))
	}
	return b.String()
}

// Parse reads a status comment back; ok is false when body carries no
// status marker.
func Parse(body string) (c Comment, ok bool) {
	m := markerRe.FindStringSubmatch(body)
	if m == nil {
		return Comment{}, false
	}
	c.RunID = m[1]
	c.WorkflowRun = WorkflowRunIn(body)
	if m := costRe.FindStringSubmatch(body); m != nil {
		c.Cost = m[1]
	}
	var text []string
	inNotes := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == notesMarker:
			inNotes = true
		case markerRe.MatchString(t), workflowRunRe.MatchString(t), costRe.MatchString(t):
		case runURLRe.MatchString(t):
			c.RunURL = runURLRe.FindStringSubmatch(t)[1]
		case inNotes && strings.HasPrefix(t, "- "):
			c.Notes = append(c.Notes, strings.TrimPrefix(t, "- "))
		case inNotes && t == "":
			inNotes = false
		default:
			text = append(text, line)
		}
	}
	c.Text = strings.TrimSpace(strings.Join(text, "\n"))
	return c, true
}

// AddNote adds a note once.
func (c *Comment) AddNote(note string) {
	note = strings.ReplaceAll(strings.TrimSpace(note), "\n", " ")
	if note != "" && !slices.Contains(c.Notes, note) {
		c.Notes = append(c.Notes, note)
	}
}

// Find returns the status comment of a run on an issue or pull request,
// or nil.
func Find(ctx context.Context, client *gh.Client, owner, repo string, number int, runID string) (*gh.Comment, error) {
	comments, err := client.ListComments(ctx, owner, repo, number)
	if err != nil {
		return nil, err
	}
	var found *gh.Comment
	for i := range comments {
		if strings.Contains(comments[i].Body, Marker(runID)) {
			found = &comments[i]
		}
	}
	return found, nil
}

// Update reads the status comment id, lets edit change it (keeping what
// the other writer added), and writes it back.
func Update(ctx context.Context, client *gh.Client, owner, repo string, id int64, runID string, edit func(*Comment)) error {
	cm, err := client.GetComment(ctx, owner, repo, id)
	if err != nil {
		return err
	}
	c, ok := Parse(cm.Body)
	if !ok {
		c = Comment{RunID: runID}
	}
	edit(&c)
	if c.RunID == "" {
		c.RunID = runID
	}
	return client.EditComment(ctx, owner, repo, id, c.Body())
}
