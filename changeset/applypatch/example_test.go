package applypatch_test

import (
	"fmt"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/changeset/applypatch"
	"github.com/nika-dev/nika/refusal"
)

// files is a changeset.Base of regular files held in memory.
type files map[string]string

func (f files) Entry(p changeset.Path) (changeset.Entry, error) {
	if s, ok := f[string(p)]; ok {
		return changeset.Entry{Kind: changeset.File, Mode: changeset.ModeFile, Bytes: []byte(s)}, nil
	}
	return changeset.Entry{Kind: changeset.Absent}, nil
}

// A model's apply_patch call, heredoc included, resolved against the base:
// the @@ line picks the function, and the Add writes a new file.
func Example() {
	input := `apply_patch <<'EOF'
*** Begin Patch
*** Update File: greet.go
@@ func Greet() string {
-	return "hello"
+	return "hello, world"
*** Add File: README.md
+# greet
*** End Patch
EOF
`
	base := files{"greet.go": "package greet\n\nfunc Greet() string {\n\treturn \"hello\"\n}\n"}
	d, err := applypatch.ParseLimit([]byte(input), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	changes, _, err := changeset.Resolve(d, base, changeset.Policy{Allow: []string{"**"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range changes {
		fmt.Printf("%s %s\n%s", c.Kind, c.Path, c.After.Bytes)
	}
	// Output:
	// create README.md
	// # greet
	// update greet.go
	// package greet
	//
	// func Greet() string {
	// 	return "hello, world"
	// }
}

// A chunk that could go in two places is refused, naming both.
func Example_ambiguous() {
	input := "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\n"
	d, _ := applypatch.ParseLimit([]byte(input), 0)
	_, _, err := changeset.Resolve(d, files{"a.txt": "x\nz\nx\n"}, changeset.Policy{Allow: []string{"**"}})
	fmt.Println(refusal.ClassOf(err), err)
	// Output:
	// Invalid patch line 3: chunk 1 of "a.txt": this context line is in the file twice, at lines 1 and 3 · add context lines to the chunk (or an @@ line) so that it matches one place
}
