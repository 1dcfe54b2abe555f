package sandbox

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// The checks a repository's own CI runs: the run: steps of its GitHub
// Actions workflows whose commands the tier can run confined. The
// workflows are the workspace's, so hostile: read without following a
// link, each capped in size, parsed as data (nothing in them is run but
// the commands the policy allows, as argv lists, confined).

const (
	// workflowsDir is where GitHub Actions reads workflows.
	workflowsDir = ".github/workflows"
	// maxWorkflows caps how many workflow files core reads.
	maxWorkflows = 32
	// maxWorkflowSize caps what core reads of one workflow file.
	maxWorkflowSize = 256 << 10
	// maxCIChecks caps how many checks the workflows give.
	maxCIChecks = 10
)

// A CIStep is one command of a run: step in the repository's workflows.
type CIStep struct {
	// File is the workflow's path in the repository.
	File string `json:"file"`
	// Job and Step name where the command is (a step without a name is
	// named by its command).
	Job  string `json:"job"`
	Step string `json:"step"`
	// Command is the line as the workflow writes it.
	Command string `json:"command"`
	// Reason says why the command was not taken as a check.
	Reason string `json:"reason,omitempty"`
	// Argv is the command as a check runs it (taken steps only).
	Argv []string `json:"-"`
	// As says how a taken command runs when not as written: with the
	// program the toolchain has in place of one it lacks (python3 for
	// python, Locate).
	As string `json:"as,omitempty"`
}

// String says where the command is: ci.yml, job test, step "Run tests".
func (c CIStep) String() string {
	return fmt.Sprintf("%s, job %s, step %q", path.Base(c.File), c.Job, c.Step)
}

// CIChecks are the commands of the repository's workflows: those taken as
// checks, and those not, each with why.
type CIChecks struct {
	Taken   []CIStep `json:"taken,omitempty"`
	Skipped []CIStep `json:"skipped,omitempty"`
	// Files are the workflow files read.
	Files []string `json:"files,omitempty"`
}

// workflow is what core reads of a workflow file; its jobs stay a node, so
// that they are taken in the order the file writes them.
type workflow struct {
	Defaults runDefaults `yaml:"defaults"`
	Jobs     yaml.Node   `yaml:"jobs"`
}

type runDefaults struct {
	Run struct {
		WorkingDirectory string `yaml:"working-directory"`
	} `yaml:"run"`
}

// workflowJob is what core reads of one job.
type workflowJob struct {
	Defaults runDefaults `yaml:"defaults"`
	Steps    []struct {
		Name             string `yaml:"name"`
		Run              string `yaml:"run"`
		WorkingDirectory string `yaml:"working-directory"`
		ContinueOnError  any    `yaml:"continue-on-error"`
	} `yaml:"steps"`
}

// ChecksFromCI reads the workspace's workflows and sorts the commands of
// their run: steps into the checks the tier can hold a result to in the
// project p, and the rest, each with why not. A workspace without
// workflows has none; a workflow core cannot read or parse is skipped,
// said as a step of its own.
func ChecksFromCI(ws string, tier Tier, p *Project) (CIChecks, error) {
	var out CIChecks
	names, err := workflowFiles(ws)
	if err != nil || len(names) == 0 {
		return out, err
	}
	seen := map[string]bool{}
	for _, name := range names {
		file := workflowsDir + "/" + name
		b, err := ReadWorkspaceFile(ws, file, maxWorkflowSize)
		if err != nil {
			out.Skipped = append(out.Skipped, CIStep{File: file, Reason: "not read: " + err.Error()})
			continue
		}
		var wf workflow
		if err := yaml.Unmarshal(b, &wf); err != nil {
			out.Skipped = append(out.Skipped, CIStep{File: file, Reason: "not parsed: " + err.Error()})
			continue
		}
		out.Files = append(out.Files, file)
		if wf.Jobs.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(wf.Jobs.Content); i += 2 {
			id := wf.Jobs.Content[i].Value
			var job workflowJob
			if err := wf.Jobs.Content[i+1].Decode(&job); err != nil {
				out.Skipped = append(out.Skipped, CIStep{File: file, Job: id, Reason: "not parsed: " + err.Error()})
				continue
			}
			for _, st := range job.Steps {
				if strings.TrimSpace(st.Run) == "" {
					continue // a uses: step runs an action, not a command
				}
				dir := cmp.Or(strings.TrimSpace(st.WorkingDirectory), strings.TrimSpace(job.Defaults.Run.WorkingDirectory), strings.TrimSpace(wf.Defaults.Run.WorkingDirectory))
				for line := range strings.Lines(st.Run) {
					line = strings.TrimSpace(line)
					if line == "" || strings.HasPrefix(line, "#") {
						continue
					}
					step := CIStep{File: file, Job: id, Step: cmp.Or(strings.TrimSpace(st.Name), line), Command: line}
					if seen[line] {
						continue // the same command in another job (a matrix) is one check
					}
					seen[line] = true
					step.Argv, step.Reason = ciCheck(tier, p, line, dir, st.ContinueOnError)
					if step.Reason == "" && len(out.Taken) >= maxCIChecks {
						step.Argv, step.Reason = nil, fmt.Sprintf("core takes at most %d checks from the workflows", maxCIChecks)
					}
					if step.Reason != "" {
						out.Skipped = append(out.Skipped, step)
						continue
					}
					if instead := insteadOf(step.Argv[0], p); instead != "" {
						step.Argv = append([]string{instead}, step.Argv[1:]...)
						step.As = strings.Join(step.Argv, " ")
					}
					out.Taken = append(out.Taken, step)
				}
			}
		}
	}
	return out, nil
}

// ciCheck decides one command line: its argv when the tier can hold a
// result to it here, else why not.
func ciCheck(tier Tier, p *Project, line, dir string, continueOnError any) ([]string, string) {
	if d := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(dir), "./"), "/"); d != "" && d != "." {
		return nil, fmt.Sprintf("it runs in %s; core's checks run at the repository's top", dir)
	}
	if b, ok := continueOnError.(bool); ok && b {
		return nil, "continue-on-error: its failure does not fail the CI"
	}
	argv, err := SplitCommand(line)
	if err != nil {
		return nil, "not a plain command: it holds shell syntax or an expression"
	}
	d := CheckProject(tier, argv, p)
	switch {
	case !d.Allowed():
		return nil, d.Reason
	case d.Network:
		return nil, "it fetches and may change go.mod: a check only reports"
	}
	if e, ok := ecosystemOf(argv[0]); ok && p != nil && !p.Has(e.Name) {
		return nil, fmt.Sprintf("no %s at the top of the repository: it does not apply here", strings.Join(e.Manifests, " or "))
	}
	return argv, ""
}

// workflowFiles lists the workflow files (.yml, .yaml) of the workspace,
// sorted, at most maxWorkflows; none when the directory is missing or is
// reached through a link.
func workflowFiles(ws string) ([]string, error) {
	dir := ws
	for _, part := range strings.Split(workflowsDir, "/") {
		dir += "/" + part
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() {
			return nil, nil // absent, or a link: no workflows to read
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", workflowsDir, err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && (strings.HasSuffix(e.Name(), ".yml") || strings.HasSuffix(e.Name(), ".yaml")) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	if len(names) > maxWorkflows {
		names = names[:maxWorkflows]
	}
	return names, nil
}
