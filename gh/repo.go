package gh

import (
	"context"
	"fmt"
	"net/http"
)

// Repo is what core needs of a repository.
type Repo struct {
	Owner         string
	Name          string
	FullName      string
	CloneURL      string
	DefaultBranch string
	Private       bool
	HTMLURL       string
}

// Repo fetches owner/name. Not found and not reachable with this token are
// one answer on GitHub, and the error says so.
func (c *Client) Repo(ctx context.Context, owner, name string) (*Repo, error) {
	r, _, err := c.gh.Repositories.Get(ctx, owner, name)
	if err != nil {
		switch httpStatus(err) {
		case http.StatusNotFound:
			return nil, fmt.Errorf("repository %s/%s not found, or not reachable with this token", owner, name)
		case http.StatusUnauthorized:
			return nil, fmt.Errorf("repository %s/%s: the token was refused (401 Bad credentials)", owner, name)
		}
		return nil, fmt.Errorf("get repository %s/%s: %w", owner, name, err)
	}
	return &Repo{
		Owner:         r.GetOwner().GetLogin(),
		Name:          r.GetName(),
		FullName:      r.GetFullName(),
		CloneURL:      r.GetCloneURL(),
		DefaultBranch: r.GetDefaultBranch(),
		Private:       r.GetPrivate(),
		HTMLURL:       r.GetHTMLURL(),
	}, nil
}

// BranchSHA returns the commit a branch points at.
func (c *Client) BranchSHA(ctx context.Context, owner, name, branch string) (string, error) {
	b, resp, err := c.gh.Repositories.GetBranch(ctx, owner, name, branch, 0)
	if err != nil {
		// GetBranch does not decode error bodies: read the status itself.
		if httpStatus(err) == http.StatusNotFound || resp != nil && resp.StatusCode == http.StatusNotFound {
			return "", fmt.Errorf("branch %q not found in %s/%s", branch, owner, name)
		}
		return "", fmt.Errorf("get branch %s of %s/%s: %w", branch, owner, name, err)
	}
	return b.GetCommit().GetSHA(), nil
}

// Permission returns a user's permission on a repository: admin, maintain,
// write, triage, read or none.
func (c *Client) Permission(ctx context.Context, owner, name, login string) (string, error) {
	p, _, err := c.gh.Repositories.GetPermissionLevel(ctx, owner, name, login)
	if err != nil {
		if httpStatus(err) == http.StatusNotFound {
			return "none", nil
		}
		return "", fmt.Errorf("permission of %s on %s/%s: %w", login, owner, name, err)
	}
	// The permission field folds maintain into write and triage into read;
	// the user's role_name keeps them apart where the server sends it.
	if role := p.GetUser().GetRoleName(); role != "" {
		return role, nil
	}
	return p.GetPermission(), nil
}

// CanWrite reports whether a permission allows pushing: write, maintain or
// admin.
func CanWrite(permission string) bool {
	switch permission {
	case "write", "maintain", "admin":
		return true
	}
	return false
}
