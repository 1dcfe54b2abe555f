package main

import (
	"io/fs"
	"os"
	"strconv"

	"github.com/coreagent/core/internal/testkit/ghapps"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptAppID is the App the scripts sign in to.
const scriptAppID = 4242

// github-app: the testkit GitHub gains the core App (scriptAppID);
// GITHUB_SERVER_URL points at its web host and CLIENT_ID holds its OAuth
// client id.
func cmdGitHubApp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: github-app")
	}
	g, apps := githubOf(ts), appsOf(ts)
	pem, err := apps.AddApp(scriptAppID)
	ts.Check(err)
	consoleOf(ts).pem = pem
	id, _, err := apps.AppOAuth(scriptAppID)
	ts.Check(err)
	ts.Setenv("GITHUB_SERVER_URL", g.URL)
	ts.Setenv("CLIENT_ID", id)
}

// github-device LOGIN [expiring]: the device flow hands out an interval of
// zero seconds (scripts wait for nothing) and
// approves every code as LOGIN, as a user quick at the browser would;
// expiring makes its tokens expire, with a refresh token.
func cmdGitHubDevice(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || (len(args) == 2 && args[1] != "expiring") {
		ts.Fatalf("usage: github-device LOGIN [expiring]")
	}
	appsOf(ts).SetDeviceFlow(ghapps.DeviceFlow{AutoApprove: args[0], Expiring: len(args) == 2})
}

// perms-file FILE MODE: FILE has MODE (octal).
func cmdPermsFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: perms-file FILE MODE")
	}
	mode, err := strconv.ParseUint(args[1], 8, 32)
	ts.Check(err)
	fi, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	if fi.Mode().Perm() != fs.FileMode(mode) {
		ts.Fatalf("%s has mode %o, want %o", args[0], fi.Mode().Perm(), mode)
	}
}
