// Package gate is what runs around one confined bwrap command: bwrap holds
// the command's first process at a gate (--block-fd, --info-fd) while core
// puts it in its cgroups and sets its rlimits (Launch, Release), with the
// seccomp program on its fd; the watch of the workspace's growth; and, once
// it ended, the name of the limit it hit (Finish, LimitFromOutput).
package gate
