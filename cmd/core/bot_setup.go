package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/coreagent/core/bot"
)

func newBotSetupCmd(e *env) *cobra.Command {
	cfg := bot.RegisterConfig{}
	cmd := &cobra.Command{
		Use:   "setup --url https://BOT-HOST [--org ORG] [flags]",
		Short: "Register core's GitHub App through GitHub's manifest flow",
		Long: `setup registers the GitHub App the bot runs as, the way GitHub's App
manifest flow works: it serves a page on --listen that sends core's manifest
(the permissions and events of app.yml, webhooks to URL/api/github/hook) to
GitHub for your account or --org; you confirm on GitHub, which sends you back
here; setup exchanges the code for the App's id, private key, webhook secret
and OAuth client credentials and writes them to the data directory (each file
0600). Then install the App and start the bot on that directory:
CORE_BOT_DATA_DIR=DIR core bot needs no other setting.

An existing registration in the data directory is never replaced.`,
		Example: `  core bot setup --url https://core.example.com --data-dir /var/lib/core-bot
  core bot setup --url https://core.example.com --org my-org --data-dir ./bot-data`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.APIURL == "" {
				cfg.APIURL = apiURLFor(cfg.WebURL)
			}
			cfg.Out = e.stderr
			_, err := bot.RegisterApp(cmd.Context(), cfg)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cfg.URL, "url", "", "the bot's public base URL; GitHub sends webhooks to URL/api/github/hook (required)")
	fl.StringVar(&cfg.Org, "org", "", "register the App for this organisation (default: your account)")
	fl.StringVar(&cfg.Name, "name", "core", "the App's name (GitHub's page lets you change it)")
	fl.StringVar(&cfg.Listen, "listen", "127.0.0.1:3000", "where this machine serves the setup page; open it in a browser here")
	fl.StringVar(&cfg.DataDir, "data-dir", e.getenv("CORE_BOT_DATA_DIR"), "where the App's registration is written, CORE_BOT_DATA_DIR")
	fl.StringVar(&cfg.WebURL, "github-url", orDefault(e.getenv("GITHUB_SERVER_URL"), "https://github.com"), "GitHub's web address, GITHUB_SERVER_URL (GitHub Enterprise Server: https://HOST)")
	fl.StringVar(&cfg.APIURL, "api-url", e.getenv("CORE_BOT_API_URL"), "the GitHub API, CORE_BOT_API_URL (default: https://api.github.com for github.com, else GITHUB-URL/api/v3)")
	return cmd
}

// apiURLFor is the API of a GitHub web host: api.github.com for
// github.com, /api/v3 on an Enterprise Server.
func apiURLFor(web string) string {
	web = strings.TrimRight(web, "/")
	if web == "" || web == "https://github.com" {
		return "https://api.github.com"
	}
	return web + "/api/v3"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
