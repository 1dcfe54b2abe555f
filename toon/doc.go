// Package toon implements TOON (Token-Oriented Object Notation), a compact,
// line-oriented, indentation-based text format for the JSON data model, as
// defined by the TOON specification version 3.3
// (https://github.com/toon-format/spec).
//
// # Data model
//
// Decoding produces generic values built from these Go types:
//
//   - [Object] for objects (an ordered slice of [Member]; key order is preserved),
//   - []any for arrays,
//   - string for strings,
//   - int64 for numbers whose value is an integer in the int64 range (so 42,
//     1e6, 1.0 and -0 all decode as int64),
//   - float64 for other numbers that a float64 holds without loss, meaning
//     the nearest float64 renders back to the same canonical decimal (1.5,
//     0.1, 1e-7, 1e20),
//   - [Number] for every other number, keeping its literal text (for example
//     9223372036854775808, 1e400, or 0.10000000000000000001), so decoding
//     never silently loses digits,
//   - bool for true and false,
//   - nil for null.
//
// With the [UseNumber] option every number decodes as a [Number] holding the
// token text, which is lossless.
//
// # Decoding
//
// [Decode] and [Unmarshal] parse a document. Strict mode is on by default and
// enforces every check of the specification's §14 checklist (declared array
// lengths, tabular row widths, indentation multiples, tabs in indentation,
// blank lines inside arrays, invalid escapes, missing colons, malformed array
// headers, header delimiter mismatches, duplicate keys, path-expansion
// conflicts). Errors are reported as *[SyntaxError] values naming the line.
//
// Decisions where the specification leaves room:
//
//   - Unquoted keys must match ^[A-Za-z_][A-Za-z0-9_.]*$ (§7.3) in strict mode;
//     non-strict mode accepts any text before the colon as a literal key.
//   - Tabs are never accepted as indentation, in strict or non-strict mode.
//   - A carriage return immediately before a line feed (CRLF) is treated as
//     part of the line ending; any other CR is content.
//   - The input must be valid UTF-8; raw control characters other than HTAB are
//     rejected inside quoted strings (they must be escaped, §7.1).
//   - In strict mode a blank line anywhere between an array header and the last
//     line belonging to that array is an error (§12 "inside arrays").
//   - A list item "- [N]{fields}:" (a keyless tabular header) is accepted, with
//     its rows one level below the hyphen, although encoders never emit it.
//   - In non-strict mode tabular rows of the wrong width are accepted: extra
//     values are dropped and missing fields are omitted.
//   - A full-line comment is dropped before any other check, as the
//     reference TypeScript implementation (@toon-format/toon 4.x) does: a
//     line whose first character after its leading spaces is "#" (a line
//     indented with a tab is not a comment). A "#" later in a line is
//     content.
//
// # Encoding
//
// [Marshal] renders a Go value as canonical TOON: objects with "key: value"
// lines, inline primitive arrays, tabular arrays for uniform arrays of
// objects with primitive values, and expanded "- " lists otherwise. Numbers
// use the canonical decimal form of §2; values below 1e-6 or at least 1e21 in
// magnitude use exponent form with a lowercase e and a signed exponent
// (1e-7, 1.5e+21). A string that begins with "#" is quoted, so no line of
// the output reads as a comment. Options select the indent size, the delimiter (comma, tab
// or pipe) and safe key folding with an optional flatten depth.
//
// As §9.3 requires, an array of objects that share one key set is written in
// tabular form even when the objects list their keys in different orders;
// the header takes the first object's order, so decoding the output yields
// every row in that order. Everywhere else key order is preserved.
//
// Go values are normalized to the JSON data model as follows: nil pointers,
// interfaces, maps and slices become null; NaN and ±Inf become null; structs
// become objects (fields in declaration order, named by the "toon" struct tag,
// else the "json" tag, else the field name, honoring "omitempty", "omitzero"
// and "-"); maps become objects with sorted keys; []byte becomes a base64
// string; types implementing json.Marshaler are encoded from the JSON they
// produce, and types implementing encoding.TextMarshaler (for example
// time.Time) become strings. Channels, functions and complex numbers are
// rejected with an *[UnsupportedTypeError].
package toon
