package convert

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/gitstage/gittest"
)

// The tests here take git itself as the witness: the same bytes, the same
// attributes and the same configuration, given to `git add` and `git
// checkout` in a scratch repository, must give the blob ToGit gives and
// the disk bytes ToWorkTree gives.

type scratch struct {
	t   *testing.T
	dir string
	env []string
}

func newScratch(t *testing.T) *scratch {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	gittest.Setenv(t, root)
	s := &scratch{t: t, dir: filepath.Join(root, "w"), env: append(os.Environ(), "LC_ALL=C")}
	s.git("init", "-q", "-b", "main", s.dir)
	return s
}

func (s *scratch) git(args ...string) string {
	s.t.Helper()
	out, errs, err := s.run(nil, args...)
	if err != nil {
		s.t.Fatalf("git %v: %v\n%s%s", args, err, out, errs)
	}
	return out
}

func (s *scratch) run(stdin []byte, args ...string) (string, string, error) {
	c := exec.Command("git", args...)
	c.Dir, c.Env = s.dir, s.env
	if _, err := os.Stat(s.dir); err != nil {
		c.Dir = filepath.Dir(s.dir)
	}
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	err := c.Run()
	return o.String(), e.String(), err
}

func (s *scratch) write(rel string, b []byte) {
	s.t.Helper()
	p := filepath.Join(s.dir, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *scratch) read(rel string) []byte {
	b, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(rel)))
	if err != nil {
		s.t.Fatal(err)
	}
	return b
}

// blobs reads the index's blobs at paths with one git cat-file --batch.
func (s *scratch) blobs(paths []string) map[string][]byte {
	s.t.Helper()
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(":" + p + "\n")
	}
	out, errs, err := s.run(in.Bytes(), "cat-file", "--batch")
	if err != nil {
		s.t.Fatalf("cat-file: %v %s", err, errs)
	}
	m := map[string][]byte{}
	rest := []byte(out)
	for _, p := range paths {
		i := bytes.IndexByte(rest, '\n')
		var n int
		fmt.Sscanf(string(rest[:i]), "%s blob %d", new(string), &n)
		m[p] = rest[i+1 : i+1+n]
		rest = rest[i+1+n+1:]
	}
	return m
}

// config reads the scratch repository's configuration through git.
type gitConfig struct{ s *scratch }

func (g gitConfig) Get(k string) (string, bool) {
	out, _, err := g.s.run(nil, "config", "--get", k)
	if err != nil {
		return "", false
	}
	return strings.TrimSuffix(out, "\n"), true
}

// converter builds a Converter over the scratch repository's files.
func (s *scratch) converter() *Converter {
	info, _ := os.ReadFile(filepath.Join(s.dir, ".git", "info", "attributes"))
	attrs := NewAttributes(nil, nil, info, func(dir string) ([]byte, bool) {
		b, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(dir), ".gitattributes"))
		return b, err == nil
	})
	return New(Options{Config: gitConfig{s}, Attrs: attrs, Root: s.dir, Env: s.env})
}

var contents = []struct {
	name string
	b    string
}{
	{"lf", "a\nb\n"},
	{"crlf", "a\r\nb\r\n"},
	{"mixed", "a\r\nb\nc\r\n"},
	{"lonecr", "a\rb\n"},
	{"nul", "a\x00b\r\nc\n"},
	{"empty", ""},
	{"nonl", "a\r\nb"},
	{"ctrl", strings.Repeat("\x01", 3) + "ab\r\n"},
	{"eof", "a\r\nb\r\n\x1a"},
}

var attrLines = []string{
	"", "text", "-text", "text=auto", "eol=crlf", "eol=lf", "text eol=crlf", "text=auto eol=crlf",
	"text=auto eol=lf", "crlf", "-crlf", "crlf=input", "binary", "text=input", "-text eol=crlf",
}

var configs = [][]string{
	nil,
	{"core.autocrlf", "true"},
	{"core.autocrlf", "input"},
	{"core.eol", "crlf"},
	{"core.eol", "lf", "core.autocrlf", "true"},
	{"core.eol", "native"},
}

