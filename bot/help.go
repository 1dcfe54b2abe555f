package bot

import "context"

// helpCommand is /core help: a reply that lists the commands.
type helpCommand struct{}

func (helpCommand) name() string { return "help" }

func (helpCommand) run(ctx context.Context, _ *Base, req *request) error {
	_, _, err := req.client.CreateComment(ctx, req.owner, req.repo, req.number, helpText())
	return err
}

func helpText() string {
	return "core commands (at the start of a line; people with write permission):\n\n" +
		"- `/core fix [instruction]`: on an issue, open a draft pull request that fixes it; on a pull request, push fixes onto it.\n" +
		"- `/core review [instruction]`: on a pull request, review its head: the checks on the base and the head, and the model's reading of the diff, as one review; it changes no code.\n" +
		"- `/core stop`: stop the run on this issue or pull request (its starter or a repository admin).\n" +
		"- `/core interrupt`: stop the run's current turn; it keeps its work and waits for a message (its starter only).\n" +
		"- `/core <message>`, while a run is active or idle: a message it reads before its next turn, or that wakes it (its starter only).\n" +
		"- `/core help`: this list.\n\n" +
		"The `core:fix` label works like `/core fix`, the `core:review` label like `/core review`."
}
