package gh

import (
	"context"
	"fmt"
)

// Act is what a person asks of core on a repository: to start a run, or
// to message, interrupt or stop one that runs.
type Act string

// The acts MayAct decides.
const (
	ActStart     Act = "start"
	ActMessage   Act = "message"
	ActInterrupt Act = "interrupt"
	ActStop      Act = "stop"
)

// MayAct is the one rule of who may act on a run, for the Action, the bot
// and the console alike. Starting a run takes write, maintain or admin
// permission on the repository (CanWrite). Messaging or interrupting a run
// is its starter's alone, whatever anyone else's permission. Stopping it
// is its starter's, or a repository admin's. perm is the person's
// permission as Client.Permission gives it (none, read, triage, write,
// maintain, admin); isStarter says they started the run (SameAccount), and
// does not count for ActStart. An act it does not know is refused.
func MayAct(perm string, isStarter bool, act Act) bool {
	switch act {
	case ActStart:
		return CanWrite(perm)
	case ActMessage, ActInterrupt:
		return isStarter
	case ActStop:
		return isStarter || perm == "admin"
	}
	return false
}

// PermissionDecides reports whether MayAct's answer for act depends on the
// person's permission, so that a caller asks GitHub for it only then (a
// starter's stop needs no lookup, nor does anyone's message).
func PermissionDecides(isStarter bool, act Act) bool {
	return MayAct("admin", isStarter, act) != MayAct("none", isStarter, act)
}

// Account is a GitHub account as an event names it: its login, and its
// id (0 when unknown), which stays when the login is renamed and is never
// another account's.
type Account struct {
	Login string
	ID    int64
}

// AccountOf looks up the account that holds login now, with its id, for
// a caller that was given a login alone: from then on the account decides
// (SameAccount), whatever becomes of the login.
func (c *Client) AccountOf(ctx context.Context, login string) (Account, error) {
	u, _, err := c.gh.Users.Get(ctx, login)
	if err != nil {
		return Account{}, fmt.Errorf("look up the account of @%s: %w", login, err)
	}
	return Account{Login: u.GetLogin(), ID: u.GetID()}, nil
}

// SameAccount reports whether a and b are one account: by id when both
// are known (a login can be renamed, and the freed login taken by someone
// else), else by login (SameLogin).
func SameAccount(a, b Account) bool {
	if a.ID != 0 && b.ID != 0 {
		return a.ID == b.ID
	}
	return SameLogin(a.Login, b.Login)
}

// SameLogin reports whether two logins name the same GitHub account as
// GitHub compares them: logins are ASCII and case-insensitive (Octocat is
// octocat), and only ASCII letters fold, so a Unicode look-alike that
// strings.EqualFold folds (the Kelvin sign and k, the long s and s) is
// another login. An empty login is no one's, not even another empty
// one's: a run whose starter is unknown has no starter.
func SameLogin(a, b string) bool {
	if a == "" || len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
