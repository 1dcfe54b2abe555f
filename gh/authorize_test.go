package gh

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// answers are MayAct's for an act: for someone else and for the run's
// starter.
type answers struct{ other, starter bool }

// mayActCase is MayAct's answers for one permission.
type mayActCase struct {
	perm string
	want map[Act]answers
}

// mayActTable is the rule, for every permission level GitHub gives (none,
// read, triage, write, maintain, admin) and what it does not.
func mayActTable() []mayActCase {
	return []mayActCase{
		{"none", map[Act]answers{ActStart: {false, false}, ActMessage: {false, true}, ActInterrupt: {false, true}, ActStop: {false, true}}},
		{"read", map[Act]answers{ActStart: {false, false}, ActMessage: {false, true}, ActInterrupt: {false, true}, ActStop: {false, true}}},
		{"triage", map[Act]answers{ActStart: {false, false}, ActMessage: {false, true}, ActInterrupt: {false, true}, ActStop: {false, true}}},
		{"write", map[Act]answers{ActStart: {true, true}, ActMessage: {false, true}, ActInterrupt: {false, true}, ActStop: {false, true}}},
		{"maintain", map[Act]answers{ActStart: {true, true}, ActMessage: {false, true}, ActInterrupt: {false, true}, ActStop: {false, true}}},
		{"admin", map[Act]answers{ActStart: {true, true}, ActMessage: {false, true}, ActInterrupt: {false, true}, ActStop: {true, true}}},
		// What GitHub does not say is no permission.
		{"", map[Act]answers{ActStart: {false, false}, ActMessage: {false, true}, ActInterrupt: {false, true}, ActStop: {false, true}}},
		{"ADMIN", map[Act]answers{ActStart: {false, false}, ActMessage: {false, true}, ActInterrupt: {false, true}, ActStop: {false, true}}},
		{"push", map[Act]answers{ActStart: {false, false}, ActMessage: {false, true}, ActInterrupt: {false, true}, ActStop: {false, true}}},
	}
}

func TestMayAct(t *testing.T) {
	t.Parallel()
	tests := mayActTable()
	for _, tt := range tests {
		for _, act := range []Act{ActStart, ActMessage, ActInterrupt, ActStop} {
			for _, starter := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/starter=%v", tt.perm, act, starter), func(t *testing.T) {
					t.Parallel()
					want := tt.want[act].other
					if starter {
						want = tt.want[act].starter
					}
					assert.Equal(t, want, MayAct(tt.perm, starter, act))
				})
			}
		}
	}
}

func TestMayActUnknownAct(t *testing.T) {
	t.Parallel()
	for _, act := range []Act{"", "Stop", "STOP", "fix", "approve"} {
		for _, starter := range []bool{false, true} {
			assert.False(t, MayAct("admin", starter, act), "%q starter=%v", act, starter)
		}
	}
}

func TestPermissionDecides(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		starter bool
		act     Act
		want    bool
	}{
		{"anyone's start", false, ActStart, true},
		{"a starter's start", true, ActStart, true},
		{"someone else's stop", false, ActStop, true},
		{"the starter's stop", true, ActStop, false},
		{"someone else's message", false, ActMessage, false},
		{"the starter's message", true, ActMessage, false},
		{"someone else's interrupt", false, ActInterrupt, false},
		{"the starter's interrupt", true, ActInterrupt, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, PermissionDecides(tt.starter, tt.act))
		})
	}
}

func TestSameLogin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"the same", "octocat", "octocat", true},
		{"letter case, as GitHub ignores it", "Octocat", "octocat", true},
		{"all capitals", "OCTOCAT", "octocat", true},
		{"another account", "octocat", "octodog", false},
		{"a prefix", "octo", "octocat", false},
		{"the App's bot account", "octocat[bot]", "octocat", false},
		{"trailing space", "octocat ", "octocat", false},
		{"a unicode look-alike (Kelvin sign)", "\u212a", "k", false},
		{"a unicode look-alike (long s)", "\u017fam", "sam", false},
		{"a look-alike inside a login", "octo\u212aat", "octokat", false},
		{"an unknown starter is no one", "", "", false},
		{"an unknown starter against someone", "octocat", "", false},
		{"no login against a starter", "", "octocat", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, SameLogin(tt.a, tt.b))
			assert.Equal(t, tt.want, SameLogin(tt.b, tt.a), "symmetric")
		})
	}
}

func TestSameAccount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b Account
		want bool
	}{
		{"one id, one login", Account{"octocat", 1}, Account{"octocat", 1}, true},
		{"a renamed account: its id stays", Account{"octocat", 1}, Account{"octo-renamed", 1}, true},
		{"a freed login taken by someone else", Account{"octocat", 1}, Account{"octocat", 2}, false},
		{"the same login in another case, another id", Account{"Octocat", 1}, Account{"octocat", 2}, false},
		{"no id on one side: the login decides", Account{"Octocat", 0}, Account{"octocat", 2}, true},
		{"no id on one side, another login", Account{"octocat", 0}, Account{"octodog", 2}, false},
		{"no ids: the login decides", Account{"octocat", 0}, Account{"OCTOCAT", 0}, true},
		{"no ids, no logins: no one", Account{"", 0}, Account{"", 0}, false},
		{"the App's bot account is not its owner", Account{"octocat[bot]", 0}, Account{"octocat", 0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, SameAccount(tt.a, tt.b))
			assert.Equal(t, tt.want, SameAccount(tt.b, tt.a), "symmetric")
		})
	}
}

// TestMayActByAccount is the rule as every entry point asks it (the bot,
// the Action and the console), with the starter known by account
// (SameAccount): for every permission level, the starter under any login,
// and another account that took over the starter's freed login, which is
// someone else.
func TestMayActByAccount(t *testing.T) {
	t.Parallel()
	starter := Account{Login: "alice", ID: 501}
	people := []struct {
		name      string
		who       Account
		isStarter bool
	}{
		{"the starter", Account{"alice", 501}, true},
		{"the starter in another letter case", Account{"ALICE", 501}, true},
		{"the starter under a new login", Account{"alice-renamed", 501}, true},
		{"another account that reuses the starter's login", Account{"alice", 777}, false},
		{"the starter's login, its id unknown", Account{"alice", 0}, true},
		{"another login, its id unknown", Account{"bob", 0}, false},
		{"someone else", Account{"bob", 502}, false},
	}
	levels := mayActTable()
	for _, lv := range levels {
		for _, p := range people {
			for _, act := range []Act{ActStart, ActMessage, ActInterrupt, ActStop} {
				t.Run(fmt.Sprintf("%s/%s/%s", lv.perm, p.name, act), func(t *testing.T) {
					t.Parallel()
					want := lv.want[act].other
					if p.isStarter {
						want = lv.want[act].starter
					}
					assert.Equal(t, p.isStarter, SameAccount(p.who, starter))
					assert.Equal(t, want, MayAct(lv.perm, SameAccount(p.who, starter), act))
				})
			}
		}
	}
}
