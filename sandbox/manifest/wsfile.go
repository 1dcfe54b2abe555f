package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// MaxModFileSize caps what core reads of go.mod, go.sum and go.work: real
// ones are a few KiB to a few hundred KiB.
const MaxModFileSize = 4 << 20

// ReadWorkspaceFile reads the file at name (slash-separated, relative) inside
// the workspace directory ws the way host code must read anything that
// workspace code could have placed: it follows no symbolic link in any
// component, opens no device, FIFO or socket (it opens the path without
// reading first, and reads only what fstat says is a regular file), and reads
// at most max bytes. A missing file is an error that wraps fs.ErrNotExist.
func ReadWorkspaceFile(ws, name string, max int64) ([]byte, error) {
	f, err := OpenWorkspaceFile(ws, name, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s in the workspace: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s in the workspace grew past %d bytes while core read it", name, max)
	}
	return b, nil
}

// OpenWorkspaceFile opens a regular file of at most max bytes inside ws for
// reading, under the rules of ReadWorkspaceFile.
func OpenWorkspaceFile(ws, name string, max int64) (*os.File, error) {
	if name == "" || filepath.IsAbs(name) || Escapes(name) {
		return nil, fmt.Errorf("%q is not a path inside the workspace", name)
	}
	dir, err := unix.Open(ws, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open the workspace %s: %w", ws, err)
	}
	defer unix.Close(dir)
	fd, err := openBeneath(dir, filepath.ToSlash(filepath.Clean(name)))
	if err != nil {
		return nil, workspaceFileError(name, err)
	}
	path := os.NewFile(uintptr(fd), name)
	defer path.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("stat %s in the workspace: %w", name, err)
	}
	if err := regularWithin(name, &st, max); err != nil {
		return nil, err
	}
	// Reopen the very inode found above; O_NONBLOCK and O_NOCTTY in case it
	// was swapped for something else, which the second fstat then refuses.
	rfd, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", fd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s in the workspace: %w", name, err)
	}
	var st2 unix.Stat_t
	if err := unix.Fstat(rfd, &st2); err != nil || st2.Dev != st.Dev || st2.Ino != st.Ino {
		unix.Close(rfd)
		return nil, fmt.Errorf("%s in the workspace changed while core opened it", name)
	}
	return os.NewFile(uintptr(rfd), name), nil
}

// regularWithin refuses anything but a regular file of at most max bytes.
func regularWithin(name string, st *unix.Stat_t, max int64) error {
	kind := ""
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if st.Size > max {
			return fmt.Errorf("%s in the workspace is %d bytes, more than the %d core reads: make it smaller", name, st.Size, max)
		}
		return nil
	case unix.S_IFLNK:
		kind = "a symbolic link"
	case unix.S_IFIFO:
		kind = "a FIFO"
	case unix.S_IFCHR, unix.S_IFBLK:
		kind = "a device"
	case unix.S_IFSOCK:
		kind = "a socket"
	case unix.S_IFDIR:
		kind = "a directory"
	default:
		kind = "not a regular file"
	}
	return fmt.Errorf("%s in the workspace is %s; core reads only regular files there: replace it with a regular file", name, kind)
}

// openBeneath opens name relative to dir as an O_PATH descriptor, following
// no symbolic link in any component and never leaving dir.
func openBeneath(dir int, name string) (int, error) {
	how := unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err := unix.Openat2(dir, name, &how)
	if !errors.Is(err, unix.ENOSYS) {
		return fd, err
	}
	// Kernels before 5.6: walk the components, none of them a link.
	parts := strings.Split(name, "/")
	cur := dir
	for i, part := range parts {
		flags := unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i < len(parts)-1 {
			flags |= unix.O_DIRECTORY
		}
		next, err := unix.Openat(cur, part, flags, 0)
		if cur != dir {
			unix.Close(cur)
		}
		if err != nil {
			return -1, err
		}
		cur = next
	}
	return cur, nil
}

func workspaceFileError(name string, err error) error {
	switch {
	case errors.Is(err, unix.ENOENT):
		return fmt.Errorf("%s in the workspace: %w", name, fs.ErrNotExist)
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.EXDEV):
		return fmt.Errorf("%s in the workspace lies behind a symbolic link; core reads only regular files there, through real directories: replace the link", name)
	}
	return fmt.Errorf("open %s in the workspace: %w", name, err)
}

// Escapes reports whether an argument, or the value of a -flag=value
// argument, is an absolute path or climbs out with "..".
func Escapes(a string) bool {
	if strings.HasPrefix(a, "-") {
		i := strings.IndexByte(a, '=')
		if i < 0 {
			return false
		}
		a = a[i+1:]
	}
	if filepath.IsAbs(a) {
		return true
	}
	for _, part := range strings.Split(filepath.ToSlash(a), "/") {
		if part == ".." {
			return true
		}
	}
	return false
}
