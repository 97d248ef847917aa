package searchreplace_test

import (
	"fmt"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/changeset/searchreplace"
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

// A model's reply with prose and two blocks: an edit of an existing file,
// and a new file (an empty SEARCH).
func Example() {
	input := "I'll make the greeting louder and add a test file.\n" +
		"\n" +
		"greet.go\n" +
		"```go\n" +
		"<<<<<<< SEARCH\n" +
		"\treturn \"hello\"\n" +
		"=======\n" +
		"\treturn \"HELLO\"\n" +
		">>>>>>> REPLACE\n" +
		"```\n" +
		"\n" +
		"greet_test.go\n" +
		"```go\n" +
		"<<<<<<< SEARCH\n" +
		"=======\n" +
		"package greet\n" +
		">>>>>>> REPLACE\n" +
		"```\n"
	base := files{"greet.go": "package greet\n\nfunc Greet() string {\n\treturn \"hello\"\n}\n"}
	d, err := searchreplace.ParseLimit([]byte(input), 0)
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
	// update greet.go
	// package greet
	//
	// func Greet() string {
	// 	return "HELLO"
	// }
	// create greet_test.go
	// package greet
}

// An empty SEARCH on a file that exists is refused: it creates files, it
// never appends to bytes the model did not show.
func Example_emptySearchOnExistingFile() {
	input := "greet.go\n```go\n<<<<<<< SEARCH\n=======\nfunc Bye() {}\n>>>>>>> REPLACE\n```\n"
	d, _ := searchreplace.ParseLimit([]byte(input), 0)
	_, _, err := changeset.Resolve(d, files{"greet.go": "package greet\n"}, changeset.Policy{Allow: []string{"**"}})
	fmt.Println(refusal.ClassOf(err), err)
	// Output:
	// NotAllowed search-replace line 1: path "greet.go" already exists · propose an update of the file instead
}
