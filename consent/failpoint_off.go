//go:build !failpoints

package consent

// failpoint is a no-op in release builds; see failpoint.go.
func failpoint(string, int) {}
