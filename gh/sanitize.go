package gh

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	htmlComment  = regexp.MustCompile(`(?s)<!--.*?(-->|$)`)
	markdownAlt  = regexp.MustCompile(`!\[[^\]]*\]\(`)
	refImageAlt  = regexp.MustCompile(`!\[[^\]]*\]\[`)
	htmlAltAttr  = regexp.MustCompile(`(?i)(<img\b[^>]*?)\s+alt\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)
	htmlTitle    = regexp.MustCompile(`(?i)(<img\b[^>]*?)\s+title\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)
	detailsBlock = regexp.MustCompile(`(?is)<(script|style)\b.*?</(script|style)\s*>`)
)

// Sanitize removes from issue and comment text what people do not see on
// GitHub but a model would read: HTML comments, invisible and zero-width
// characters (and the bidirectional controls that reorder what is shown),
// image alt text and titles, and script or style blocks.
func Sanitize(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = htmlComment.ReplaceAllString(s, "")
	s = detailsBlock.ReplaceAllString(s, "")
	s = markdownAlt.ReplaceAllString(s, "![](")
	s = refImageAlt.ReplaceAllString(s, "![][")
	for htmlAltAttr.MatchString(s) {
		s = htmlAltAttr.ReplaceAllString(s, "$1")
	}
	for htmlTitle.MatchString(s) {
		s = htmlTitle.ReplaceAllString(s, "$1")
	}
	return strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, s)
}

// invisible reports whether a rune renders as nothing: format characters
// (zero-width spaces and joiners, bidi controls, the BOM, tag characters),
// variation selectors and other default-ignorable code points. Newlines and
// tabs stay.
func invisible(r rune) bool {
	switch {
	case r == '\n' || r == '\t' || r == '\r':
		return false
	case unicode.Is(unicode.Cf, r): // format: U+200B..U+200F, U+202A..U+202E, U+2060..U+2064, U+FEFF, U+E0000..
		return true
	case unicode.Is(unicode.Cc, r): // other control characters
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF: // variation selectors
		return true
	case r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0: // Hangul fillers
		return true
	case r == 0x034F || r == 0x180B || r == 0x180C || r == 0x180D || r == 0x180E || r == 0x180F:
		return true
	case unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r): // private use, surrogates
		return true
	}
	return false
}
