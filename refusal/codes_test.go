package refusal

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestExitCodesDocumented keeps docs/exit-codes.md and the codes table
// in step: every class has its row with its code, and every row with a
// class names one the table maps to that code.
func TestExitCodesDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`(?m)^\| *(\d+) *\| *([A-Za-z]+) *\|`).FindAllStringSubmatch(string(b), -1)
	doc := map[Class]int{}
	for _, m := range rows {
		n, _ := strconv.Atoi(m[1])
		doc[Class(m[2])] = n
	}
	for c, n := range codes {
		if got, ok := doc[c]; !ok || got != n {
			t.Errorf("class %s exits %d, docs/exit-codes.md says %d (documented: %v)", c, n, got, ok)
		}
	}
	for c, n := range doc {
		if got, ok := codes[c]; !ok || got != n {
			t.Errorf("docs/exit-codes.md maps %s to %d, the table to %d (known: %v)", c, n, got, ok)
		}
	}
}
