package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"
)

// cmdNikaSource makes $WORK/nika-src a git repository holding nika's own
// source (go.mod, go.sum and every non-test .go file of the module), tagged
// TAG, so that a CI recipe can build nika from a pinned source offline:
//
//	nikasource TAG
func cmdNikaSource(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: nikasource TAG")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	dst := ts.MkAbs("nika-src")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if rel != "go.mod" && rel != "go.sum" && (!strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		ts.Fatalf("nikasource: %v", err)
	}
	for _, g := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "nika"}, {"tag", args[0]}} {
		cmd := scriptCmd(ts, append([]string{"git"}, g...))
		cmd.Dir = dst
		if out, err := cmd.CombinedOutput(); err != nil {
			ts.Fatalf("nikasource: git %s: %v\n%s", strings.Join(g, " "), err, out)
		}
	}
}

// cmdGHActions runs a GitHub Actions workflow's job locally, in the current
// directory, as a runner would for a pull request into BASE:
//
//	ghactions WORKFLOW BASE [NAME=VALUE...]
//
// actions/checkout is the current directory itself (the script makes it a
// full clone of the pull request's head); actions/setup-go is the go on
// PATH. Every run: step runs in bash -e with the workflow's env (NAME=VALUE
// arguments override it), RUNNER_TEMP, and GITHUB_PATH, whose lines are put
// before PATH for the steps after, as the runner does. ${{ github.base_ref }}
// is BASE. A step that fails fails the command; the steps' output is
// stdout.
func cmdGHActions(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: ghactions WORKFLOW BASE [NAME=VALUE...]")
	}
	var wf struct {
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Steps []struct {
				Name string            `yaml:"name"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(ts.ReadFile(args[0])), &wf); err != nil {
		ts.Fatalf("ghactions: %v", err)
	}
	env := map[string]string{}
	for k, v := range wf.Env {
		env[k] = v
	}
	for _, kv := range args[2:] {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = ts.MkAbs(v)
		if !strings.Contains(v, "/") {
			env[k] = v
		}
	}
	temp := filepath.Join(ts.Getenv("WORK"), "runner-temp")
	os.MkdirAll(temp, 0o755)
	ghPath := filepath.Join(temp, "github_path")
	os.WriteFile(ghPath, nil, 0o644)
	expr := regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)
	var out bytes.Buffer
	failed := false
	var names []string
	for n := range wf.Jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, job := range names {
		for _, st := range wf.Jobs[job].Steps {
			switch {
			case strings.HasPrefix(st.Uses, "actions/checkout@"):
				if st.With["fetch-depth"] != "0" {
					ts.Fatalf("ghactions: the checkout is shallow (fetch-depth %q); nika verify needs each proposal's parent", st.With["fetch-depth"])
				}
				continue
			case strings.HasPrefix(st.Uses, "actions/setup-go@"):
				continue
			case st.Uses != "":
				ts.Fatalf("ghactions: no local stand-in for %s", st.Uses)
			}
			script := expr.ReplaceAllStringFunc(st.Run, func(m string) string {
				switch strings.TrimSpace(expr.FindStringSubmatch(m)[1]) {
				case "github.base_ref":
					return args[1]
				}
				ts.Fatalf("ghactions: no local value for %s", m)
				return ""
			})
			cmd := scriptCmd(ts, []string{"bash", "-e", "-c", script})
			extra, _ := os.ReadFile(ghPath)
			path := ts.Getenv("PATH")
			for _, l := range strings.Split(strings.TrimSpace(string(extra)), "\n") {
				if l != "" {
					path = l + string(os.PathListSeparator) + path
				}
			}
			cmd.Env = append(cmd.Env, "PATH="+path, "RUNNER_TEMP="+temp, "GITHUB_PATH="+ghPath, "GOPROXY=off", "GOFLAGS=-mod=readonly")
			for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
				if v, err := exec.Command("go", "env", k).Output(); err == nil {
					cmd.Env = append(cmd.Env, k+"="+strings.TrimSpace(string(v)))
				}
			}
			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			fmt.Fprintf(&out, "## step: %s\n", st.Name)
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(&out, "## step failed: %v\n", err)
				failed = true
				break
			}
		}
	}
	ts.Stdout().Write(out.Bytes())
	if failed && !neg {
		ts.Fatalf("ghactions: a step failed")
	}
	if !failed && neg {
		ts.Fatalf("ghactions: unexpected success")
	}
}
