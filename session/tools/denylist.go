package tools

import (
	"path"
	"regexp"
	"strings"
)

// The denylist is defence in depth: run_shell refuses these commands before
// anything else, whatever the tier and whatever a human would answer. It is
// not the boundary (the gate and the sandbox are); it catches the commands
// no session should ever run.

var (
	// curl … | sh, wget … | sudo bash, and the like.
	pipeToShell = regexp.MustCompile(`(?i)\b(curl|wget)\b.*\|\s*(sudo\s+(-\S+\s+)*)?(env\s+)?(\S*/)?(ba|z|da|k|c|tc|fi)?sh\b`)
	// bash <(curl …), sh -c "$(wget …)", eval `curl …`.
	shellOfDownload = regexp.MustCompile("(?i)\\b((ba|z|da|k)?sh|eval|source)\\b.*(<\\(|\\$\\(|`)\\s*(curl|wget)\\b")
	// .git/config, .git/hooks, and the settings that make git run programs.
	gitInternals = regexp.MustCompile(`(?i)\.git[/\\]+(config|hooks)|core\.(hookspath|fsmonitor)`)
	// NAME(){ and function NAME, with all blanks removed.
	funcDef = regexp.MustCompile(`([A-Za-z_:.][\w:.-]*)\(\)\{|function([A-Za-z_:.][\w:.-]*)[({]`)
)

// refusal says why a command is on the denylist, or "" when it is not.
func refusal(command string) string {
	segments := shellSegments(command)
	for _, words := range segments {
		for _, w := range words {
			if b := path.Base(w); b == "sudo" || b == "doas" {
				return "it runs a command as root (" + b + "); no session ever does"
			}
		}
	}
	if strings.Contains(command, "--no-preserve-root") {
		return "it deletes the whole file system (--no-preserve-root)"
	}
	for _, words := range segments {
		if deletesEverything(words) {
			return "it deletes / , a top-level directory or the home directory recursively"
		}
	}
	if pipeToShell.MatchString(command) || shellOfDownload.MatchString(command) {
		return "it runs a script straight from the network in a shell"
	}
	if gitInternals.MatchString(command) {
		return "it touches git's own configuration or hooks (.git/config, .git/hooks), which the tools never do"
	}
	if forkBomb(command) {
		return "it is a fork bomb"
	}
	return ""
}

// shellSegments splits a command roughly as a shell would into simple
// commands (on ; & | ( ) ` and newlines) and those into words, with quotes
// and backslashes removed. It is a coarse, conservative reading: it only
// has to find words, not run anything.
func shellSegments(command string) [][]string {
	split := strings.FieldsFunc(command, func(r rune) bool {
		return strings.ContainsRune(";&|()`\n\r", r)
	})
	var segments [][]string
	for _, s := range split {
		var words []string
		for _, w := range strings.Fields(s) {
			w = strings.NewReplacer(`"`, "", `'`, "", `\`, "").Replace(w)
			if w != "" {
				words = append(words, w)
			}
		}
		if len(words) > 0 {
			segments = append(segments, words)
		}
	}
	return segments
}

// deletesEverything reports whether a simple command holds a recursive rm
// of /, a top-level directory, or the home directory (or everything in
// them).
func deletesEverything(words []string) bool {
	for i, w := range words {
		if path.Base(w) != "rm" {
			continue
		}
		recursive := false
		var targets []string
		for _, a := range words[i+1:] {
			switch {
			case a == "--recursive" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR")):
				recursive = true
			case strings.HasPrefix(a, "-"):
			default:
				targets = append(targets, a)
			}
		}
		if !recursive {
			continue
		}
		for _, t := range targets {
			if vital(t) {
				return true
			}
		}
	}
	return false
}

// vital reports whether an rm target is /, a top-level directory, the home
// directory, or everything in one of them.
func vital(t string) bool {
	for _, home := range []string{"${HOME}", "$HOME", "~"} {
		if rest, ok := strings.CutPrefix(t, home); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
			c := path.Clean("/" + rest)
			return c == "/" || c == "/*" || c == "/.*"
		}
	}
	if !strings.HasPrefix(t, "/") {
		return false
	}
	return strings.Count(path.Clean(t), "/") <= 1
}

// forkBomb reports whether the command defines a function that pipes
// itself into itself in the background, spaced however it likes.
func forkBomb(command string) bool {
	dense := strings.Join(strings.Fields(command), "")
	for _, m := range funcDef.FindAllStringSubmatch(dense, -1) {
		name := m[1] + m[2]
		if strings.Contains(dense, name+"|"+name+"&") {
			return true
		}
	}
	return false
}
