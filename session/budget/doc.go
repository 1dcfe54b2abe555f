// Package budget is what a run may spend and send: the context window that
// turns the transcript into each request within its budget of tokens (with
// the wire estimates it is built on), what one request counts against the
// server's claimed usage, and the prices, caps and spend a report shows.
package budget
