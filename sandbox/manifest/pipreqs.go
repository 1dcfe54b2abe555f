package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Python's dependency step passes on only what core re-emits of the
// repository's requirements: pip reads options inside a requirements file
// as if given on its command line (--no-binary :all: there undoes core's
// --only-binary, --index-url names another index), and a direct URL, a VCS
// source, a local path or an editable install is an sdist or a tree that
// pip builds, running the repository's setup.py with the network on. So
// core reads the files itself and writes pip a requirements file of its
// own: a PEP 503 name, its extras, its version specifiers, its environment
// markers and its --hash values, rebuilt from what it parsed, nothing
// else. Everything else is left out and named in the step's note.
//
// A requirement with a range (name>=1.2) or no version at all is passed
// on as it is: pip resolves it from the configured index, wheels only, as
// it resolves every requirement's own dependencies; leaving it out would
// keep nothing safer and break most requirements files.

// Bounds of what core reads of requirements files.
const (
	maxRequirementFiles   = 16   // a file and those it includes with -r
	maxRequirementDepth   = 4    // includes of includes
	maxRequirementsKept   = 1024 // requirements passed on
	maxPipDroppedNamed    = 5    // left-out lines the note names
	maxPipDroppedQuoteLen = 80
)

// pipDropped is a line of a requirements file that core did not pass on.
type pipDropped struct {
	where string // file:line
	line  string
	why   string
}

var (
	pipNameRE      = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?`)
	pipExtraRE     = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	pipSpecRE      = regexp.MustCompile(`^(===|==|!=|<=|>=|~=|<|>)\s*([A-Za-z0-9.*+!_-]+)$`)
	pipHashRE      = regexp.MustCompile(`^(sha256|sha384|sha512):[0-9a-fA-F]{64,128}$`)
	pipMarkerRE    = regexp.MustCompile(`^[A-Za-z0-9_.<>=!~ \t'"()-]+$`)
	pipVCSPrefixRE = regexp.MustCompile(`^(?i)(git|hg|svn|bzr)\+`)
	pipDirectRE    = regexp.MustCompile(`^[A-Za-z0-9._-]+\s*(\[[^\]]*\])?\s*@`)
	// pipCommentRE is pip's own rule for a comment.
	pipCommentRE = regexp.MustCompile(`(^|\s+)#.*$`)
)

// pipRequirement parses one logical line of a requirements file (joined
// and without its comment) and returns core's form of it, or "" and why
// core does not pass it on.
func pipRequirement(line string) (req, why string) {
	line = strings.TrimSpace(line)
	if line == "" {
		return "", "an empty requirement"
	}
	if len(line) > maxRequirementBytes {
		return "", fmt.Sprintf("longer than %d bytes", maxRequirementBytes)
	}
	if why := pipSource(line); why != "" {
		return "", why
	}
	// pip reads the words from the first that starts with - as options.
	spec, opts := line, ""
	if i := indexOption(line); i >= 0 {
		spec, opts = line[:i], line[i:]
	}
	hashes, why := pipHashes(opts)
	if why != "" {
		return "", why
	}
	var b strings.Builder
	name := pipNameRE.FindString(spec)
	if name == "" {
		return "", "not a requirement core reads (a name, extras, versions, markers and --hash values)"
	}
	b.WriteString(NormalizePythonName(name))
	rest := strings.TrimSpace(spec[len(name):])
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return "", "extras without their ]"
		}
		var extras []string
		for _, e := range strings.Split(rest[1:end], ",") {
			if e = strings.TrimSpace(e); e == "" {
				continue
			}
			if !pipExtraRE.MatchString(e) {
				return "", fmt.Sprintf("an extra %q that is not a name", e)
			}
			extras = append(extras, NormalizePythonName(e))
		}
		if len(extras) > 0 {
			b.WriteString("[" + strings.Join(extras, ",") + "]")
		}
		rest = strings.TrimSpace(rest[end+1:])
	}
	if strings.HasPrefix(rest, "@") {
		return "", "a direct URL reference: core fetches wheels by name from the configured index only"
	}
	versions, marker, hasMarker := strings.Cut(rest, ";")
	versions = strings.TrimSpace(versions)
	if strings.HasPrefix(versions, "(") && strings.HasSuffix(versions, ")") {
		versions = versions[1 : len(versions)-1]
	}
	if versions != "" {
		var specs []string
		for _, v := range strings.Split(versions, ",") {
			m := pipSpecRE.FindStringSubmatch(strings.TrimSpace(v))
			if m == nil {
				return "", fmt.Sprintf("a version %q that core does not read", strings.TrimSpace(v))
			}
			specs = append(specs, m[1]+m[2])
		}
		b.WriteString(strings.Join(specs, ","))
	}
	if hasMarker {
		marker = strings.TrimSpace(marker)
		if marker == "" || !pipMarkerRE.MatchString(marker) || pipOption.MatchString(marker) || strings.HasPrefix(marker, "-") {
			return "", "an environment marker that core does not read"
		}
		b.WriteString(" ; " + marker)
	}
	for _, h := range hashes {
		b.WriteString(" --hash=" + h)
	}
	return b.String(), ""
}

