package hostpath

import "testing"

func TestScrub(t *testing.T) {
	t.Setenv("HOME", "/home/ada")
	t.Setenv("TMPDIR", "/var/folders/xy")
	t.Setenv("PATH", "/opt/tools/bin:/bin")
	s := New("/home/ada/src/proj", Options{Also: []string{"/home/ada/src/proj/.git", "/srv/git/proj.git"}, Temp: []string{"/run/nika-hooks-1"}})
	for _, c := range []struct{ in, known, text string }{
		{"/home/ada/src/proj/flows/a.nika.yaml: bad", "flows/a.nika.yaml: bad", "flows/a.nika.yaml: bad"},
		{"cd /home/ada/src/proj && ls", "cd . && ls", "cd . && ls"},
		{"open /home/ada/src/proj/.git/index.lock", "open .git/index.lock", "open .git/index.lock"},
		{"/srv/git/proj.git/objects", "<path>/objects", "<path>/objects"},
		{"key in /home/ada/.config/llm/keys.json", "key in <home>/.config/llm/keys.json", "key in <home>/.config/llm/keys.json"},
		{"HOME=/home/ada", "HOME=<home>", "HOME=<home>"},
		{"/home/adam/x", "/home/adam/x", "<path>"},
		{"wrote /tmp/nika-hooks-9/0/check", "wrote <tmp>/nika-hooks-9/0/check", "wrote <tmp>/nika-hooks-9/0/check"},
		{"/var/folders/xy/T/a", "<tmp>/T/a", "<tmp>/T/a"},
		{"/run/nika-hooks-1/0/hook: line 3", "<tmp>/0/hook: line 3", "<tmp>/0/hook: line 3"},
		{"PATH=/opt/tools/bin:/bin:/usr/local/go/bin", "PATH=/opt/tools/bin:/bin:/usr/local/go/bin", "PATH=<path>:<path>:<path>"},
		{"see https://api.example.com/v1/chat/completions", "see https://api.example.com/v1/chat/completions", "see https://api.example.com/v1/chat/completions"},
		{"type /help or /check NAME, and/or flows/x", "type /help or /check NAME, and/or flows/x", "type /help or /check NAME, and/or flows/x"},
		{"/opt/other/env: 'python9': No such file", "/opt/other/env: 'python9': No such file", "<path>: 'python9': No such file"},
		{"x/tmp/y and /tmpfoo/z", "x/tmp/y and /tmpfoo/z", "x/tmp/y and <path>"},
	} {
		if got := s.Known(c.in); got != c.known {
			t.Errorf("Known(%q) = %q, want %q", c.in, got, c.known)
		}
		if got := s.Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

func TestRootUnderTemp(t *testing.T) {
	t.Setenv("HOME", "/tmp/TestX/001/home")
	s := New("/tmp/TestX/001/repo", Options{})
	if got := s.Known("/tmp/TestX/001/repo/a and /tmp/TestX/001/home/.nika and /tmp/TestX/001/other"); got != "a and <home>/.nika and <tmp>/TestX/001/other" {
		t.Fatal(got)
	}
}

func FuzzText(f *testing.F) {
	f.Add("/home/ada/src/proj/x /tmp/y https://h/p")
	f.Fuzz(func(t *testing.T, in string) {
		s := New("/home/ada/src/proj", Options{Home: "/home/ada"})
		out := s.Text(in)
		if s.Text(out) != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, s.Text(out))
		}
	})
}
