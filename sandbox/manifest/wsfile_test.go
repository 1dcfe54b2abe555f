package manifest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestReadWorkspaceFile(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "sub", "go.mod"), []byte("module x\n"), 0o644))
	require.NoError(t, os.Symlink("sub", filepath.Join(ws, "linked")))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(ws, "passwd")))
	tests := []struct {
		name, path, want, wantErr string
	}{
		{name: "regular", path: "sub/go.mod", want: "module x\n"},
		{name: "missing", path: "nope", wantErr: "does not exist"},
		{name: "link as the last component", path: "passwd", wantErr: "symbolic link"},
		{name: "link as a directory", path: "linked/go.mod", wantErr: "symbolic link"},
		{name: "climbs out", path: "../x", wantErr: "not a path inside the workspace"},
		{name: "absolute", path: "/etc/passwd", wantErr: "not a path inside the workspace"},
		{name: "a directory", path: "sub", wantErr: "is a directory"},
		{name: "too big", path: "sub/go.mod", wantErr: "more than the 4 core reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			max := int64(MaxModFileSize)
			if strings.HasPrefix(tt.name, "too big") {
				max = 4
			}
			b, err := ReadWorkspaceFile(ws, tt.path, max)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))
		})
	}
}

// TestEscapes: an argument, or the value of a -flag=value argument, that
// is absolute or climbs out with ".." leaves the workspace; a name that
// merely holds dots does not.
func TestEscapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		arg  string
		want bool
	}{
		{arg: "./...", want: false},
		{arg: "sub/go.mod", want: false},
		{arg: "./a..b/...", want: false},
		{arg: "..x/y", want: false},
		{arg: "-v", want: false},
		{arg: "-run=TestX", want: false},
		{arg: "-o=bin/app", want: false},
		{arg: "--manifest-path=Cargo.toml", want: false},
		{arg: "-flag-without-value", want: false},
		{arg: "..", want: true},
		{arg: "../x", want: true},
		{arg: "a/../../x", want: true},
		{arg: "a/..", want: true},
		{arg: "/etc/passwd", want: true},
		{arg: "-o=/usr/local/bin/x", want: true},
		{arg: "-o=../x", want: true},
		{arg: "--manifest-path=../x/Cargo.toml", want: true},
		{arg: "-C=/", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Escapes(tt.arg))
		})
	}
}

// TestRegularWithin: core reads a regular file of at most the limit and
// nothing else, saying what it found instead.
func TestRegularWithin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mode uint32
		size int64
		want string // substring of the refusal; "" reads it
	}{
		{name: "regular", mode: unix.S_IFREG, size: 10},
		{name: "regular at the limit", mode: unix.S_IFREG, size: 100},
		{name: "regular past the limit", mode: unix.S_IFREG, size: 101, want: "is 101 bytes, more than the 100 core reads"},
		{name: "link", mode: unix.S_IFLNK, want: "is a symbolic link"},
		{name: "FIFO", mode: unix.S_IFIFO, want: "is a FIFO"},
		{name: "character device", mode: unix.S_IFCHR, want: "is a device"},
		{name: "block device", mode: unix.S_IFBLK, want: "is a device"},
		{name: "socket", mode: unix.S_IFSOCK, want: "is a socket"},
		{name: "directory", mode: unix.S_IFDIR, want: "is a directory"},
		{name: "something else", mode: 0, want: "is not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := regularWithin("go.mod", &unix.Stat_t{Mode: tt.mode | 0o644, Size: tt.size}, 100)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, "go.mod in the workspace "+tt.want)
		})
	}
}

// TestWorkspaceFileError: a missing file is fs.ErrNotExist; a link met
// on the way, in any of the ways the kernel says it, is named as a link.
func TestWorkspaceFileError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		err      error
		want     string
		notExist bool
	}{
		{name: "missing", err: unix.ENOENT, want: "go.mod in the workspace", notExist: true},
		{name: "a link at the end", err: unix.ELOOP, want: "lies behind a symbolic link"},
		{name: "a link as a directory", err: unix.ENOTDIR, want: "lies behind a symbolic link"},
		{name: "a link out of the tree", err: unix.EXDEV, want: "lies behind a symbolic link"},
		{name: "anything else", err: unix.EACCES, want: "open go.mod in the workspace: permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := workspaceFileError("go.mod", tt.err)
			assert.ErrorContains(t, err, tt.want)
			assert.Equal(t, tt.notExist, errors.Is(err, fs.ErrNotExist))
		})
	}
}
