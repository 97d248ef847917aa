package checker

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

// nika check audits its files on several goroutines: audits that run at
// the same time share nothing but the checker's read-only tables, and give
// exactly the reports they give one at a time (go test -race proves the
// first part).
func TestConcurrentAuditsAgreeWithSequential(t *testing.T) {
	root := specDir(t)
	type file struct {
		dir, name string
		data      []byte
	}
	var files []file
	for _, sub := range []string{"examples", "templates", "conformance"} {
		filepath.WalkDir(filepath.Join(root, sub), func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() || filepath.Ext(p) != ".yaml" {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, file{filepath.Dir(p), filepath.Base(p), data})
			return nil
		})
	}
	if len(files) < 10 {
		t.Skipf("only %d YAML files in the spec", len(files))
	}
	want := make([]Report, len(files))
	findings := 0
	for i, f := range files {
		want[i] = CheckFS(os.DirFS(f.dir), f.name, f.data)
		findings += len(want[i].Findings)
	}
	if findings == 0 {
		t.Fatal("the corpus gave no finding at all: the comparison would prove little")
	}
	got := make([]Report, len(files))
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(files); i += 4 {
				got[i] = CheckFS(os.DirFS(files[i].dir), files[i].name, files[i].data)
			}
		}(w)
	}
	wg.Wait()
	for i := range files {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s: the concurrent audit differs:\n got %+v\nwant %+v", files[i].name, got[i], want[i])
		}
	}
}
