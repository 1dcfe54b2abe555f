package main

import (
	"context"
	"fmt"

	"github.com/coreagent/core/remote"
)

// verifyAudit checks serve's audit trail at path: its chain, then the
// anchors the console keeps of it. Without a console to ask it says that
// the check was local only, and what that cannot catch.
func (e *env) verifyAudit(ctx context.Context, path, consoleFlag string) error {
	trail, err := remote.ReadTrail(path)
	if err != nil {
		return err
	}
	localOnly := func(why string) error {
		fmt.Fprintf(e.stdout, "%s: the chain holds (%d lines), checked locally only: %s\n", path, trail.Lines(), why)
		fmt.Fprintln(e.stdout, "A trail edited with every later hash recomputed also passes a local check; the console's anchors catch that: sign in with core auth login and reach the console (--console-url or CORE_CONSOLE_URL).")
		return nil
	}
	u, err := e.consoleURL(consoleFlag)
	switch {
	case err != nil:
		return localOnly(err.Error())
	case u == "":
		return localOnly("no console is configured")
	}
	creds, _, err := e.signedIn()
	if err != nil {
		return localOnly("not signed in to the console: " + err.Error())
	}
	anchors, err := (&remote.Client{URL: u, Token: creds.Token}).Anchors(ctx, trail.Chain())
	if err != nil {
		return localOnly(err.Error())
	}
	msg, err := trail.Check(anchors)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", path, msg)
	return nil
}
