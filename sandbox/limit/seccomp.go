package limit

import (
	"encoding/binary"
	"fmt"
	"os"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// deniedSyscalls fail with EPERM inside the sandbox, in the spirit of
// Docker's and Flatpak's default filters: the kernel's key rings, BPF,
// performance counters, userfaultfd (a tool of kernel exploits), loading
// kernels and modules, mounting, tracing and reading other processes'
// memory, io_uring (which bypasses the filter's view of system calls), file
// handles, and joining other namespaces.
var deniedSyscalls = []string{
	"keyctl", "add_key", "request_key",
	"bpf", "perf_event_open", "userfaultfd",
	"kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module",
	"mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"ptrace", "process_vm_readv", "process_vm_writev",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"open_by_handle_at", "name_to_handle_at",
	"setns", "acct", "swapon", "swapoff", "syslog", "reboot",
}

// namespaceFlags are the clone and unshare flags that make new namespaces:
// a new user namespace inside would give its creator every capability in it.
const namespaceFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWNET | unix.CLONE_NEWPID |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

// seccompPolicy is the filter for one profile. Sockets: AF_UNIX always, and
// AF_INET/AF_INET6, because the network namespace holds only loopback and Go
// tests of network code (httptest) listen on it; every other family
// (netlink, packet, vsock, alg, …) is refused. The download profile, which
// has the host's network, also keeps netlink for Go's interface lookups.
func seccompPolicy(network bool) seccomp.Policy {
	families := []uint64{unix.AF_UNIX, unix.AF_INET, unix.AF_INET6}
	if network {
		families = append(families, unix.AF_NETLINK)
	}
	var other seccomp.ArgumentConditions
	for _, f := range families {
		other = append(other, seccomp.Condition{Argument: 0, Operation: seccomp.NotEqual, Value: f})
	}
	newNamespace := seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: namespaceFlags}}
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: seccomp.ActionErrno, Names: deniedSyscalls},
			{Action: seccomp.ActionErrno, NamesWithCondtions: []seccomp.NameWithConditions{
				{Name: "socket", Conditions: other},
				{Name: "socketpair", Conditions: other},
				{Name: "clone", Conditions: newNamespace},
				{Name: "unshare", Conditions: newNamespace},
			}},
			// clone3 passes its flags in memory, where a filter cannot look:
			// ENOSYS makes the C library fall back to clone, as under Docker.
			{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: []string{"clone3"}},
		},
	}
}

// SeccompProgram assembles the filter into the raw sock_filter array that
// bwrap --seccomp reads. System calls of any other architecture (i386's int
// 0x80 on x86_64, whose numbers the filter does not know) fail with ENOSYS.
func SeccompProgram(network bool) ([]byte, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	p := seccompPolicy(network)
	insts, err := p.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	guard := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(unix.ENOSYS)},
	}
	raw, err := bpf.Assemble(append(guard, insts...))
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	out := make([]byte, 0, 8*len(raw))
	for _, r := range raw {
		out = binary.NativeEndian.AppendUint16(out, r.Op)
		out = append(out, r.Jt, r.Jf)
		out = binary.NativeEndian.AppendUint32(out, r.K)
	}
	return out, nil
}

// SeccompFile returns a file holding the program at offset 0, for bwrap to
// read through an inherited descriptor.
func SeccompFile(program []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("core-seccomp", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: memfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "core-seccomp")
	if _, err := f.Write(program); err != nil {
		f.Close()
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	return f, nil
}
