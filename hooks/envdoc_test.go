package hooks

import (
	"os"
	"strings"
	"testing"
)

// TestHookEnvironmentDocumented keeps docs/hooks.md's table of what a hook
// sees in step with the environment it is given.
func TestHookEnvironmentDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/hooks.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range (Env{ProposalID: "x", Root: "/r"}).environ("/r") {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("a hook sees %s, which docs/hooks.md does not document", name)
		}
	}
}
