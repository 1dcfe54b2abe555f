package manifest

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPipRequirement(t *testing.T) {
	t.Parallel()
	hash := strings.Repeat("ab", 32)
	tests := []struct {
		name, line, want, why string
	}{
		{name: "a pin", line: "greet==1.0.0", want: "greet==1.0.0"},
		{name: "a name normalised", line: "Greet_Pkg.x == 1.0", want: "greet-pkg-x==1.0"},
		{name: "extras", line: "Requests[Security, socks]>=2.0", want: "requests[security,socks]>=2.0"},
		{name: "a range is passed on", line: "attrs >=22, <24", want: "attrs>=22,<24"},
		{name: "no version", line: "pytest", want: "pytest"},
		{name: "parenthesised versions", line: "a (>=1,<2)", want: "a>=1,<2"},
		{name: "a marker", line: `tomli>=1; python_version < "3.11"`, want: `tomli>=1 ; python_version < "3.11"`},
		{name: "hashes", line: "greet==1.0.0 --hash=sha256:" + hash + " --hash sha256:" + hash, want: "greet==1.0.0 --hash=sha256:" + hash + " --hash=sha256:" + hash},
		{name: "--no-binary", line: "--no-binary :all:", why: "a pip option"},
		{name: "--index-url", line: "-i http://127.0.0.1:9/simple", why: "a pip option"},
		{name: "--extra-index-url", line: "--extra-index-url=http://x/", why: "a pip option"},
		{name: "--find-links", line: "-f ./wheels", why: "a pip option"},
		{name: "--trusted-host", line: "--trusted-host evil", why: "a pip option"},
		{name: "--pre", line: "--pre", why: "a pip option"},
		{name: "an editable", line: "-e .", why: "an editable install"},
		{name: "an editable VCS", line: "--editable git+https://x/y#egg=y", why: "an editable install"},
		{name: "a direct URL", line: "phony @ http://127.0.0.1:9/phony-1.0.tar.gz", why: "a direct URL reference"},
		{name: "a direct file URL", line: "phony@file:///tmp/x", why: "a direct URL reference"},
		{name: "a bare URL", line: "http://127.0.0.1:9/phony-1.0.tar.gz", why: "a URL"},
		{name: "VCS", line: "git+https://example.com/x.git#egg=x", why: "a VCS source"},
		{name: "a local path", line: "./pkg", why: "a local path"},
		{name: "an absolute path", line: "/srv/pkg", why: "a local path"},
		{name: "a directory", line: "pkg/sub", why: "a local path"},
		{name: "an archive", line: "phony-1.0.tar.gz", why: "a local path"},
		{name: "a wheel", line: "phony-1.0-py3-none-any.whl", why: "a local path"},
		{name: "a variable", line: "${PKG}==1", why: "an environment variable"},
		{name: "an option after a pin", line: "greet==1.0 --config-settings=x=y", why: `a pip option "--config-settings=x=y"`},
		{name: "an option in a marker", line: `greet ; os_name == "x" --no-binary :all:`, why: "a pip option"},
		{name: "a bad hash", line: "greet==1 --hash=md5:abc", why: "a --hash value"},
		{name: "a bad version", line: "greet==1.0'", why: "a version"},
		{name: "a bad marker", line: "greet ; os_name == $x", why: "an environment variable"},
		{name: "a marker with an option", line: "greet ; -x", why: "a pip option"},
		{name: "an empty marker", line: "greet ;", why: "an environment marker"},
		{name: "a bad extra", line: "greet[a b]", why: "an extra"},
		{name: "an open extra", line: "greet[a", why: "extras without"},
		{name: "too long", line: "a" + strings.Repeat("b", maxRequirementBytes), why: "longer than"},
		{name: "junk", line: "!!", why: "not a requirement"},
		{name: "empty (pyproject's \"\")", line: " ", why: "an empty requirement"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, why := pipRequirement(tt.line)
			assert.Equal(t, tt.want, got)
			if tt.why == "" {
				assert.Empty(t, why)
			} else {
				assert.Contains(t, why, tt.why)
			}
		})
	}
}

func TestPipRequirements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		links   []string // files that stand behind a link
		want    []string
		dropped []string // where: why, in order
	}{
		{name: "comments, blanks and continuations",
			files: map[string]string{"requirements.txt": "# pinned\n\ngreet==1.0 \\\n    --hash=sha256:" + strings.Repeat("0", 64) + "  # via app\nattrs#x\r\nb>=1 # note\n"},
			want:  []string{"greet==1.0 --hash=sha256:" + strings.Repeat("0", 64), "b>=1"}, dropped: []string{"requirements.txt:5: a version"}},
		{name: "the attack: --no-binary and a pin", files: map[string]string{"requirements.txt": "--no-binary :all:\nphony==1.0\n"},
			want: []string{"phony==1.0"}, dropped: []string{"requirements.txt:1: a pip option"}},
		{name: "an include beside it", files: map[string]string{"requirements.txt": "-r requirements/base.txt\ngreet\n", "requirements/base.txt": "-r common.txt\nattrs\n", "requirements/common.txt": "six\n--requirement=../requirements.txt\n"},
			want: []string{"six", "attrs", "greet"}},
		{name: "includes that leave the workspace", files: map[string]string{"requirements.txt": "-r ../x.txt\n-r /etc/passwd\n--requirement https://x/r.txt\n-rsub/../../y.txt\n"},
			dropped: []string{"requirements.txt:1: an include of a file outside", "requirements.txt:2: an include of a file outside", "requirements.txt:3: an include of a URL", "requirements.txt:4: an include of a file outside"}},
		{name: "an include behind a link, and a missing one", files: map[string]string{"requirements.txt": "-r linked.txt\n-r missing.txt\n"}, links: []string{"linked.txt"},
			dropped: []string{"requirements.txt:1: linked.txt in the workspace lies behind a symbolic link", "requirements.txt:2: the file is not in the workspace"}},
		{name: "constraints are left out", files: map[string]string{"requirements.txt": "-c constraints.txt\ngreet\n", "constraints.txt": "greet==1\n"},
			want: []string{"greet"}, dropped: []string{"requirements.txt:1: a constraints file"}},
		{name: "duplicates once", files: map[string]string{"requirements.txt": "greet\nGreet\n"}, want: []string{"greet"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reqs, dropped, err := PipRequirements("requirements.txt", func(name string) ([]byte, error) {
				for _, l := range tt.links {
					if l == name {
						return nil, fmt.Errorf("%s in the workspace lies behind a symbolic link", name)
					}
				}
				b, ok := tt.files[name]
				if !ok {
					return nil, fs.ErrNotExist
				}
				return []byte(b), nil
			})
			require.NoError(t, err)
			assert.Equal(t, tt.want, reqs)
			var got []string
			for _, d := range dropped {
				got = append(got, d.where+": "+d.why)
			}
			require.Len(t, got, len(tt.dropped), "%q", got)
			for i := range got {
				assert.True(t, strings.HasPrefix(got[i], tt.dropped[i]), "%q does not start with %q", got[i], tt.dropped[i])
			}
		})
	}
}