// TestLineEndingsAsGit runs every content under every attribute line and
// configuration through git add and git checkout, and through the
// package, and compares blobs and disk bytes.
func TestLineEndingsAsGit(t *testing.T) {
	for _, cfg := range configs {
		t.Run(fmt.Sprint(cfg), func(t *testing.T) {
			s := newScratch(t)
			s.git("config", "core.safecrlf", "false")
			for i := 0; i+1 < len(cfg); i += 2 {
				s.git("config", cfg[i], cfg[i+1])
			}
			// one prefix per attribute line, in one repository
			var ga strings.Builder
			for ai, attr := range attrLines {
				if attr != "" {
					fmt.Fprintf(&ga, "a%d-* %s\n", ai, attr)
				}
				for _, c := range contents {
					s.write(fmt.Sprintf("a%d-%s", ai, c.name), []byte(c.b))
				}
			}
			s.write(".gitattributes", []byte(ga.String()))
			s.git("add", ".")
			conv := s.converter()
			var paths []string
			for ai := range attrLines {
				for _, c := range contents {
					paths = append(paths, fmt.Sprintf("a%d-%s", ai, c.name))
				}
			}
			blobs := s.blobs(paths)
			for ai := range attrLines {
				for _, c := range contents {
					p := fmt.Sprintf("a%d-%s", ai, c.name)
					pl := conv.Plan(p)
					blob := blobs[p]
					got, _, err := conv.ToGit(pl, []byte(c.b), nil)
					if err != nil {
						t.Fatalf("%s: %v", p, err)
					}
					if !bytes.Equal(got, blob) {
						t.Errorf("%s %q (plan %+v): ToGit %q, git add stored %q", p, attrLines[ai], pl, got, blob)
					}
					os.Remove(filepath.Join(s.dir, p))
				}
			}
			s.git("checkout", "--", ".")
			for ai := range attrLines {
				for _, c := range contents {
					p := fmt.Sprintf("a%d-%s", ai, c.name)
					pl := conv.Plan(p)
					out, _, err := conv.ToWorkTree(pl, blobs[p])
					if err != nil {
						t.Fatalf("%s: %v", p, err)
					}
					if disk := s.read(p); !bytes.Equal(out, disk) {
						t.Errorf("%s %q (plan %+v): ToWorkTree %q, git checkout wrote %q", p, attrLines[ai], pl, out, disk)
					}
				}
			}
		})
	}
}

// TestAutoKeepsCRLFInIndex: text=auto leaves alone a file whose blob in
// the index already holds CRLF (git's "safer autocrlf"), as git add does.
func TestAutoKeepsCRLFInIndex(t *testing.T) {
	s := newScratch(t)
	s.write("f", []byte("a\r\nb\r\n"))
	s.git("add", "f")
	s.git("config", "core.autocrlf", "true")
	s.git("config", "core.safecrlf", "false")
	s.write("f", []byte("a\r\nb\r\nc\r\n"))
	index := []byte(s.git("cat-file", "blob", ":f"))
	s.git("add", "f")
	conv := s.converter()
	got, _, err := conv.ToGit(conv.Plan("f"), []byte("a\r\nb\r\nc\r\n"), index)
	if err != nil {
		t.Fatal(err)
	}
	if want := s.git("cat-file", "blob", ":f"); string(got) != want {
		t.Fatalf("ToGit %q, git add %q", got, want)
	}
	if string(got) != "a\r\nb\r\nc\r\n" {
		t.Fatalf("the CRLF the index held was normalized: %q", got)
	}
}

// TestSafeCRLFAsGit: core.safecrlf=true refuses, warn warns, as git add.
func TestSafeCRLFAsGit(t *testing.T) {
	for _, tc := range []struct {
		autocrlf, content string
	}{
		{"true", "a\r\nb\n"},    // LF would be replaced by CRLF
		{"input", "a\r\nb\r\n"}, // CRLF would be replaced by LF
		{"true", "a\r\nb\r\n"},  // round-trips
	} {
		for _, mode := range []string{"true", "warn", "false"} {
			t.Run(tc.autocrlf+"/"+mode+"/"+fmt.Sprintf("%q", tc.content), func(t *testing.T) {
				s := newScratch(t)
				s.git("config", "core.autocrlf", tc.autocrlf)
				s.git("config", "core.safecrlf", mode)
				s.write("f", []byte(tc.content))
				_, gerr, err := s.run(nil, "add", "f")
				conv := s.converter()
				_, warns, cerr := conv.ToGit(conv.Plan("f"), []byte(tc.content), nil)
				if (err != nil) != (cerr != nil) {
					t.Fatalf("git add: %v %s; ToGit: %v", err, gerr, cerr)
				}
				if cerr != nil && !strings.Contains(gerr, cerr.Error()) {
					t.Errorf("git said %q, ToGit %q", gerr, cerr)
				}
				gitWarned := strings.Contains(gerr, "warning:")
				if gitWarned != (len(warns) > 0) {
					t.Errorf("git warned %v (%q), ToGit warnings %v", gitWarned, gerr, warns)
				}
				if len(warns) > 0 {
					what := "LF will be replaced by CRLF"
					if warns[0].RoundTrip == CRLFBecomesLF {
						what = "CRLF will be replaced by LF"
					}
					if !strings.Contains(gerr, what) {
						t.Errorf("git warned %q, ToGit %v", gerr, warns[0].RoundTrip)
					}
				}
			})
		}
	}
}

