//go:build !failpoints

package consent

// failpointsOn says whether this build has crash points; see failpoint.go.
const failpointsOn = false

// failpoint is a no-op in release builds; see failpoint.go.
func failpoint(string, int) {}
