package gh

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/go-github/v62/github"
)

// Variable reads an Actions variable of a repository; ok is false when it
// is not set (GitHub answers the same 404 for a repository the token
// cannot see).
func (c *Client) Variable(ctx context.Context, owner, name, variable string) (value string, ok bool, err error) {
	v, _, err := c.gh.Actions.GetRepoVariable(ctx, owner, name, variable)
	if err != nil {
		if httpStatus(err) == http.StatusNotFound {
			return "", false, nil
		}
		return "", false, fmt.Errorf("read variable %s of %s/%s: %w", variable, owner, name, err)
	}
	return v.Value, true, nil
}

// SetVariable sets an Actions variable of a repository, creating it when
// it is missing.
func (c *Client) SetVariable(ctx context.Context, owner, name, variable, value string) error {
	v := &github.ActionsVariable{Name: variable, Value: value}
	_, err := c.gh.Actions.UpdateRepoVariable(ctx, owner, name, v)
	if httpStatus(err) == http.StatusNotFound {
		_, err = c.gh.Actions.CreateRepoVariable(ctx, owner, name, v)
	}
	if err != nil {
		return fmt.Errorf("set variable %s of %s/%s: %w", variable, owner, name, err)
	}
	return nil
}
