package gh

import "time"

// Edited reports whether the comment was changed after it was posted:
// GitHub's updated_at is past its created_at. An edit may be anyone's
// with write access, not the author's, so an edited comment is not read
// as its author's message.
func (c Comment) Edited() bool { return c.UpdatedAt.After(c.CreatedAt) }

// MessageAfter reports whether the comment may be read as a message to a
// run that started at start: written at or after it, and never edited.
func (c Comment) MessageAfter(start time.Time) bool {
	return !c.CreatedAt.Before(start) && !c.Edited()
}
