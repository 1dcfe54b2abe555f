package live

// Message is what a person sends a live run: it enters the transcript
// between turns, or wakes an idle run, with who sent it.
type Message struct {
	// From names the sender as the run's users know them: a GitHub
	// login, or the local user for the command line.
	From string
	Text string
}
