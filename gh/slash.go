package gh

import (
	"fmt"
	"regexp"
	"strings"
)

// Command is a slash command found in a comment: /core NAME ARGS.
type Command struct {
	Name string // fix, stop, help
	Args string // the rest of the line, trimmed
}

// DefaultTrigger is the phrase that starts a command: /core fix.
const DefaultTrigger = "/core"

var (
	fencedBlock = regexp.MustCompile("(?ms)^[ \t]*(```|~~~).*?(^[ \t]*(```|~~~)[ \t]*$|\\z)")
	inlineCode  = regexp.MustCompile("`[^`\n]*`")
	// triggerShape is what a trigger phrase may be: one word, optionally
	// after / or @.
	triggerShape = regexp.MustCompile(`^[/@]?[A-Za-z0-9][A-Za-z0-9_.-]*$`)
)

// defaultCommand matches a command after DefaultTrigger.
var defaultCommand = compileCommandLine(DefaultTrigger)

// commandLine matches a command after trigger: anchored to a line start,
// multi-line and case-insensitive.
func commandLine(trigger string) *regexp.Regexp {
	if trigger == DefaultTrigger {
		return defaultCommand
	}
	return compileCommandLine(trigger)
}

func compileCommandLine(trigger string) *regexp.Regexp {
	return regexp.MustCompile(`(?im)^[ \t]*` + regexp.QuoteMeta(trigger) + `[ \t]+([a-z]+)\b[ \t]*(.*?)[ \t]*$`)
}

// CheckTrigger refuses a trigger phrase that could not be typed as one
// word at a line's start.
func CheckTrigger(trigger string) error {
	if !triggerShape.MatchString(trigger) {
		return fmt.Errorf("the trigger phrase must be one word, optionally after / or @ (such as /core or @core), got %q", trigger)
	}
	return nil
}

// ParseCommands finds the /core commands in a comment, in order. Quoted
// lines (> …), fenced code blocks, indented code and inline code are
// removed first, and HTML comments and invisible characters with them, so a
// command someone quotes, shows in code or hides does nothing.
func ParseCommands(body string) []Command { return ParseCommandsFor(body, DefaultTrigger) }

// ParseCommandsFor is ParseCommands for another trigger phrase (@core
// fix); a phrase CheckTrigger refuses finds nothing.
func ParseCommandsFor(body, trigger string) []Command {
	if CheckTrigger(trigger) != nil {
		return nil
	}
	body = Sanitize(strings.ReplaceAll(body, "\r\n", "\n"))
	body = fencedBlock.ReplaceAllString(body, "")
	body = inlineCode.ReplaceAllString(body, "")
	var kept []string
	for _, line := range strings.Split(body, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(trimmed, ">") || strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			continue
		}
		kept = append(kept, line)
	}
	var cmds []Command
	for _, m := range commandLine(trigger).FindAllStringSubmatch(strings.Join(kept, "\n"), -1) {
		cmds = append(cmds, Command{Name: strings.ToLower(m[1]), Args: strings.TrimSpace(m[2])})
	}
	return cmds
}

// FindCommandFor returns the first command named name after trigger.
func FindCommandFor(body, trigger, name string) (Command, bool) {
	for _, c := range ParseCommandsFor(body, trigger) {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// IsBot reports whether an account is a bot: its type says so, or its
// login ends in [bot]. Neither alone is trusted to mean a person.
func IsBot(login, userType string) bool {
	return strings.EqualFold(userType, "Bot") || strings.HasSuffix(strings.ToLower(login), "[bot]")
}