// TestPipRequirementsBounds: includes of includes end at core's bounds,
// each one left out is named; a missing top file is the caller's error.
func TestPipRequirementsBounds(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("r%d.txt", i)] = fmt.Sprintf("-r r%d.txt\npkg%d\n", i+1, i)
	}
	reqs, dropped, err := PipRequirements("r0.txt", func(name string) ([]byte, error) { return []byte(files[name]), nil })
	require.NoError(t, err)
	assert.Len(t, reqs, maxRequirementDepth+1)
	require.Len(t, dropped, 1)
	assert.Contains(t, dropped[0].why, "past core's bounds")

	_, _, err = PipRequirements("requirements.txt", func(string) ([]byte, error) { return nil, fs.ErrNotExist })
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestPipDroppedNote(t *testing.T) {
	t.Parallel()
	assert.Empty(t, PipDroppedNote("requirements.txt", nil))
	var dropped []pipDropped
	for i := range 7 {
		dropped = append(dropped, pipDropped{where: fmt.Sprintf("requirements.txt:%d", i+1), line: "--no-binary :all:\x1b[2J" + strings.Repeat("x", 100), why: "a pip option"})
	}
	note := PipDroppedNote("requirements.txt", dropped)
	assert.True(t, strings.HasPrefix(note, "core left out 7 Entries of requirements.txt"), note)
	assert.Contains(t, note, `requirements.txt:1 "--no-binary :all:\x1b[2J`)
	assert.NotContains(t, note, "\x1b", "the repository's text is quoted, escapes and all")
	assert.Contains(t, note, "and 2 more")
	assert.True(t, strings.HasSuffix(note, "\n"))
}

// FuzzPipRequirements: whatever the files, the reader ends, and what it
// passes on is one requirement by name per line, in core's own form:
// never a pip option but --hash, a URL, a path, a variable or a second
// line.
func FuzzPipRequirements(f *testing.F) {
	for _, s := range []string{
		"greet==1.0.0\n",
		"--no-binary :all:\nphony==1.0\n",
		"phony @ http://127.0.0.1:9/phony-1.0.tar.gz\n",
		"-r other.txt\n-e .\ngit+https://x/y\n./local\n",
		"a[b,c] (>=1,<2) ; python_version < \"3\" \\\n --hash=sha256:" + strings.Repeat("a", 64) + "\n",
		"x ; os_name == 'a' --index-url http://x\n",
		"${X}\n-c c.txt\n--requirement=r.txt\n",
	} {
		f.Add([]byte(s), []byte("-r requirements.txt\nother==2\n"))
	}
	f.Fuzz(func(t *testing.T, top, other []byte) {
		reqs, _, err := PipRequirements("requirements.txt", func(name string) ([]byte, error) {
			switch name {
			case "requirements.txt":
				return top, nil
			case "other.txt", "r.txt":
				return other, nil
			}
			return nil, fs.ErrNotExist
		})
		if err != nil {
			t.Fatalf("an error for files that are there: %v", err)
		}
		assert.LessOrEqual(t, len(reqs), maxRequirementsKept)
		for _, r := range reqs {
			checkPipForm(t, r)
		}
	})
}

// checkPipForm fails unless r is a requirement in core's form.
func checkPipForm(t *testing.T, r string) {
	t.Helper()
	spec, hashes, _ := strings.Cut(r, " --hash=")
	if strings.ContainsAny(r, "\n\r@#$\\/:") && hashes == "" || strings.ContainsAny(spec, "\n\r@#$\\/:") ||
		strings.HasPrefix(r, "-") || strings.HasPrefix(r, ".") || pipOption.MatchString(spec) || len(spec) > maxRequirementBytes {
		t.Fatalf("passed on %q", r)
	}
	for _, h := range strings.Split(hashes, " --hash=") {
		if hashes != "" && !pipHashRE.MatchString(h) {
			t.Fatalf("passed on %q: hash %q", r, h)
		}
	}
	if again, why := pipRequirement(r); why != "" || again != r {
		t.Fatalf("core's form %q is not its own fixed point: %q, %s", r, again, why)
	}
}
