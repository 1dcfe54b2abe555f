package main

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/coreagent/core/auth"
	"github.com/coreagent/core/setup"
)

func newAuthCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Sign the command line in to GitHub, for the console and session serve",
	}
	cmd.AddCommand(newAuthLoginCmd(e), newAuthStatusCmd(e), newAuthLogoutCmd(e))
	return cmd
}

// webURL is the GitHub web host: GITHUB_SERVER_URL, else github.com.
func (e *env) webURL() string {
	if u := e.getenv("GITHUB_SERVER_URL"); u != "" {
		return u
	}
	return auth.PublicWeb
}

// apiURL is GITHUB_API_URL, else the web host's API.
func (e *env) apiURL() string {
	if u := e.getenv("GITHUB_API_URL"); u != "" {
		return u
	}
	return auth.APIURL(e.webURL())
}

func newAuthLoginCmd(e *env) *cobra.Command {
	var clientID, consoleURL string
	var noBrowser bool
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Sign in with GitHub's device flow and keep the token in $CORE_HOME/auth.json",
		Long: `login signs you in as yourself through the core App's OAuth device flow: it
prints a one-time code, opens the verification page in your browser (unless
--no-browser), and waits until you authorise the app. The token is kept in
$CORE_HOME/auth.json (mode 0600) and never printed. The web host is
GITHUB_SERVER_URL (default https://github.com); the App's client id is
--client-id, else the console's (--console-url or CORE_CONSOLE_URL).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := setup.Home(e.getenv, "")
			if err != nil {
				return err
			}
			if clientID == "" {
				u, err := e.consoleURL(consoleURL)
				if err != nil {
					return err
				}
				if u == "" {
					return errors.New("no OAuth client id: pass --client-id, or --console-url (or CORE_CONSOLE_URL, or console_url in $CORE_HOME/config.toml) to ask the console for it")
				}
				if clientID, err = auth.ConsoleClientID(cmd.Context(), nil, u); err != nil {
					return err
				}
			}
			f := &auth.Flow{WebURL: e.webURL(), ClientID: clientID}
			if !noBrowser {
				f.Open = auth.Browser(runtime.GOOS)
			}
			c, err := auth.SignIn(cmd.Context(), home, f, e.apiURL(), e.stderr)
			if err != nil {
				return fmt.Errorf("sign in: %w", err)
			}
			fmt.Fprintf(e.stdout, "Signed in to %s as %s%s.\n", c.WebURL, c.Login, expiry(c))
			return nil
		},
	}
	cmd.Flags().StringVar(&clientID, "client-id", "", "the core App's OAuth client id (default: the console's)")
	cmd.Flags().StringVar(&consoleURL, "console-url", "", "the console to ask for the client id (default $CORE_CONSOLE_URL)")
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "print the code and the page, and open nothing")
	return cmd
}

func expiry(c *auth.Credentials) string {
	if c.ExpiresAt == nil {
		return "; the token does not expire"
	}
	return "; the token expires " + c.ExpiresAt.UTC().Format(time.RFC3339)
}

func newAuthStatusCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Say who the command line is signed in as, and until when",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			home, err := setup.Home(e.getenv, "")
			if err != nil {
				return err
			}
			c, err := auth.Load(home)
			if err != nil {
				return err
			}
			state := expiry(c)
			if c.Expired(time.Now()) {
				state = "; the token EXPIRED " + c.ExpiresAt.UTC().Format(time.RFC3339) + ": run core auth login again"
			}
			fmt.Fprintf(e.stdout, "Signed in to %s as %s%s.\n", c.WebURL, c.Login, state)
			return nil
		},
	}
}

func newAuthLogoutCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "logout",
		Short: "Forget the token in $CORE_HOME/auth.json",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			home, err := setup.Home(e.getenv, "")
			if err != nil {
				return err
			}
			c, err := auth.Load(home)
			if errors.Is(err, auth.ErrSignedOut) {
				fmt.Fprintln(e.stdout, "Not signed in: nothing to forget.")
				return nil
			}
			if _, err := auth.Remove(home); err != nil {
				return err
			}
			web := auth.PublicWeb
			if c != nil && c.WebURL != "" {
				web = c.WebURL
			}
			fmt.Fprintf(e.stdout, "Forgot the token in %s/%s.\n", home, auth.FileName)
			fmt.Fprintf(e.stdout, "It is not revoked: revoking a GitHub App's token takes its client secret, which the command line does not hold.\nTo revoke it, open %s/settings/apps/authorizations and revoke the app there.\n", web)
			return nil
		},
	}
}
