package action

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/coreagent/core/session/model"
)

// unreachable says why a runner GitHub hosts could not reach the model
// endpoint the Action was given (inference_url), when err is that
// failure: a loopback, private or link-local address, or a name only a
// local network resolves, is never reachable from there, which is the
// workflow's to change (configuration); a public one that did not answer
// may be behind a firewall. "" when err is not that failure or the runner
// is not GitHub's (a self-hosted runner reaches what its network does).
func unreachable(getenv func(string) string, err error) (hint string, config bool) {
	var de *model.DiscoveryError
	if getenv("RUNNER_ENVIRONMENT") != "github-hosted" || !errors.As(err, &de) || !de.Given || len(de.Tried) != 1 {
		return "", false
	}
	u, perr := url.Parse(de.Tried[0].URL)
	if perr != nil || u.Hostname() == "" {
		return "", false
	}
	host := u.Hostname()
	if what := localKind(host); what != "" {
		return fmt.Sprintf("inference_url's host %s is %s, which a runner GitHub hosts cannot reach: it reaches only the internet. "+
			"Give inference_url an endpoint on the internet, or run the job on a self-hosted runner that reaches %s (runs-on: self-hosted)", host, what, host), true
	}
	return fmt.Sprintf("a runner GitHub hosts could not reach %s: check that GET %s/v1/models answers from outside your network "+
		"(a firewall or an allow-list must admit GitHub's runners, whose addresses https://api.github.com/meta lists under \"actions\")",
		host, strings.TrimSuffix(de.Tried[0].URL, "/")), false
}

// localKind names what kind of address host is when no machine of the
// internet can reach it; "" for any other host.
func localKind(host string) string {
	if ip := net.ParseIP(host); ip != nil {
		switch {
		case ip.IsLoopback():
			return "a loopback address"
		case ip.IsPrivate():
			return "a private address"
		case ip.IsLinkLocalUnicast():
			return "a link-local address"
		case ip.IsUnspecified():
			return "the unspecified address"
		}
		return ""
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	switch {
	case h == "localhost" || strings.HasSuffix(h, ".localhost"):
		return "a loopback name"
	case !strings.Contains(h, "."):
		return "a name without a domain, which only a local network resolves"
	case strings.HasSuffix(h, ".local"), strings.HasSuffix(h, ".internal"), strings.HasSuffix(h, ".lan"), strings.HasSuffix(h, ".home.arpa"):
		return "a name only a local network resolves"
	}
	return ""
}

// warnMissingLabel warns when the label that starts a run (the label
// input) does not exist in the repository: labelling an issue cannot
// start core until it does. Reading it is best effort: a failure is said
// and changes nothing.
func (r *runner) warnMissingLabel(ctx context.Context) {
	label := r.in.Label
	ok, err := r.client.LabelExists(ctx, r.owner, r.repo, label)
	switch {
	case err != nil:
		r.a.Warningf("core: could not check that the label %s exists: %v", label, err)
	case !ok:
		r.a.Warningf("core: the label %s does not exist in %s/%s: labelling an issue cannot start core until it does "+
			"(gh label create %s --description \"core fixes this\" --color 5319e7)", label, r.owner, r.repo, label)
	}
}
