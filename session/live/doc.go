// Package live is how a live run is reached from outside its process: the
// Unix socket in its session directory, served for the run and called by
// core session send, interrupt and stop, only from this machine and only
// as the user who started the run; and the Message a person sends it.
package live
