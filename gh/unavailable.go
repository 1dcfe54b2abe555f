package gh

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/google/go-github/v62/github"
)

// Unavailable reports whether err says GitHub is down, failing or
// refusing for now, rather than that the request was wrong: no connection,
// no answer in time, a connection cut short, a 5xx answer, or a rate
// limit. A 4xx (a repository or pull request that does not exist, a token
// without access) is not: that is for whoever set the request up.
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var rate *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &rate) || errors.As(err, &abuse) {
		return true
	}
	if status := httpStatus(err); status != 0 {
		return status >= 500
	}
	var netErr net.Error
	return errors.As(err, &netErr) ||
		errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
