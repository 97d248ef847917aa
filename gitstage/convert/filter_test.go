package convert

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestMain lets the test binary serve as a long-running filter process
// (NIKA_TEST_FILTER=upper): clean upper-cases, smudge lower-cases, over
// git's protocol. NIKA_TEST_FILTER_CAPS limits the capabilities it
// announces.
func TestMain(m *testing.M) {
	if mode := os.Getenv("NIKA_TEST_FILTER"); mode != "" {
		serveFilter(mode, os.Getenv("NIKA_TEST_FILTER_CAPS"))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serveFilter(mode, caps string) {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	if _, err := readText(in); err != nil {
		return
	}
	writeText(out, "git-filter-server", "version=2")
	out.Flush()
	if _, err := readText(in); err != nil {
		return
	}
	if caps == "" {
		caps = "clean,smudge"
	}
	var cl []string
	for _, c := range strings.Split(caps, ",") {
		cl = append(cl, "capability="+c)
	}
	writeText(out, cl...)
	out.Flush()
	for {
		hdr, err := readText(in)
		if err != nil {
			return
		}
		var content bytes.Buffer
		for {
			d, flush, err := readPkt(in)
			if err != nil {
				return
			}
			if flush {
				break
			}
			content.Write(d)
		}
		res := content.Bytes()
		switch {
		case mode == "fail":
			writeText(out, "status=error")
			out.Flush()
			continue
		case hdr[0] == "command=clean":
			res = bytes.ToUpper(res)
		default:
			res = bytes.ToLower(res)
		}
		writeText(out, "status=success")
		for len(res) > 0 {
			n := min(len(res), maxPktData)
			writePkt(out, res[:n])
			res = res[n:]
		}
		writeFlush(out)
		writeFlush(out) // the status stays success
		out.Flush()
	}
}

// TestSingleFiltersAsGit: clean and smudge commands run through the shell
// with %f quoted as git quotes it, as git add and git checkout run them.
func TestSingleFiltersAsGit(t *testing.T) {
	s := newScratch(t)
	// The filter records the %f it was given, to prove the quoting.
	s.git("config", "filter.up.clean", `tr a-z A-Z; printf '%s\n' %f >> ../seen`)
	s.git("config", "filter.up.smudge", "tr A-Z a-z")
	s.write(".gitattributes", []byte("*.u filter=up\n*.m filter=missing\n"))
	files := map[string]string{"a b.u": "hello\n", "it's.u": "x\n", "e.u": "", "c.m": "as is\n"}
	for p, b := range files {
		s.write(p, []byte(b))
	}
	s.git("add", ".")
	gitSeen, _ := os.ReadFile(filepath.Join(filepath.Dir(s.dir), "seen"))
	os.Remove(filepath.Join(filepath.Dir(s.dir), "seen"))
	conv := s.converter()
	for p, b := range files {
		pl := conv.Plan(p)
		blob := []byte(s.git("cat-file", "blob", ":"+p))
		got, warns, err := conv.ToGit(pl, []byte(b), nil)
		if err != nil || len(warns) > 0 || !bytes.Equal(got, blob) {
			t.Errorf("%s: ToGit %q %v %v, git %q", p, got, warns, err, blob)
		}
		os.Remove(filepath.Join(s.dir, p))
		s.git("checkout", "--", p)
		out, _, err := conv.ToWorkTree(pl, blob)
		if disk := s.read(p); err != nil || !bytes.Equal(out, disk) {
			t.Errorf("%s: ToWorkTree %q %v, git %q", p, out, err, disk)
		}
	}
	ourSeen, _ := os.ReadFile(filepath.Join(filepath.Dir(s.dir), "seen"))
	if sortLines(string(gitSeen)) != sortLines(string(ourSeen)) || !strings.Contains(string(ourSeen), "it's.u") {
		t.Errorf("%%f: git gave %q, we gave %q", gitSeen, ourSeen)
	}
	if pl := conv.Plan("c.m"); pl.FilterName != "missing" || pl.Filter != nil || !pl.Identity() {
		t.Errorf("a filter without configuration must pass through: %+v", pl)
	}
}

// sortLines is the set of lines, sorted.
func sortLines(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	set := map[string]bool{}
	for _, l := range ls {
		set[l] = true
	}
	ls = ls[:0]
	for l := range set {
		ls = append(ls, l)
	}
	sort.Strings(ls)
	return strings.Join(ls, "\n")
}

// TestFilterFailureAsGit: a failing filter that is not required passes
// the bytes through (git warns); a required one refuses (git dies); a
// required driver without a command for the direction refuses too.
func TestFilterFailureAsGit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      []string
		wantFail bool
	}{
		{"fails", []string{"filter.f.clean", "exit 3"}, false},
		{"fails-required", []string{"filter.f.clean", "exit 3", "filter.f.required", "true"}, true},
		{"no-clean-required", []string{"filter.f.smudge", "cat", "filter.f.required", "true"}, true},
		{"no-clean", []string{"filter.f.smudge", "cat"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScratch(t)
			for i := 0; i < len(tc.cfg); i += 2 {
				s.git("config", tc.cfg[i], tc.cfg[i+1])
			}
			s.write(".gitattributes", []byte("*.f filter=f\n"))
			s.write("a.f", []byte("bytes\n"))
			_, gerr, err := s.run(nil, "add", "a.f")
			conv := s.converter()
			got, warns, cerr := conv.ToGit(conv.Plan("a.f"), []byte("bytes\n"), nil)
			if (err != nil) != tc.wantFail || (cerr != nil) != tc.wantFail {
				t.Fatalf("git add: %v %s; ToGit: %v; want failure %v", err, gerr, cerr, tc.wantFail)
			}
			if tc.wantFail {
				return
			}
			if blob := s.git("cat-file", "blob", ":a.f"); string(got) != blob {
				t.Errorf("ToGit %q, git %q", got, blob)
			}
			if gitWarned := strings.Contains(gerr, "error:"); gitWarned != (len(warns) > 0) {
				t.Errorf("git said %q; warnings %v", gerr, warns)
			}
		})
	}
}

