package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/setup"
)

// lookStore opens the session store without creating it; ok is false when
// there is none yet (and so no session).
func (e *env) lookStore() (store *session.Store, home string, ok bool, err error) {
	home, err = setup.Home(e.getenv, "")
	if err != nil {
		return nil, "", false, err
	}
	store, err = session.LookStore(home)
	if errors.Is(err, session.ErrNoStore) {
		return nil, home, false, nil
	}
	return store, home, err == nil, err
}

func newSessionRmCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "rm ID...",
		Short: "Remove sessions: their record, transcript, report and workspace",
		Long: `rm deletes each session named: its directory under $CORE_HOME/sessions and its
workspace under $CORE_HOME/workspaces. A branch or pull request it landed
stays where it is. A session that a live process is running is refused.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, ids []string) error {
			store, home, ok, err := e.lookStore()
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("no session %s: there are no sessions in %s", ids[0], home)
			}
			var failed error
			for _, id := range ids {
				r, err := store.Remove(cmd.Context(), id)
				if err != nil {
					fmt.Fprintf(e.stderr, "core: %v\n", err)
					failed = exitCode(1)
					continue
				}
				fmt.Fprintf(e.stdout, "removed %s (%s)\n", r.ID, bytesText(r.Bytes))
			}
			return failed
		},
	}
}

func newSessionPruneCmd(e *env) *cobra.Command {
	var olderThan string
	cmd := &cobra.Command{
		Use:   "prune --older-than AGE",
		Short: "Remove the sessions that ended more than AGE ago",
		Long: `prune removes every session that ended more than AGE ago (record, transcript,
report and workspace; workspaces of big repositories add up). Sessions that
are running, or ended more recently, stay. AGE is a number with a unit:
30m, 12h, 7d, 2w.`,
		Example: `  core session prune --older-than 7d`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if olderThan == "" {
				return errors.New("--older-than is required, e.g. --older-than 7d")
			}
			age, err := parseAge(olderThan)
			if err != nil {
				return fmt.Errorf("--older-than: %w", err)
			}
			store, home, ok, err := e.lookStore()
			if err != nil {
				return err
			}
			if !ok {
				fmt.Fprintf(e.stderr, "no sessions in %s\n", home)
				return nil
			}
			removed, err := store.Prune(cmd.Context(), time.Now().Add(-age))
			var total int64
			for _, r := range removed {
				total += r.Bytes
				fmt.Fprintf(e.stdout, "removed %s (%s)\n", r.ID, bytesText(r.Bytes))
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "pruned %d sessions that ended more than %s ago, %s freed\n", len(removed), olderThan, bytesText(total))
			return nil
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "remove the sessions that ended more than this long ago: 30m, 12h, 7d, 2w (required)")
	return cmd
}

// parseAge reads a duration the way people write an age: Go's durations
// (90m, 12h) plus days (7d) and weeks (2w).
func parseAge(s string) (time.Duration, error) {
	for unit, d := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, unit); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || v <= 0 {
				return 0, fmt.Errorf("%q is not an age: write a positive number with a unit, e.g. 7d, 12h, 30m", s)
			}
			return time.Duration(v * float64(d)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not an age: write a positive number with a unit, e.g. 7d, 12h, 30m", s)
	}
	return d, nil
}

// bytesText prints a size the way people read it.
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
