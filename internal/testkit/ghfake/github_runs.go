package ghfake

import (
	"net/http"
	"strconv"
)

// cancelWorkflowRun serves POST /repos/{o}/{r}/actions/runs/{run}/cancel:
// 202, recorded; the double keeps no workflow runs, so any run id of a
// repository the caller may write to is accepted.
func (g *GitHub) cancelWorkflowRun(c *apiCall) {
	if !c.repo.can(c.login, permWrite) {
		c.forbid()
		return
	}
	id, err := strconv.ParseInt(c.params["run"], 10, 64)
	if err != nil || id <= 0 {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	g.mu.Lock()
	c.repo.cancelled = append(c.repo.cancelled, id)
	g.mu.Unlock()
	c.json(http.StatusAccepted, map[string]any{})
}

// CancelledRuns lists the workflow runs of owner/repo that were cancelled
// through the API, in order.
func (g *GitHub) CancelledRuns(owner, repo string) []int64 {
	r := g.repo(owner, repo)
	if r == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]int64(nil), r.cancelled...)
}