func testBinary(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestProcessFilterAsGit: the long-running protocol, with this test binary
// as the filter process, gives the blobs and disk bytes git gives with the
// same process.
func TestProcessFilterAsGit(t *testing.T) {
	s := newScratch(t)
	s.env = append(s.env, "NIKA_TEST_FILTER=upper")
	s.git("config", "filter.p.process", shellQuote(testBinary(t)))
	s.git("config", "filter.p.clean", "false") // the process wins over clean
	s.write(".gitattributes", []byte("*.p filter=p\n"))
	big := strings.Repeat("abcdefgh", 20000) // more than one packet
	files := map[string]string{"a.p": "hello\n", "b.p": big, "e.p": ""}
	for p, b := range files {
		s.write(p, []byte(b))
	}
	s.git("add", ".")
	conv := s.converter()
	defer conv.Close()
	for p, b := range files {
		pl := conv.Plan(p)
		blob := []byte(s.git("cat-file", "blob", ":"+p))
		got, warns, err := conv.ToGit(pl, []byte(b), nil)
		if err != nil || len(warns) > 0 || !bytes.Equal(got, blob) {
			t.Errorf("%s: ToGit %.40q %v %v, git %.40q", p, got, warns, err, blob)
		}
		os.Remove(filepath.Join(s.dir, p))
		s.git("checkout", "--", p)
		out, _, err := conv.ToWorkTree(pl, blob)
		if disk := s.read(p); err != nil || !bytes.Equal(out, disk) {
			t.Errorf("%s: ToWorkTree %.40q %v, git %.40q", p, out, err, disk)
		}
	}
	if len(conv.procs) != 1 {
		t.Errorf("one process serves every file: %d", len(conv.procs))
	}
	if err := conv.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// TestProcessFilterCapabilities: a process without the smudge capability
// passes the bytes through at checkout unless the driver is required; a
// process that answers status=error fails the file.
func TestProcessFilterCapabilities(t *testing.T) {
	s := newScratch(t)
	s.env = append(s.env, "NIKA_TEST_FILTER=upper", "NIKA_TEST_FILTER_CAPS=clean")
	s.git("config", "filter.p.process", shellQuote(testBinary(t)))
	s.write(".gitattributes", []byte("*.p filter=p\n"))
	s.write("a.p", []byte("hello\n"))
	s.git("add", ".")
	os.Remove(filepath.Join(s.dir, "a.p"))
	s.git("checkout", "--", "a.p")
	conv := s.converter()
	defer conv.Close()
	out, _, err := conv.ToWorkTree(conv.Plan("a.p"), []byte("HELLO\n"))
	if disk := s.read("a.p"); err != nil || !bytes.Equal(out, disk) {
		t.Errorf("ToWorkTree %q %v, git %q", out, err, disk)
	}
	s.git("config", "filter.p.required", "true")
	os.Remove(filepath.Join(s.dir, "a.p"))
	if _, _, err := s.run(nil, "checkout", "--", "a.p"); err == nil {
		t.Fatal("git checkout must fail with a required filter that cannot smudge")
	}
	conv2 := s.converter()
	defer conv2.Close()
	if _, _, err := conv2.ToWorkTree(conv2.Plan("a.p"), []byte("HELLO\n")); err == nil {
		t.Fatal("a required filter without smudge must fail")
	}

	f := newScratch(t)
	f.env = append(f.env, "NIKA_TEST_FILTER=fail")
	f.git("config", "filter.p.process", shellQuote(testBinary(t)))
	f.git("config", "filter.p.required", "true")
	f.write(".gitattributes", []byte("*.p filter=p\n"))
	f.write("a.p", []byte("x\n"))
	if _, _, err := f.run(nil, "add", "a.p"); err == nil {
		t.Fatal("git add must fail when the required process answers status=error")
	}
	conv3 := f.converter()
	defer conv3.Close()
	if _, _, err := conv3.ToGit(conv3.Plan("a.p"), []byte("x\n"), nil); err == nil {
		t.Fatal("ToGit must fail when the required process answers status=error")
	}
}

// TestGitLFSAsGit: with the real git-lfs, the clean side stores the
// object in .git/lfs and the blob is the pointer git add stores; the
// smudge of that pointer works offline from the local store.
func TestGitLFSAsGit(t *testing.T) {
	if _, err := exec.LookPath("git-lfs"); err != nil {
		t.Skip("git-lfs is not installed: the LFS rows are not tested here")
	}
	s := newScratch(t)
	s.git("lfs", "install", "--local")
	s.write(".gitattributes", []byte("*.bin filter=lfs diff=lfs merge=lfs -text\n"))
	s.git("add", ".gitattributes")
	s.git("commit", "-qm", "lfs")
	content := []byte("large \x00 content\n")
	conv := s.converter()
	defer conv.Close()
	pl := conv.Plan("x.bin")
	if pl.Filter == nil || pl.Filter.Process == "" || !pl.Filter.Required {
		t.Fatalf("git lfs install sets a required process filter: %+v", pl.Filter)
	}
	ptr, warns, err := conv.ToGit(pl, content, nil)
	if err != nil || len(warns) > 0 {
		t.Fatalf("clean: %v %v", err, warns)
	}
	if !bytes.HasPrefix(ptr, []byte("version https://git-lfs.github.com/spec/v1\n")) {
		t.Fatalf("not a pointer: %q", ptr)
	}
	s.write("x.bin", content)
	s.git("add", "x.bin")
	if blob := s.git("cat-file", "blob", ":x.bin"); blob != string(ptr) {
		t.Fatalf("git add stored %q, ToGit %q", blob, ptr)
	}
	out, _, err := conv.ToWorkTree(pl, ptr)
	if err != nil || !bytes.Equal(out, content) {
		t.Fatalf("smudge: %q %v", out, err)
	}
}
