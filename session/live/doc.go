// Package live is how a live run is seen and reached from outside its
// process: its event log (events.jsonl, which core session watch and the
// console follow); its Control (messages, an interrupt, a stop), made by
// an entry point and driven by the run's loop; the Unix socket in its
// session directory, served for the run and called by core session send,
// interrupt and stop, only from this machine and only as the user who
// started the run; and the Message a person sends it.
package live