// pipSource says why line names something other than a requirement by
// name (an option, a URL, a path), or "".
func pipSource(line string) string {
	switch {
	case strings.HasPrefix(line, "-e") || strings.HasPrefix(line, "--editable"):
		return "an editable install: a local tree or a VCS checkout, which pip builds"
	case strings.HasPrefix(line, "-"):
		return "a pip option: core sets pip's options itself (wheels only, from the configured index)"
	case pipDirectRE.MatchString(line):
		return "a direct URL reference: core fetches wheels by name from the configured index only"
	case pipVCSPrefixRE.MatchString(line):
		return "a VCS source: core fetches wheels by name from the configured index only"
	case strings.Contains(line, "://"):
		return "a URL: core fetches wheels by name from the configured index only"
	case strings.Contains(line, "$"):
		return "an environment variable, which pip would expand: core passes on names with versions only"
	case strings.HasPrefix(line, ".") || strings.HasPrefix(line, "/") || strings.HasPrefix(line, "~") ||
		strings.ContainsAny(strings.Fields(line)[0], `/\`) || pipArchive(strings.Fields(line)[0]):
		return "a local path: core fetches wheels by name from the configured index only"
	}
	return ""
}

// pipArchive reports whether word names a distribution file.
func pipArchive(word string) bool {
	for _, ext := range []string{".whl", ".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz", ".tar"} {
		if strings.HasSuffix(strings.ToLower(word), ext) {
			return true
		}
	}
	return false
}

// indexOption is where the first word that starts with - begins, or -1.
func indexOption(line string) int {
	if loc := pipOption.FindStringIndex(line); loc != nil {
		return loc[0] + 1
	}
	return -1
}

// pipHashes reads a requirement's options: --hash values only.
func pipHashes(opts string) ([]string, string) {
	var hashes []string
	words := strings.Fields(opts)
	for i := 0; i < len(words); i++ {
		w := words[i]
		v, ok := strings.CutPrefix(w, "--hash=")
		if !ok && w == "--hash" && i+1 < len(words) {
			v, ok = words[i+1], true
			i++
		}
		if !ok {
			return nil, fmt.Sprintf("a pip option %q: core passes on --hash only", w)
		}
		if !pipHashRE.MatchString(v) {
			return nil, fmt.Sprintf("a --hash value %q that is not algorithm:hex", v)
		}
		hashes = append(hashes, v)
	}
	return hashes, ""
}

// pipLines are the logical lines of a requirements file as pip reads
// them, with their line numbers: continuations joined, comments gone,
// blanks skipped.
func pipLines(b []byte) (lines []string, numbers []int) {
	raw := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	for i := 0; i < len(raw); i++ {
		start := i
		line := raw[i]
		for strings.HasSuffix(line, `\`) && i+1 < len(raw) && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			i++
			line = strings.TrimSuffix(line, `\`) + " " + raw[i]
		}
		line = strings.TrimSuffix(line, `\`)
		if line = strings.TrimSpace(pipCommentRE.ReplaceAllString(line, "")); line != "" {
			lines = append(lines, line)
			numbers = append(numbers, start+1)
		}
	}
	return lines, numbers
}

// pipInclude is the file a -r line names, or "" when line is no include;
// constraint reports a -c line.
func pipInclude(line string) (name string, constraint, ok bool) {
	for _, p := range []struct {
		flags      []string
		constraint bool
	}{{[]string{"--requirement", "-r"}, false}, {[]string{"--constraint", "-c"}, true}} {
		for _, f := range p.flags {
			rest, found := strings.CutPrefix(line, f)
			if !found {
				continue
			}
			switch {
			case strings.HasPrefix(rest, "="):
				rest = rest[1:]
			case rest == "" || strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "\t"):
			case len(f) == 2: // -rfile
			default:
				continue
			}
			return strings.TrimSpace(rest), p.constraint, true
		}
	}
	return "", false, false
}

// PipRequirements reads the requirements file name and those it includes
// with -r (files of the workspace only, through read, which follows no
// link), and returns core's form of the requirements they name, and the
// lines it left out and why. An error is only read's own (an include that
// is missing or behind a link is left out, with why).
func PipRequirements(name string, read func(name string) ([]byte, error)) (reqs []string, dropped []pipDropped, err error) {
	seen := map[string]bool{}
	files := 0
	var walk func(name, where, line string, depth int) error
	walk = func(name, where, line string, depth int) error {
		if seen[name] {
			return nil
		}
		if depth > maxRequirementDepth || files >= maxRequirementFiles {
			dropped = append(dropped, pipDropped{where, line, fmt.Sprintf("an include past core's bounds (%d files, %d deep)", maxRequirementFiles, maxRequirementDepth)})
			return nil
		}
		seen[name] = true
		files++
		b, err := read(name)
		if err != nil {
			if depth == 0 {
				return err
			}
			why := "the file is not in the workspace"
			if !errors.Is(err, fs.ErrNotExist) {
				why = err.Error()
			}
			dropped = append(dropped, pipDropped{where, line, why})
			return nil
		}
		lines, numbers := pipLines(b)
		for i, l := range lines {
			at := fmt.Sprintf("%s:%d", name, numbers[i])
			if inc, constraint, ok := pipInclude(l); ok {
				target, why := includedFile(name, inc)
				switch {
				case constraint:
					dropped = append(dropped, pipDropped{at, l, "a constraints file: core passes on requirements only"})
				case why != "":
					dropped = append(dropped, pipDropped{at, l, why})
				default:
					if err := walk(target, at, l, depth+1); err != nil {
						return err
					}
				}
				continue
			}
			req, why := pipRequirement(l)
			switch {
			case why != "":
				dropped = append(dropped, pipDropped{at, l, why})
			case len(reqs) >= maxRequirementsKept:
				dropped = append(dropped, pipDropped{at, l, fmt.Sprintf("past the first %d requirements", maxRequirementsKept)})
			case !slices.Contains(reqs, req):
				reqs = append(reqs, req)
			}
		}
		return nil
	}
	err = walk(name, name, "", 0)
	return reqs, dropped, err
}

// includedFile is the workspace path of the file a -r line of from names,
// or why core does not read it.
func includedFile(from, name string) (string, string) {
	switch {
	case name == "":
		return "", "an include without a file"
	case strings.Contains(name, "://") || strings.Contains(name, "$"):
		return "", "an include of a URL: core reads files of the workspace only"
	case strings.HasPrefix(name, "/") || strings.HasPrefix(name, "~"):
		return "", "an include of a file outside the workspace"
	}
	p := path.Clean(path.Join(path.Dir(from), name))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", "an include of a file outside the workspace"
	}
	return p, ""
}

// PipDroppedNote says what core left out of source and why, naming the
// first few lines; "" when nothing was.
func PipDroppedNote(source string, dropped []pipDropped) string {
	if len(dropped) == 0 {
		return ""
	}
	var parts []string
	for _, d := range dropped {
		parts = append(parts, fmt.Sprintf("%s %q (%s)", d.where, clip(d.line), d.why))
	}
	return fmt.Sprintf("core left out %s of %s that it does not pass to pip, which gets only names with extras, versions, markers and hashes, wheels only, from the configured index: %s\n",
		Entries(len(dropped), "entry", "Entries"), source, firstFew(parts, maxPipDroppedNamed))
}

// Entries is n of a thing, in words: "1 entry", "2 Entries".
func Entries(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
