package gh

import (
	"regexp"
	"strings"
)

// Command is a slash command found in a comment: /core NAME ARGS.
type Command struct {
	Name string // fix, stop, help
	Args string // the rest of the line, trimmed
}

var (
	fencedBlock = regexp.MustCompile("(?ms)^[ \t]*(```|~~~).*?(^[ \t]*(```|~~~)[ \t]*$|\\z)")
	inlineCode  = regexp.MustCompile("`[^`\n]*`")
	// slashLine is anchored to a line start, multi-line and
	// case-insensitive.
	slashLine = regexp.MustCompile(`(?im)^[ \t]*/core[ \t]+([a-z]+)\b[ \t]*(.*?)[ \t]*$`)
)

// ParseCommands finds the /core commands in a comment, in order. Quoted
// lines (> …), fenced code blocks, indented code and inline code are
// removed first, and HTML comments and invisible characters with them, so a
// command someone quotes, shows in code or hides does nothing.
func ParseCommands(body string) []Command {
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
	for _, m := range slashLine.FindAllStringSubmatch(strings.Join(kept, "\n"), -1) {
		cmds = append(cmds, Command{Name: strings.ToLower(m[1]), Args: strings.TrimSpace(m[2])})
	}
	return cmds
}

// FindCommand returns the first /core command named name.
func FindCommand(body, name string) (Command, bool) {
	for _, c := range ParseCommands(body) {
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
