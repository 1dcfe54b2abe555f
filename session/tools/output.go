package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"unicode/utf8"
)

// binarySniff is how much of a file is looked at for a NUL byte.
const binarySniff = 8 << 10

// isBinary reports whether data looks like a binary file: a NUL byte in
// its first 8 KiB.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0
}

// capOutput keeps s within limit bytes: the head and the tail survive and a
// line in the middle says how much was cut. Cuts fall on UTF-8 boundaries,
// and on line boundaries when one is near.
func capOutput(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	marker := func(cut int) string {
		return fmt.Sprintf("\n[... %d bytes cut: the output was %d bytes, over the %d-byte limit ...]\n", cut, len(s), limit)
	}
	room := max(limit-len(marker(len(s))), 0)
	headEnd := lineCut(s, room/2, true)
	tailStart := lineCut(s, len(s)-(room-headEnd), false)
	return s[:headEnd] + marker(tailStart-headEnd) + s[tailStart:]
}

// lineCut moves a cut position at i to a nearby line boundary (within 256
// bytes) or else to a UTF-8 boundary, never growing the kept part: back for
// a head cut, forward for a tail cut.
func lineCut(s string, i int, head bool) int {
	i = max(0, min(i, len(s)))
	const near = 256
	if head {
		for j := i; j > 0 && i-j < near; j-- {
			if s[j-1] == '\n' {
				return j
			}
		}
		for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
			i--
		}
		return i
	}
	for j := i; j < len(s) && j-i < near; j++ {
		if j > 0 && s[j-1] == '\n' {
			return j
		}
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// observe turns an error the model can fix into an observation. It reports
// false for an infrastructure error, which the caller passes on.
func observe(tool string, err error) (Result, bool) {
	var ae *ArgError
	if errors.As(err, &ae) {
		if ae.Tool == "" {
			ae.Tool = tool
		}
		return Result{Output: ae.Error(), Failed: ae.Error()}, true
	}
	var pe *PathError
	if errors.As(err, &pe) {
		return Result{Output: pe.Error(), Target: pe.Path, Failed: pe.Error()}, true
	}
	return Result{}, false
}

// fail is how a tool returns an error: an observation when the model can
// fix it, a Go error otherwise.
func fail(tool string, err error) (Result, error) {
	if r, ok := observe(tool, err); ok {
		return r, nil
	}
	return Result{}, err
}

// fixable reports whether a file-system error is about what the model
// asked for (a missing file, a file where a directory was expected, a name
// too long, no permission) rather than a failing disk.
func fixable(err error) bool {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrExist) {
		return true
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOTDIR, syscall.EISDIR, syscall.ENAMETOOLONG, syscall.ELOOP, syscall.EINVAL, syscall.ETXTBSY:
			return true
		}
	}
	return false
}

// fsFail reports a file-system error on rel: an observation when the model
// can do something about it, a wrapped Go error when the disk failed.
func fsFail(tool, rel, doing string, err error) (Result, error) {
	if fixable(err) {
		return Result{Output: fmt.Sprintf("%s: cannot %s %s: %s", tool, doing, rel, errText(err)), Target: rel}, nil
	}
	return Result{}, fmt.Errorf("%s %s: %w", doing, rel, err)
}

// errText is an error's innermost words, without the absolute host path
// that *fs.PathError carries.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}
