package session

import "strings"

// goalLength bounds a goal: a line on the console's Runs page.
const goalLength = 200

// goalOf says in a line what a session is for: its prompt, or else the
// first line of its instruction, which for an issue is "Issue #N: title".
func goalOf(prompt, instruction string) string {
	if p := strings.TrimSpace(prompt); p != "" {
		return oneLine(p, goalLength)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(instruction), "\n")
	return oneLine(line, goalLength)
}