// TestAttributesAsGit compares Lookup with git check-attr over nested
// .gitattributes, info/attributes, macros, anchored and ** patterns.
func TestAttributesAsGit(t *testing.T) {
	s := newScratch(t)
	s.write(".gitattributes", []byte("[attr]crlftext text eol=crlf\n*.txt text\n/top.md crlftext\ndocs/**/*.bin binary\n*.x -text\n\"sp ace.q\" eol=lf\n!*.neg text\ndir/ text\n"))
	s.write("sub/.gitattributes", []byte("*.txt -text\n[attr]nope text\n*.y nope eol=crlf\ndeep/*.c text=auto\n"))
	s.write(".git/info/attributes", []byte("info.txt eol=crlf\n*.x !text\n"))
	paths := []string{"a.txt", "sub/a.txt", "top.md", "sub/top.md", "docs/a/b/c.bin", "docs/c.bin", "a.x", "sp ace.q",
		"f.neg", "dir", "dir/a", "sub/a.y", "sub/deep/a.c", "sub/x/deep/a.c", "info.txt", "sub/info.txt"}
	conv := s.converter()
	for _, p := range paths {
		out := s.git("check-attr", "text", "eol", "diff", "-z", "--", p)
		f := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
		got := conv.opt.Attrs.Lookup(p)
		for i := 0; i+2 < len(f); i += 3 {
			name, want := f[i+1], f[i+2]
			a := got[name]
			var have string
			switch a.State {
			case Unspecified:
				have = "unspecified"
			case Set:
				have = "set"
			case Unset:
				have = "unset"
			default:
				have = a.Value
			}
			if have != want {
				t.Errorf("%s: %s is %s in git, %s here", p, name, want, have)
			}
		}
	}
}

// TestEncodingAsGit: working-tree-encoding round trips as git's, and git's
// BOM rules refuse what git refuses.
func TestEncodingAsGit(t *testing.T) {
	s := newScratch(t)
	s.git("config", "core.safecrlf", "false")
	s.write(".gitattributes", []byte("*.u16 working-tree-encoding=UTF-16\n*.le working-tree-encoding=UTF-16LE\n*.l1 working-tree-encoding=ISO-8859-1\n*.crlf working-tree-encoding=UTF-16LE eol=crlf\n*.u8 working-tree-encoding=utf-8\n"))
	files := map[string][]byte{
		"a.u16":  {0xff, 0xfe, 'h', 0, 0xe9, 0, '\n', 0},
		"b.le":   {'h', 0, 0xe9, 0, '\n', 0},
		"c.l1":   {'h', 0xe9, '\n'},
		"d.crlf": {'a', 0, '\r', 0, '\n', 0},
		"e.u8":   []byte("h\xc3\xa9\n"),
	}
	for p, b := range files {
		s.write(p, b)
	}
	s.git("add", ".")
	conv := s.converter()
	for p, b := range files {
		pl := conv.Plan(p)
		blob := []byte(s.git("cat-file", "blob", ":"+p))
		got, _, err := conv.ToGit(pl, b, nil)
		if err != nil || !bytes.Equal(got, blob) {
			t.Errorf("%s: ToGit %q %v, git %q", p, got, err, blob)
		}
		os.Remove(filepath.Join(s.dir, p))
		s.git("checkout", "--", p)
		out, _, err := conv.ToWorkTree(pl, blob)
		if disk := s.read(p); err != nil || !bytes.Equal(out, disk) {
			t.Errorf("%s: ToWorkTree %x %v, git wrote %x", p, out, err, disk)
		}
	}
	// git's refusals: a BOM where the encoding names the byte order, none
	// where it does not.
	for p, b := range map[string][]byte{"x.le": {0xff, 0xfe, 'h', 0}, "x.u16": {'h', 0}} {
		s.write(p, b)
		_, gerr, err := s.run(nil, "add", p)
		_, _, cerr := conv.ToGit(conv.Plan(p), b, nil)
		if err == nil || cerr == nil {
			t.Fatalf("%s: git add %v, ToGit %v: both must refuse", p, err, cerr)
		}
		if !strings.Contains(gerr, cerr.Error()) {
			t.Errorf("%s: git said %q, ToGit %q", p, gerr, cerr)
		}
	}
}

// TestIdentAsGit: $Id$ collapses into git and expands out of it.
func TestIdentAsGit(t *testing.T) {
	s := newScratch(t)
	s.write(".gitattributes", []byte("*.c ident\n"))
	src := []byte("/* $Id: old $ */\n$Id$\n$Id: broken\nline $\n")
	s.write("a.c", src)
	s.git("add", ".")
	conv := s.converter()
	pl := conv.Plan("a.c")
	blob := []byte(s.git("cat-file", "blob", ":a.c"))
	got, _, _ := conv.ToGit(pl, src, nil)
	if !bytes.Equal(got, blob) {
		t.Errorf("ToGit %q, git %q", got, blob)
	}
	os.Remove(filepath.Join(s.dir, "a.c"))
	s.git("checkout", "--", "a.c")
	out, _, _ := conv.ToWorkTree(pl, blob)
	if disk := s.read("a.c"); !bytes.Equal(out, disk) {
		t.Errorf("ToWorkTree %q, git %q", out, disk)
	}
}
