package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/coreagent/core/session"
	"github.com/coreagent/core/session/live"
)

// controlWait bounds how long send, interrupt and stop wait for the run to
// answer.
const controlWait = 30 * time.Second

// sessionStore opens the store for a command about session id, saying so
// when there is none.
func (e *env) sessionStore(id string) (*session.Store, error) {
	store, home, ok, err := e.lookStore()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no session %s: there are no sessions in %s", id, home)
	}
	return store, nil
}

func newSessionWatchCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "watch ID",
		Short: "Follow a session's events as it works (or replay an ended one's)",
		Long: `watch prints the session's event log ($CORE_HOME/sessions/<id>/events.jsonl):
each change of state (starting, active, idle, completed, ...), each turn's
tool and target, each command's output as it arrives, each check's verdict,
every message and interrupt. While the run lives it follows the log like
tail -f and ends when the run ends; for an ended run it replays the log.
--json prints one event a line, as the log holds it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := e.sessionStore(args[0])
			if err != nil {
				return err
			}
			enc := json.NewEncoder(e.rawStdout)
			enc.SetEscapeHTML(false)
			return store.Watch(cmd.Context(), args[0], func(ev live.Event) error {
				if asJSON {
					return enc.Encode(ev)
				}
				_, err := fmt.Fprintln(e.stdout, ev)
				return err
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each event as one JSON object a line")
	return cmd
}

// newSessionControlCmd makes send, interrupt and stop: each reaches the
// live run through the socket in its session directory, as the user who
// started it, and prints the run's acknowledgement.
func newSessionControlCmd(e *env, op string) *cobra.Command {
	cmd := &cobra.Command{Args: cobra.ExactArgs(1)}
	switch op {
	case live.OpSend:
		cmd.Use = "send ID TEXT"
		cmd.Short = "Send a live session a message: read before its next turn, or it wakes an idle one"
		cmd.Long = `send hands the live session a message. An active run reads it before its next
turn; an idle run (it landed and waits) takes it at once, continues in the
same workspace and transcript, and lands the new work as new commits on the
same branch and pull request. The message enters the transcript with who
sent it. Only the user who started the run can reach it: the socket lives
in the session's private directory and the run checks the caller's uid.`
		cmd.Args = cobra.ExactArgs(2)
	case live.OpInterrupt:
		cmd.Use = "interrupt ID"
		cmd.Short = "Interrupt a live session's current turn; it keeps its work and goes idle"
		cmd.Long = `interrupt stops the turn the session is on (the model's request, or the command
that runs, killed), keeps the work in the workspace, and moves the run to
idle, where it waits for a message (core session send). If no message
comes before its idle timeout, the run ends partial with the work unlanded:
core session resume continues it.`
	case live.OpStop:
		cmd.Use = "stop ID"
		cmd.Short = "End a live session now; its work stays in the workspace"
		cmd.Long = `stop ends the session at once: the current turn is cancelled, nothing more
lands, the work stays in the workspace, and the run ends cancelled (exit
status 130 where it was started). core session resume continues it.`
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		store, err := e.sessionStore(args[0])
		if err != nil {
			return err
		}
		text := ""
		if op == live.OpSend {
			text = args[1]
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), controlWait)
		defer cancel()
		reply, err := store.Control(ctx, args[0], op, text)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, reply)
		return nil
	}
	return cmd
}
