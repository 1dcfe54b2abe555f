package status

import (
	"fmt"
	"strconv"
	"strings"
)

// editedPrefix starts the marker of the notice core leaves under a comment
// it did not read as a message because it was edited:
// <!-- core:edited:<comment-id> -->. The reader finds it and does not
// post a second notice for the same comment.
const editedPrefix = "<!-- core:edited:"

// EditedMarker marks the notice about comment id.
func EditedMarker(id int64) string {
	return editedPrefix + strconv.FormatInt(id, 10) + markerEnd
}

// EditedNotice is the notice to the author of comment id, which was edited
// after it was posted and so is not read as a message from the run's
// starter: anyone with write access may edit anyone's comment, and core
// cannot tell who wrote what it says now.
func EditedNotice(author string, id int64, starter string) string {
	return fmt.Sprintf("core: @%s, your comment was edited after it was posted, so core does not read it as a message from @%s: anyone with write access can edit a comment, and core cannot tell who wrote what it says now. Post the message as a new comment instead.\n\n%s",
		author, starter, EditedMarker(id))
}

// HasEditedNotice reports whether body is core's notice about comment id.
func HasEditedNotice(body string, id int64) bool {
	return strings.Contains(body, EditedMarker(id))
}
