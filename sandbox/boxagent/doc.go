// Package boxagent is the agent inside a box (`core sandbox agent`) and the
// bounded protocol the host speaks to it: it runs each command under a
// runner that reaps what the command leaves (`--reap`), counts the time a
// compiler runs among its processes (the build clock, which the host uses
// too), and streams output, pipes and the exit back in frames the host
// decodes as hostile.
package boxagent
