// Command syscalls tries, inside the sandbox, each system call the seccomp
// filter denies, with arguments for which the kernel itself would answer
// something other than EPERM where it can, and prints one line per call:
// its name and the errno it got (0 for success).
package main

import (
	"fmt"
	"os"
	"syscall"
)

const (
	sysClone3        = 435
	sysIOUringSetup  = 425
	sysOpenTree      = 428
	sysFsopen        = 430
	sysKexecFileLoad = 320
	sysFinitModule   = 313
	sysUserfaultfd   = 323
	sysBpf           = 321
	sysPerfEventOpen = 298
	sysProcessVMRead = 310
	sysProcessVMWrit = 311
	sysPivotRoot     = 155
	sysSetns         = 308
)

func errno(e syscall.Errno) int { return int(e) }

func main() {
	null := uintptr(0)
	bad := ^uintptr(0) // an invalid pointer: the kernel answers EFAULT
	var calls = []struct {
		name string
		call func() syscall.Errno
	}{
		{"unshare-user", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(syscall.SYS_UNSHARE, syscall.CLONE_NEWUSER, 0, 0)
			return e
		}},
		{"unshare-net", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(syscall.SYS_UNSHARE, syscall.CLONE_NEWNET, 0, 0)
			return e
		}},
		{"clone-newuser", func() syscall.Errno {
			r, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, syscall.CLONE_NEWUSER|uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
			if e == 0 && r == 0 {
				syscall.RawSyscall(syscall.SYS_EXIT, 0, 0, 0) // the child, had the call worked
			}
			return e
		}},
		{"clone3", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(sysClone3, bad, 88, 0)
			return e
		}},
		{"keyctl", func() syscall.Errno {
			_, _, e := syscall.RawSyscall6(syscall.SYS_KEYCTL, 0x7fff, 0, 0, 0, 0, 0)
			return e
		}},
		{"add_key", func() syscall.Errno {
			_, _, e := syscall.RawSyscall6(syscall.SYS_ADD_KEY, bad, bad, null, 0, 0, 0)
			return e
		}},
		{"request_key", func() syscall.Errno {
			_, _, e := syscall.RawSyscall6(syscall.SYS_REQUEST_KEY, bad, bad, null, 0, 0, 0)
			return e
		}},
		{"bpf", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(sysBpf, 0xffff, bad, 8)
			return e
		}},
		{"perf_event_open", func() syscall.Errno {
			_, _, e := syscall.RawSyscall6(sysPerfEventOpen, bad, 0, ^uintptr(0), ^uintptr(0), 0, 0)
			return e
		}},
		{"userfaultfd", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(sysUserfaultfd, 0xffff, 0, 0)
			return e
		}},
		{"kexec_load", func() syscall.Errno {
			_, _, e := syscall.RawSyscall6(syscall.SYS_KEXEC_LOAD, 0, 0, null, 0, 0, 0)
			return e
		}},
		{"kexec_file_load", func() syscall.Errno {
			_, _, e := syscall.RawSyscall6(sysKexecFileLoad, ^uintptr(0), ^uintptr(0), 0, null, 0, 0)
			return e
		}},
		{"init_module", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(syscall.SYS_INIT_MODULE, bad, 8, bad)
			return e
		}},
		{"finit_module", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(sysFinitModule, ^uintptr(0), bad, 0)
			return e
		}},
		{"delete_module", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(syscall.SYS_DELETE_MODULE, bad, 0, 0)
			return e
		}},
		{"mount", func() syscall.Errno {
			_, _, e := syscall.RawSyscall6(syscall.SYS_MOUNT, bad, bad, bad, 0, 0, 0)
			return e
		}},
		{"umount2", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(syscall.SYS_UMOUNT2, bad, 0, 0)
			return e
		}},
		{"pivot_root", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(sysPivotRoot, bad, bad, 0)
			return e
		}},
		{"open_tree", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(sysOpenTree, ^uintptr(0), bad, 0)
			return e
		}},
		{"fsopen", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(sysFsopen, bad, 0, 0)
			return e
		}},
		{"ptrace", func() syscall.Errno {
			_, _, e := syscall.RawSyscall6(syscall.SYS_PTRACE, 0xffff, 1, 0, 0, 0, 0)
			return e
		}},
		{"process_vm_readv", func() syscall.Errno {
			_, _, e := syscall.RawSyscall6(sysProcessVMRead, uintptr(os.Getpid()), bad, 1, bad, 1, 0)
			return e
		}},
		{"process_vm_writev", func() syscall.Errno {
			_, _, e := syscall.RawSyscall6(sysProcessVMWrit, uintptr(os.Getpid()), bad, 1, bad, 1, 0)
			return e
		}},
		{"io_uring_setup", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(sysIOUringSetup, 1, bad, 0)
			return e
		}},
		{"setns", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(sysSetns, ^uintptr(0), 0, 0)
			return e
		}},
		{"socket-netlink", socket(syscall.AF_NETLINK, syscall.SOCK_RAW)},
		{"socket-packet", socket(syscall.AF_PACKET, syscall.SOCK_RAW)},
		{"socket-alg", socket(38 /* AF_ALG */, syscall.SOCK_SEQPACKET)},
		{"socket-vsock", socket(40 /* AF_VSOCK */, syscall.SOCK_STREAM)},
		{"socket-unix", socket(syscall.AF_UNIX, syscall.SOCK_STREAM)},
		{"socket-inet", socket(syscall.AF_INET, syscall.SOCK_STREAM)},
		{"socket-inet6", socket(syscall.AF_INET6, syscall.SOCK_STREAM)},
	}
	for _, c := range calls {
		fmt.Printf("%s %d\n", c.name, errno(c.call()))
	}
}

func socket(family, typ int) func() syscall.Errno {
	return func() syscall.Errno {
		fd, _, e := syscall.RawSyscall(syscall.SYS_SOCKET, uintptr(family), uintptr(typ), 0)
		if e == 0 {
			syscall.Close(int(fd))
		}
		return e
	}
}
