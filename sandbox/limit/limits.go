package limit

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Limits bound every confined command. A zero field takes its default.
type Limits struct {
	// Processes caps the tasks (processes and threads) alive at once
	// (a pids cgroup; RLIMIT_NPROC when core cannot make cgroups).
	Processes int
	// Memory caps the command's memory, page cache and /tmp included
	// (a memory cgroup; not enforced when core cannot make cgroups).
	Memory int64
	// CPUTime caps the CPU time of each process (RLIMIT_CPU).
	CPUTime time.Duration
	// FileSize caps the size of any one file written (RLIMIT_FSIZE).
	FileSize int64
	// Tmp is the size of the sandbox's /tmp.
	Tmp int64
	// WorkspaceGrowth caps how much the workspace may grow during one
	// command; core watches it and stops the command past it.
	WorkspaceGrowth int64
}

// DefaultLimits are generous enough for a large real go test (many packages,
// cgo, the race detector) and small enough that a fork bomb, a memory hog or
// a disk filler stops long before the host suffers.
func DefaultLimits() Limits {
	return Limits{
		Processes:       1024,
		Memory:          2 << 30,
		CPUTime:         30 * time.Minute,
		FileSize:        512 << 20,
		Tmp:             512 << 20,
		WorkspaceGrowth: 512 << 20,
	}
}

func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.Processes <= 0 {
		l.Processes = d.Processes
	}
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.CPUTime <= 0 {
		l.CPUTime = d.CPUTime
	}
	if l.FileSize <= 0 {
		l.FileSize = d.FileSize
	}
	if l.Tmp <= 0 {
		l.Tmp = d.Tmp
	}
	if l.WorkspaceGrowth <= 0 {
		l.WorkspaceGrowth = d.WorkspaceGrowth
	}
	return l
}

// The names of the limits, as Result.Limit gives them.
const (
	LimitProcesses = "processes"
	LimitMemory    = "memory"
	LimitCPUTime   = "cpu time"
	LimitFileSize  = "file size"
	LimitTmp       = "tmp"
	LimitWorkspace = "workspace growth"
)

// limitSetting is the environment variable that raises each limit.
var limitSetting = map[string]string{
	LimitProcesses: "CORE_SANDBOX_PIDS",
	LimitMemory:    "CORE_SANDBOX_MEMORY",
	LimitCPUTime:   "CORE_SANDBOX_CPU",
	LimitFileSize:  "CORE_SANDBOX_FILE_SIZE",
	LimitTmp:       "CORE_SANDBOX_TMP",
	LimitWorkspace: "CORE_SANDBOX_WORKSPACE_GROWTH",
}

// Value renders the limit called name.
func (l Limits) Value(name string) string {
	switch name {
	case LimitProcesses:
		return strconv.Itoa(l.Processes)
	case LimitMemory:
		return FormatSize(l.Memory)
	case LimitCPUTime:
		return l.CPUTime.String()
	case LimitFileSize:
		return FormatSize(l.FileSize)
	case LimitTmp:
		return FormatSize(l.Tmp)
	case LimitWorkspace:
		return FormatSize(l.WorkspaceGrowth)
	}
	return "?"
}

// LimitNote is the line that ends the output of a command stopped by a limit:
// which limit, and how to raise it.
func LimitNote(name string, l Limits) string {
	what := map[string]string{
		LimitProcesses: "processes and threads at once",
		LimitMemory:    "memory",
		LimitCPUTime:   "CPU time per process",
		LimitFileSize:  "size of one file",
		LimitTmp:       "size of /tmp",
		LimitWorkspace: "growth of the workspace",
	}[name]
	return fmt.Sprintf("\n[stopped: the sandbox's limit on %s (%s) was hit; if the command really needs more, raise it with %s (for example %s=%s)]\n",
		what, l.Value(name), limitSetting[name], limitSetting[name], l.raised(name))
}

// raised suggests twice the limit, in the setting's own syntax.
func (l Limits) raised(name string) string {
	switch name {
	case LimitProcesses:
		return strconv.Itoa(2 * l.Processes)
	case LimitCPUTime:
		return (2 * l.CPUTime).String()
	case LimitMemory:
		return FormatSize(2 * l.Memory)
	case LimitFileSize:
		return FormatSize(2 * l.FileSize)
	case LimitTmp:
		return FormatSize(2 * l.Tmp)
	case LimitWorkspace:
		return FormatSize(2 * l.WorkspaceGrowth)
	}
	return ""
}

// LimitsFromEnv reads the CORE_SANDBOX_* settings over the defaults.
func LimitsFromEnv(getenv func(string) string) (Limits, error) {
	l := DefaultLimits()
	sizes := []struct {
		name string
		dst  *int64
	}{
		{LimitMemory, &l.Memory}, {LimitFileSize, &l.FileSize}, {LimitTmp, &l.Tmp}, {LimitWorkspace, &l.WorkspaceGrowth},
	}
	for _, s := range sizes {
		env := limitSetting[s.name]
		if v := getenv(env); v != "" {
			n, err := ParseSize(v)
			if err != nil {
				return Limits{}, fmt.Errorf("%s: %w", env, err)
			}
			*s.dst = n
		}
	}
	if v := getenv(limitSetting[LimitProcesses]); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return Limits{}, fmt.Errorf("%s must be a positive number of processes, got %q", limitSetting[LimitProcesses], v)
		}
		l.Processes = n
	}
	if v := getenv(limitSetting[LimitCPUTime]); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return Limits{}, fmt.Errorf("%s must be a duration of at least 1s, such as 30m, got %q", limitSetting[LimitCPUTime], v)
		}
		l.CPUTime = d
	}
	return l, nil
}

// ParseSize reads a size: bytes, or a number with K, M, G or T (powers of
// 1024, an optional trailing B or iB).
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("want a positive size such as 512M or 4G, got %q", s)
	}
	return n * mult, nil
}

func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.suffix)
		}
	}
	return strconv.FormatInt(n, 10)
}
