package ghfake

// Repo returns the repository owner/name, or nil when there is none.
func (g *GitHub) Repo(owner, name string) *Repo { return g.repo(owner, name) }
