package remote

// LineHash is lineHash, for tests that rewrite a trail as an intruder would.
var LineHash = lineHash
