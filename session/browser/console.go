package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/chromedp/chromedp"
)

// ConsoleFile is the console log's name in Config.Files.
const ConsoleFile = "console.log"

// Limits of what the console keeps.
const (
	maxMessages   = 200     // kept between two looks; older ones dropped
	maxMessageLen = 2 << 10 // one message, cut beyond
	maxLogFile    = 4 << 20 // the console log on disk
)

// consoleLog keeps the page's console messages and uncaught errors until
// the model asks, and writes every one to the console log.
type consoleLog struct {
	mu      sync.Mutex
	pending []string
	dropped int
	file    *os.File
	size    int
	full    bool
}

// open creates the log file and starts collecting the tab's console.
func (c *consoleLog) open(tab context.Context, path string) error {
	// An earlier run of the session may have begun it.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("browser console log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("browser console log: %w", err)
	}
	c.mu.Lock()
	c.file, c.size = f, int(fi.Size())
	c.full = c.size >= maxLogFile
	c.mu.Unlock()
	messages := chromedp.Console(tab) // subscribed from here on
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			text := m.String()
			if m.URL != "" {
				text += fmt.Sprintf(" (%s:%d)", m.URL, m.Line+1)
			}
			c.note(text, true)
		}
	}()
	return nil
}

// note adds one line to the log, and when keep is set to what the model
// is shown next.
func (c *consoleLog) note(text string, keep bool) {
	text = strings.TrimRight(text, "\n")
	if len(text) > maxMessageLen {
		text = text[:maxMessageLen] + " [... cut]"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if keep {
		if len(c.pending) >= maxMessages {
			c.pending = c.pending[1:]
			c.dropped++
		}
		c.pending = append(c.pending, text)
	}
	if c.file == nil || c.full {
		return
	}
	line := text + "\n"
	if c.size+len(line) > maxLogFile {
		line, c.full = "[... the console log is full; later messages are not kept]\n", true
	}
	n, _ := c.file.WriteString(line)
	c.size += n
}

// take returns the lines since the last take, and how many older ones
// were dropped.
func (c *consoleLog) take() ([]string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	lines, dropped := c.pending, c.dropped
	c.pending, c.dropped = nil, 0
	return lines, dropped
}

func (c *consoleLog) written() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size > 0
}

// close closes the file, and removes it when nothing was written.
func (c *consoleLog) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == nil {
		return nil
	}
	f := c.file
	c.file = nil
	err := f.Close()
	if c.size == 0 {
		if rerr := os.Remove(f.Name()); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}
