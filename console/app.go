package console

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"

	"github.com/coreagent/core/gh"
)

// githubApp is the App as the bot holds it: a JWT for the App, and tokens
// of its installation on the console's organisation.
type githubApp struct {
	cc githubapp.ClientCreator

	mu      sync.Mutex
	slug    string
	install map[string]int64 // lower-cased account -> installation id
}

// NewApp makes the console's App from the bot's client creator.
func NewApp(cc githubapp.ClientCreator) App {
	return &githubApp{cc: cc, install: make(map[string]int64)}
}

func (a *githubApp) Slug(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.slug != "" {
		return a.slug, nil
	}
	c, err := a.cc.NewAppClient()
	if err != nil {
		return "", fmt.Errorf("the App's client: %w", err)
	}
	app, _, err := c.Apps.Get(ctx, "")
	if err != nil {
		return "", fmt.Errorf("GET /app: %w", err)
	}
	a.slug = app.GetSlug()
	return a.slug, nil
}

// client is an installation client for the account owning repo (or the
// account itself).
func (a *githubApp) client(ctx context.Context, account string) (*github.Client, error) {
	account, _, _ = strings.Cut(account, "/")
	key := strings.ToLower(account)
	a.mu.Lock()
	id, ok := a.install[key]
	a.mu.Unlock()
	if !ok {
		c, err := a.cc.NewAppClient()
		if err != nil {
			return nil, fmt.Errorf("the App's client: %w", err)
		}
		opt := &github.ListOptions{PerPage: 100}
		for id == 0 {
			list, resp, err := c.Apps.ListInstallations(ctx, opt)
			if err != nil {
				return nil, fmt.Errorf("list the App's installations: %w", err)
			}
			for _, in := range list {
				if strings.EqualFold(in.GetAccount().GetLogin(), account) {
					id = in.GetID()
				}
			}
			if resp.NextPage == 0 {
				break
			}
			opt.Page = resp.NextPage
		}
		if id == 0 {
			return nil, fmt.Errorf("the App is not installed on %s", account)
		}
		a.mu.Lock()
		a.install[key] = id
		a.mu.Unlock()
	}
	c, err := a.cc.NewInstallationClient(id)
	if err != nil {
		return nil, fmt.Errorf("the installation client of %s: %w", account, err)
	}
	return c, nil
}

func (a *githubApp) Repositories(ctx context.Context, org string) ([]string, error) {
	c, err := a.client(ctx, org)
	if err != nil {
		return nil, err
	}
	var out []string
	opt := &github.ListOptions{PerPage: 100}
	for {
		list, resp, err := c.Apps.ListRepos(ctx, opt)
		if err != nil {
			return nil, fmt.Errorf("list the installation's repositories: %w", err)
		}
		for _, r := range list.Repositories {
			out = append(out, r.GetFullName())
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

func (a *githubApp) Permission(ctx context.Context, repo, login string) (string, error) {
	c, err := a.client(ctx, repo)
	if err != nil {
		return "", err
	}
	owner, name, _ := strings.Cut(repo, "/")
	return gh.Wrap(c).Permission(ctx, owner, name, login)
}

func (a *githubApp) Variable(ctx context.Context, repo, variable string) (string, bool, error) {
	c, err := a.client(ctx, repo)
	if err != nil {
		return "", false, err
	}
	owner, name, _ := strings.Cut(repo, "/")
	return gh.Wrap(c).Variable(ctx, owner, name, variable)
}

func (a *githubApp) SetVariable(ctx context.Context, repo, variable, value string) error {
	c, err := a.client(ctx, repo)
	if err != nil {
		return err
	}
	owner, name, _ := strings.Cut(repo, "/")
	return gh.Wrap(c).SetVariable(ctx, owner, name, variable, value)
}
