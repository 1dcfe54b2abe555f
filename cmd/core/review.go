package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/coreagent/core/gh"
	"github.com/coreagent/core/setup"
)

func newReviewCmd(e *env) *cobra.Command {
	var (
		f                   sessionFlags
		repo, base, request string
		pr                  int
	)
	cmd := &cobra.Command{
		Use:   "review (--repo OWNER/NAME --pr N | [--repo PATH] --base BRANCH) [flags]",
		Short: "Review a pull request, or the current branch against a base",
		Long: `review reads a change and says what it found; it never changes, commits or
pushes code. The model is offered only the read tools (read_file, list_dir,
search, git_diff, done): a call to a tool that writes (write_file, edit_file,
run_shell, file_issue) is answered "this is a review: it changes no code".
The harness runs the checks (--check, --checks-from-ci, the repository's
languages with --verify) on the base and on the head, in fresh boxes, and
their table goes into the review with the model's summary.

With --repo OWNER/NAME --pr N, the pull request's head is reviewed against
its base and the review is posted on the head commit as one pull request
review (event COMMENT); a second review of the same head edits that review
instead of posting another. A fork's head is fetched from refs/pull/N/head;
nothing is pushed anywhere. A closed or merged pull request is refused.

With a local repository (--repo PATH, default .), its HEAD (committed work
only) is reviewed against --base, and the review is printed on stdout.

The model's findings are its reading of the diff: core does not yet
reproduce them. Exit status as for core session start.`,
		Example: `  core review --base main
  core review --repo octo/app --pr 12 --check "go test ./..."`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkReviewFlags(repo, base, pr); err != nil {
				return err
			}
			o, err := e.newOptions(cmd, &f, repo)
			if err != nil {
				return err
			}
			if pr != 0 {
				owner, name, _ := gh.ParseRepo(repo)
				if err := setup.ReviewPull(cmd.Context(), o.Services.GitHub, owner, name, pr, request, &o); err != nil {
					return e.finish(nil, setup.Word(err, setup.FlagWording), f.json)
				}
			} else {
				setup.ReviewLocal(repo, base, request, &o)
			}
			return e.runNew(cmd, &f, o, repo)
		},
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&repo, "repo", ".", "the repository: owner/name on GitHub with --pr ($GITHUB_TOKEN or $GH_TOKEN, $GITHUB_API_URL), or a local path to a git repository")
	fl.IntVar(&pr, "pr", 0, "the pull request to review (GitHub repositories): the review is posted on its head")
	fl.StringVar(&base, "base", "", "the branch or commit a local repository's HEAD is reviewed against (required without --pr)")
	fl.StringVar(&request, "prompt", "", "what to look at in particular, in words (optional)")
	return cmd
}

// checkReviewFlags refuses flags that do not name one review.
func checkReviewFlags(repo, base string, pr int) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	fi, err := os.Stat(repo)
	local := err == nil && fi.IsDir()
	switch {
	case pr < 0:
		return fmt.Errorf("--pr must be a pull request's number, got %d", pr)
	case local && pr != 0:
		return fmt.Errorf("--pr %d needs --repo owner/name: %s is a local repository (review its branch with --base)", pr, repo)
	case !local && pr == 0:
		return fmt.Errorf("--repo %s is on GitHub: name the pull request to review with --pr N", repo)
	case local && base == "":
		return errors.New("--base is required for a local review: the branch or commit the current branch is reviewed against (--base main)")
	case !local && base != "":
		return errors.New("--base is for a local review: a pull request is reviewed against its own base")
	}
	return nil
}
