package statefile

import (
	"crypto/sha256"
	"encoding/hex"
)

// Sum is the name of a version of a file: the sha256 of its bytes as 64
// lower-case hex digits, as redirect's --expect-sha256, the journal, cat
// --follow's lines and the remote stream name versions.
func Sum(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
