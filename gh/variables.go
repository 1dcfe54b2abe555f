package gh

import (
	"context"
	"fmt"
	"net/http"
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
