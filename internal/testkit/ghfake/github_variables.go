package ghfake

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Actions variables are named case-insensitively and stored upper-cased,
// as GitHub does.

type variableState struct {
	name, value      string
	created, updated time.Time
}

type wireVariable struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

func (v *variableState) wire() wireVariable {
	return wireVariable{Name: v.name, Value: v.value, CreatedAt: wireTime(v.created), UpdatedAt: wireTime(v.updated)}
}

// validVariableName reports whether GitHub accepts name: letters, digits
// and underscores, not starting with a digit or GITHUB_.
func validVariableName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' || strings.HasPrefix(strings.ToUpper(name), "GITHUB_") {
		return false
	}
	return strings.Trim(strings.ToUpper(name), "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
}

// SetVariable creates or updates the Actions variable name of owner/repo.
func (g *GitHub) SetVariable(owner, repo, name, value string) error {
	r := g.repo(owner, repo)
	if r == nil {
		return fmt.Errorf("set variable %s of %s/%s: no such repository", name, owner, repo)
	}
	if !validVariableName(name) {
		return fmt.Errorf("set variable of %s/%s: %q is not a valid variable name", owner, repo, name)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.setVariableLocked(r, name, value)
	return nil
}

// Variables returns the Actions variables of owner/repo, name -> value.
func (g *GitHub) Variables(owner, repo string) map[string]string {
	r := g.repo(owner, repo)
	if r == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]string)
	for _, v := range g.ext.variables[r] {
		out[v.name] = v.value
	}
	return out
}

// setVariableLocked creates or updates a variable. Callers hold g.mu.
func (g *GitHub) setVariableLocked(r *Repo, name, value string) {
	if g.ext.variables == nil {
		g.ext.variables = make(map[*Repo]map[string]*variableState)
	}
	vars := g.ext.variables[r]
	if vars == nil {
		vars = make(map[string]*variableState)
		g.ext.variables[r] = vars
	}
	name = strings.ToUpper(name)
	now := ghNow()
	v := vars[name]
	if v == nil {
		v = &variableState{name: name, created: now}
		vars[name] = v
	}
	v.value, v.updated = value, now
}

// GET /repos/{owner}/{repo}/actions/variables, by name, paginated.
func (g *GitHub) listVariables(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	vars := g.ext.variables[c.repo]
	out := struct {
		TotalCount int            `json:"total_count"`
		Variables  []wireVariable `json:"variables"`
	}{TotalCount: len(vars), Variables: []wireVariable{}}
	for _, name := range paginate(c, slices.Sorted(maps.Keys(vars))) {
		out.Variables = append(out.Variables, vars[name].wire())
	}
	c.json(http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/actions/variables/{name}
func (g *GitHub) getVariable(c *apiCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if v := g.ext.variables[c.repo][strings.ToUpper(c.params["name"])]; v != nil {
		c.json(http.StatusOK, v.wire())
		return
	}
	c.fail(http.StatusNotFound, "Not Found")
}

// variableInput reads a variable from the body: its name (else
// fallback, the name in the path) and its value, nil when not sent.
func (c *apiCall) variableInput(fallback string) (name string, value *string, ok bool) {
	var in struct {
		Name  *string `json:"name"`
		Value *string `json:"value"`
	}
	if !c.decode(&in) {
		return "", nil, false
	}
	name = fallback
	if in.Name != nil && *in.Name != "" {
		name = *in.Name
	}
	switch {
	case name == "":
		c.invalid(fieldError{Resource: "ActionsVariable", Field: "name", Code: "missing_field"})
		return "", nil, false
	case !validVariableName(name):
		c.invalid(fieldError{Resource: "ActionsVariable", Field: "name", Code: "invalid"})
		return "", nil, false
	}
	return name, in.Value, true
}

// POST /repos/{owner}/{repo}/actions/variables needs write permission;
// 409 when the name is taken.
func (g *GitHub) createVariable(c *apiCall) {
	name, value, ok := c.variableInput("")
	if !ok {
		return
	}
	if value == nil {
		c.invalid(fieldError{Resource: "ActionsVariable", Field: "value", Code: "missing_field"})
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.repo.rankLocked(c.login) < permWrite {
		c.forbid()
		return
	}
	if g.ext.variables[c.repo][strings.ToUpper(name)] != nil {
		c.fail(http.StatusConflict, "Already exists - Variable already exists")
		return
	}
	g.setVariableLocked(c.repo, name, *value)
	c.json(http.StatusCreated, struct{}{})
}

// PATCH /repos/{owner}/{repo}/actions/variables/{name} needs write
// permission; a name in the body renames the variable.
func (g *GitHub) updateVariable(c *apiCall) {
	old := strings.ToUpper(c.params["name"])
	name, value, ok := c.variableInput(old)
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.repo.rankLocked(c.login) < permWrite {
		c.forbid()
		return
	}
	vars := g.ext.variables[c.repo]
	v := vars[old]
	if v == nil {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	if name = strings.ToUpper(name); name != old {
		if vars[name] != nil {
			c.fail(http.StatusConflict, "Already exists - Variable already exists")
			return
		}
		delete(vars, old)
		v.name = name
		vars[name] = v
	}
	if value != nil {
		v.value = *value
	}
	v.updated = ghNow()
	c.w.WriteHeader(http.StatusNoContent)
}
