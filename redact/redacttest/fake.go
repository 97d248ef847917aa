// Package redacttest builds secrets for tests: deterministic high-entropy
// strings that look like real credentials to a detector (which judges
// entropy) without being any, so that no file of the repository holds one
// whole; they are built when a test runs.
package redacttest

// Alphabets of the usual secret shapes.
const (
	Alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	Lower = "abcdefghijklmnopqrstuvwxyz0123456789"
	Hex   = "0123456789abcdef"
	Upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	B64   = Alnum + "+/"
)

// Fake is a string of n characters from alphabet, the same for the same
// seed.
func Fake(seed uint32, alphabet string, n int) string {
	b := make([]byte, n)
	x := seed*2654435761 + 12345
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = alphabet[int(x%uint32(len(alphabet)))]
	}
	return string(b)
}
