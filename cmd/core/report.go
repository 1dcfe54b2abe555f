package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/coreagent/core/auth"
	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/remote"
	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/live"
	"github.com/coreagent/core/setup"
)

// credential is the GitHub token a session on repo uses, which is also
// the bearer of its report: GITHUB_TOKEN (or GH_TOKEN) for a GitHub
// repository, the core auth login token for a local one. Empty when
// there is none.
func (e *env) credential(repo string) string {
	if fi, err := os.Stat(repo); err != nil || !fi.IsDir() {
		if creds, err := gh.CredentialsFromEnv(e.getenv); err == nil {
			return creds.Token
		}
		return ""
	}
	home, err := setup.Home(e.getenv, "")
	if err != nil {
		return ""
	}
	c, err := auth.Load(home)
	if err != nil {
		return ""
	}
	return c.Token
}

// delivery is where reports go: the console of --console-url or
// CORE_CONSOLE_URL, if any.
func (e *env) delivery(consoleURL string) (*remote.Delivery, error) {
	home, err := setup.Home(e.getenv, "")
	if err != nil {
		return nil, err
	}
	store, err := session.OpenStore(home)
	if err != nil {
		return nil, err
	}
	d := &remote.Delivery{Store: store, Out: e.stderr, RepoName: e.originRepo}
	u, err := e.consoleURL(consoleURL)
	if err != nil {
		return nil, err
	}
	if u != "" {
		d.Console = &remote.Client{URL: u}
	}
	return d, nil
}

// report delivers a finished session's report to the console, whatever
// its ending; a failure leaves it pending and is said, never fatal.
func (e *env) report(ctx context.Context, consoleURL string, rep *session.Report, repo string) {
	if rep == nil || rep.ID == "" {
		return
	}
	d, err := e.delivery(consoleURL)
	if err != nil {
		fmt.Fprintf(e.stderr, "report: %v\n", err)
		return
	}
	if d.Console != nil {
		d.Console.Token = e.credential(repo)
	}
	// A cancelled session still reports: the ctx that cancelled it is done.
	if err := d.Deliver(context.WithoutCancel(ctx), rep.ID); err != nil {
		fmt.Fprintf(e.stderr, "report: %v\n", err)
	}
}

// live streams a run's events to the console its report goes to, as
// serve's runs do: its page there follows it as it works. The returned
// finish, called once the run ended, waits for the last events: a few
// seconds at most when the console does not answer, and that is said. No
// console, or a local repository with no GitHub origin: nothing to do.
func (e *env) live(ctx context.Context, consoleURL string, o *session.Options, repo string) (finish func()) {
	u, err := e.consoleURL(consoleURL)
	if err != nil || u == "" {
		return func() {}
	}
	name := repo
	if !gh.IsRepoName(repo) {
		var ok bool
		if name, ok = e.originRepo(repo); !ok {
			return func() {}
		}
	}
	if o.Goal.ID == "" {
		o.Goal.ID = session.NewID(time.Now())
	}
	if o.Live.Control == nil {
		o.Live.Control = live.NewControl()
	}
	o.Landing.RunURL = consoleRunURL(u, o.Goal.ID)
	l := &remote.Live{Console: &remote.Client{URL: u, Token: e.credential(repo)}, Store: o.Services.Store, ID: o.Goal.ID, Repo: name, Control: o.Live.Control, Out: e.stderr}
	return l.Start(ctx)
}

func newSessionSyncCmd(e *env) *cobra.Command {
	var consoleURL string
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Send the console every report still pending",
		Long: `sync sends every session report that could not be delivered when its session
ended (the console was down, say) to the console (--console-url or
CORE_CONSOLE_URL), each with its session's GitHub credential, and says what it
sent and what is still pending. Running it twice is safe: the console stores
reports by session id.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := e.delivery(consoleURL)
			if err != nil {
				return err
			}
			if d.Console == nil {
				return errors.New("no console to send reports to: pass --console-url or set CORE_CONSOLE_URL")
			}
			d.Out = e.stdout
			res, err := d.Sync(cmd.Context(), func(rec *session.Record) string { return e.credential(rec.Repo) })
			if err != nil {
				return err
			}
			if len(res.Pending) > 0 {
				return exitCode(1)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&consoleURL, "console-url", "", "the console (default $CORE_CONSOLE_URL)")
	return cmd
}

// originRepo names the GitHub repository a local repository's origin
// remote points at (https://HOST/owner/name(.git), git@HOST:owner/name.git,
// ssh://git@HOST/owner/name), on github.com or GITHUB_SERVER_URL's host.
func (e *env) originRepo(path string) (string, bool) {
	out, err := exec.Command("git", "-C", path, "-c", "core.fsmonitor=false", "remote", "get-url", "origin").Output()
	if err != nil {
		return "", false
	}
	host := "github.com"
	if u, err := url.Parse(e.getenv("GITHUB_SERVER_URL")); err == nil && u.Host != "" {
		host = u.Host
	}
	return repoFromRemote(strings.TrimSpace(string(out)), host)
}

// repoFromRemote reads owner/name from a git remote URL on host.
func repoFromRemote(remote, host string) (string, bool) {
	var p string
	if rest, ok := strings.CutPrefix(remote, "git@"+host+":"); ok {
		p = rest
	} else if u, err := url.Parse(remote); err == nil && u.Hostname() == strings.Split(host, ":")[0] && (u.Scheme == "https" || u.Scheme == "http" || u.Scheme == "ssh") {
		p = strings.TrimPrefix(u.Path, "/")
	} else {
		return "", false
	}
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/"), ".git")
	if !gh.IsRepoName(p) {
		return "", false
	}
	return p, true
}

// consoleRunURL is the page of session id on the console at base, where
// the core/contract check run links.
func consoleRunURL(base, id string) string {
	return strings.TrimRight(base, "/") + "/runs/" + url.PathEscape(id)
}
