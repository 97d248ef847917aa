package gitstage

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/nika-dev/nika/refusal"
)

// Env reads one variable of the environment (os.LookupEnv in a process;
// a map in tests).
type Env func(key string) (string, bool)

// Discover finds the repository for a process whose working directory is
// cwd, exactly as git's setup (setup.c, git 2.39) does, so that nika stages
// and applies in the repository, work tree and index that git would use
// under the same environment:
//
//   - GIT_DIR names the git dir (relative to cwd; a "gitdir:" file is
//     followed). The work tree is then GIT_WORK_TREE (relative to cwd),
//     else core.worktree (relative to the git dir), else cwd itself;
//     core.bare = true without GIT_WORK_TREE is a bare repository.
//   - Without GIT_DIR, each directory from cwd up is asked, in git's
//     order: its .git (a "gitdir:" file, as linked worktrees and
//     submodules have, or a directory), then the directory itself as a
//     git dir (inside .git, or a bare repository). The walk stops below
//     each GIT_CEILING_DIRECTORIES entry and, unless
//     GIT_DISCOVERY_ACROSS_FILESYSTEM is set, at a filesystem boundary. A
//     repository found so is refused when another user owns it, unless
//     safe.directory (system, global or command-line config) names it.
//   - A discovered git dir takes its work tree from GIT_WORK_TREE, else
//     core.worktree; else core.bare = true makes it bare; else the work
//     tree is the directory that holds .git. core.bare and core.worktree
//     are read from the repository's own config file only, and are
//     ignored in a linked worktree's git dir (one with a commondir file),
//     as git does.
//   - GIT_COMMON_DIR overrides the commondir file; GIT_INDEX_FILE names
//     the index (relative to the top of the work tree).
//
// Where nika cannot follow a setting safely it refuses with a class and
// the fix, and never guesses: a bare repository or a git dir with no work
// tree, GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES and
// GIT_NAMESPACE (nika writes objects and moves branches in the
// repository's own object directory and ref namespace), a repository
// format newer than 1 or an extension git 2.39 does not know, SHA-256
// object ids and a ref storage other than files.
func Discover(cwd string, env Env) (*Repo, error) {
	get := func(k string) string { v, _ := env(k); return v }
	for _, k := range []string{"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE"} {
		if get(k) != "" {
			return nil, refusal.New(refusal.Unsupported, "unset "+k+" to use nika in this repository",
				"%s is set: nika reads and writes the repository's own objects and refs, and would not see the ones %s names", k, k)
		}
	}
	cwd, err := physical(cwd)
	if err != nil {
		return nil, ioRefusal("resolve the working directory", err)
	}
	d := &discovery{env: env, cwd: cwd}
	if gd := get("GIT_DIR"); gd != "" {
		err = d.explicit(abs(cwd, gd), true)
	} else {
		err = d.walk()
	}
	if err != nil {
		return nil, err
	}
	return d.open()
}

type discovery struct {
	env       Env
	cwd       string
	gitDir    string
	commonDir string
	workTree  string
	local     *Config // the repository's own config file, for core.*
}

func (d *discovery) get(k string) string { v, _ := d.env(k); return v }

// rel names a path for a refusal relative to the working directory, so
// that no absolute host path reaches a text (law 7).
func (d *discovery) rel(p string) string {
	r, err := filepath.Rel(d.cwd, p)
	if err != nil {
		return filepath.Base(p)
	}
	return filepath.ToSlash(r)
}

// abs makes p absolute against dir, lexically.
func abs(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// physical resolves every symlink of an existing path, as getcwd() and
// git's real_path() report it.
func physical(p string) (string, error) {
	a, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(a)
}

// explicit sets up a git dir named by GIT_DIR (fromEnv) or found with a
// work tree configured for it (setup_explicit_git_dir).
func (d *discovery) explicit(gitDir string, fromEnv bool) error {
	if fromEnv {
		if fi, err := os.Stat(gitDir); err == nil && fi.Mode().IsRegular() {
			target, err := readGitFile(gitDir, d.rel)
			if err != nil {
				return err
			}
			gitDir = target
		}
		if !isGitDir(gitDir, d.get("GIT_COMMON_DIR")) {
			return refusal.New(refusal.NotFound, "point GIT_DIR at a git directory, or unset it",
				"GIT_DIR names %s, which is not a git repository", d.rel(gitDir))
		}
	}
	if err := d.setGitDir(gitDir); err != nil {
		return err
	}
	switch wt, cfg := d.get("GIT_WORK_TREE"), d.coreWorktree(); {
	case wt != "":
		d.workTree = abs(d.cwd, wt)
	case d.coreBare():
		return d.bare()
	case cfg != "":
		d.workTree = abs(d.gitDir, cfg)
	default:
		// git: with GIT_DIR and no work tree configured, the current
		// directory is the top of the work tree.
		d.workTree = d.cwd
	}
	return nil
}

// walk is git's discovery from cwd up (setup_git_directory_gently_1).
func (d *discovery) walk() error {
	ceil := ceilingLength(d.cwd, d.get("GIT_CEILING_DIRECTORIES"))
	oneFS := true
	if v := d.get("GIT_DISCOVERY_ACROSS_FILESYSTEM"); v != "" {
		oneFS = !parseBool(v, false)
	}
	dev, _ := deviceOf(d.cwd)
	for dir := d.cwd; ; {
		dotgit := filepath.Join(dir, ".git")
		fi, statErr := os.Stat(dotgit)
		switch {
		case statErr == nil && fi.Mode().IsRegular():
			target, err := readGitFile(dotgit, d.rel)
			if err != nil {
				return err
			}
			if err := d.owned(dotgit, dir, target); err != nil {
				return err
			}
			return d.discovered(target, dir)
		case statErr == nil && fi.IsDir() && isGitDir(dotgit, d.get("GIT_COMMON_DIR")):
			if err := d.owned("", dir, dotgit); err != nil {
				return err
			}
			return d.discovered(dotgit, dir)
		}
		if isGitDir(dir, d.get("GIT_COMMON_DIR")) {
			if err := d.owned("", "", dir); err != nil {
				return err
			}
			return d.bareFound(dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir || len(parent) <= ceil {
			break
		}
		if oneFS {
			if pdev, err := deviceOf(parent); err == nil && pdev != dev {
				return refusal.New(refusal.NotFound, "run nika inside the repository's filesystem, or set GIT_DISCOVERY_ACROSS_FILESYSTEM=1",
					"not a git repository (or any parent up to the mount point %s): git stops at a filesystem boundary", d.rel(dir))
			}
		}
		dir = parent
	}
	return refusal.New(refusal.NotFound, "run nika inside a git repository, or create one with git init",
		"not a git repository (or any of the parent directories)")
}

// discovered is setup_discovered_git_dir: .git found in dir.
func (d *discovery) discovered(gitDir, dir string) error {
	if err := d.setGitDir(gitDir); err != nil {
		return err
	}
	if d.get("GIT_WORK_TREE") != "" || d.coreWorktree() != "" {
		return d.explicit(d.gitDir, false)
	}
	if d.coreBare() {
		return d.bare()
	}
	d.workTree = dir
	return nil
}

// bareFound is setup_bare_git_dir: the directory itself is a git dir
// (inside .git, or a bare repository).
func (d *discovery) bareFound(gitDir string) error {
	if strings.EqualFold(d.protected("safe.bareRepository"), "explicit") {
		return refusal.New(refusal.NotAllowed, "name it with GIT_DIR, or change safe.bareRepository",
			"a bare repository was found at %s, and safe.bareRepository is explicit", d.rel(gitDir))
	}
	if err := d.setGitDir(gitDir); err != nil {
		return err
	}
	if d.get("GIT_WORK_TREE") != "" || d.coreWorktree() != "" {
		return d.explicit(gitDir, false)
	}
	if strings.Contains(filepath.ToSlash(gitDir)+"/", "/.git/") {
		return refusal.New(refusal.NotFound, "run nika in the work tree, not inside the git directory",
			"this is inside a git directory, which has no work tree here")
	}
	return d.bare()
}

func (d *discovery) bare() error {
	return refusal.New(refusal.Unsupported, "run nika in a repository with a working tree", "this is a bare repository")
}

// setGitDir records the git dir, its common dir, and reads the
// repository's own config file for core.bare and core.worktree.
func (d *discovery) setGitDir(gitDir string) error {
	gitDir, err := physical(gitDir)
	if err != nil {
		return ioRefusal("resolve the git directory", err)
	}
	d.gitDir, d.commonDir = gitDir, gitDir
	if c := d.get("GIT_COMMON_DIR"); c != "" {
		d.commonDir = abs(d.cwd, c)
	} else if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		d.commonDir = abs(gitDir, strings.TrimRight(string(b), "\r\n"))
	}
	if p, err := physical(d.commonDir); err == nil {
		d.commonDir = p
	}
	d.local = &Config{}
	d.local.addFile(ScopeLocal, filepath.Join(d.commonDir, "config"))
	return nil
}

// hasCommon reports a linked worktree's git dir: git ignores core.bare
// and core.worktree of the common config there.
func (d *discovery) hasCommon() bool { return d.commonDir != d.gitDir }

func (d *discovery) coreWorktree() string {
	if d.hasCommon() {
		return ""
	}
	v, _ := d.local.Get("core.worktree")
	return v
}

func (d *discovery) coreBare() bool {
	return !d.hasCommon() && d.local.Bool("core.bare", false)
}

// protected reads the last value of a safety setting from the config git
// trusts for it (never the repository's own).
func (d *discovery) protected(key string) string {
	vs := loadConfig("", "", d.env).GetProtected(key)
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// owned is git's ensure_valid_ownership: the .git file, the work tree and
// the git dir must belong to the user running nika (under sudo, to
// SUDO_UID), unless safe.directory names the repository (or is "*"). A
// repository another user owns can carry a config that runs their
// programs (core.fsmonitor, a pager, a hook path) as you.
func (d *discovery) owned(gitFile, workTree, gitDir string) error {
	for _, p := range []string{gitFile, workTree, gitDir} {
		if p == "" || ownedByMe(p, d.env) {
			continue
		}
		id := workTree
		if id == "" {
			id = gitDir
		}
		safe := false
		for _, v := range loadConfig("", "", d.env).GetProtected("safe.directory") {
			switch {
			case v == "":
				safe = false
			case v == "*":
				safe = true
			default:
				if strings.HasPrefix(v, "~/") {
					v = filepath.Join(d.get("HOME"), v[2:])
				}
				if filepath.Clean(v) == id {
					safe = true
				}
			}
		}
		if safe {
			return nil
		}
		return refusal.New(refusal.NotAllowed, "if you trust it, add its path to safe.directory in your global git config (git config --global --add safe.directory PATH)",
			"the repository at %s is owned by someone else (dubious ownership), so nika, like git, does not use it", d.rel(id))
	}
	return nil
}

func ownedByMe(p string, env Env) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	euid := os.Geteuid()
	if int(st.Uid) == euid {
		return true
	}
	if euid == 0 {
		if s, ok := env("SUDO_UID"); ok {
			if n, err := strconv.Atoi(s); err == nil && n == int(st.Uid) {
				return true
			}
		}
	}
	return false
}

func deviceOf(p string) (uint64, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return 0, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, errors.New("no device")
	}
	return uint64(st.Dev), nil
}

// ceilingLength is git's longest_ancestor_length over
// GIT_CEILING_DIRECTORIES: the length of the longest entry that is a
// proper ancestor of dir, or -1. Entries must be absolute; after an empty
// entry, the later ones are taken as written (no symlink resolution).
func ceilingLength(dir, list string) int {
	best := -1
	resolve := true
	for _, c := range filepath.SplitList(list) {
		if c == "" {
			resolve = false
			continue
		}
		if !filepath.IsAbs(c) {
			continue
		}
		c = filepath.Clean(c)
		if resolve {
			if p, err := filepath.EvalSymlinks(c); err == nil {
				c = p
			}
		}
		n := len(c)
		if c == "/" {
			n = 0
		}
		if (c == "/" || strings.HasPrefix(dir, c+"/")) && dir != c && n > best {
			best = n
		}
	}
	return best
}

// readGitFile reads a ".git" file ("gitdir: <path>", relative to the
// file's directory), as git's read_gitfile does, and checks that it names
// a git dir.
func readGitFile(path string, rel func(string) string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", ioRefusal("read "+filepath.Base(path), err)
	}
	b = bytes.TrimRight(b, "\r\n")
	rest, ok := bytes.CutPrefix(b, []byte("gitdir: "))
	if !ok || len(rest) == 0 || bytes.ContainsAny(rest, "\n\x00") {
		return "", refusal.New(refusal.Unsupported, "check the .git file: it should hold one line, gitdir: <path>",
			"%s is a file that names no git directory (invalid gitfile format)", rel(path))
	}
	target := abs(filepath.Dir(path), string(rest))
	if !isGitDir(target, "") {
		return "", refusal.New(refusal.NotFound, "check the .git file, or repair it with git worktree repair",
			"%s names %s, which is not a git repository", rel(path), rel(target))
	}
	return target, nil
}

// isGitDir is git's is_git_directory: a valid HEAD, and objects/ and refs/
// (in the common dir, for a linked worktree's git dir).
func isGitDir(dir, commonEnv string) bool {
	common := dir
	if commonEnv != "" {
		common = commonEnv
	} else if b, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		common = abs(dir, strings.TrimRight(string(b), "\r\n"))
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return validHead(filepath.Join(dir, "HEAD"))
}

// validHead is git's validate_headref: "ref: refs/...", a symlink into
// refs/, or an object id.
func validHead(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, err := os.Readlink(path)
		return err == nil && strings.HasPrefix(t, "refs/")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	s := strings.TrimRight(string(b), "\r\n")
	if ref, ok := strings.CutPrefix(s, "ref:"); ok {
		return strings.HasPrefix(strings.TrimLeft(ref, " \t"), "refs/")
	}
	return len(s) >= 40 && strings.Trim(s[:40], "0123456789abcdef") == ""
}

// knownExtensions are the repository extensions git 2.39 understands in
// a version 1 repository; any other makes git (and nika) refuse it.
var knownExtensions = map[string]bool{"noop": true, "noop-v1": true, "preciousobjects": true, "partialclone": true,
	"worktreeconfig": true, "objectformat": true}

// open checks the repository format and opens the object store.
func (d *discovery) open() (*Repo, error) {
	wt, err := physical(d.workTree)
	if err != nil {
		return nil, refusal.New(refusal.NotFound, "create the work tree directory, or fix core.worktree or GIT_WORK_TREE",
			"the work tree %s cannot be opened: %v", d.rel(d.workTree), unwrapPath(err))
	}
	if fi, err := os.Stat(wt); err != nil || !fi.IsDir() {
		return nil, refusal.New(refusal.NotFound, "fix core.worktree or GIT_WORK_TREE", "the work tree %s is not a directory", d.rel(wt))
	}
	r := &Repo{Root: wt, GitDir: d.gitDir, CommonDir: d.commonDir}
	r.IndexFile = filepath.Join(d.gitDir, "index")
	if ix := d.get("GIT_INDEX_FILE"); ix != "" {
		r.IndexFile = abs(wt, ix)
	}
	r.Config = loadConfig(d.commonDir, d.gitDir, d.env)
	if err := checkFormat(d.local); err != nil {
		return nil, err
	}
	r.store = filesystem.NewStorageWithOptions(osfs.New(d.commonDir), cache.NewObjectLRUDefault(), filesystem.Options{})
	return r, nil
}

// checkFormat refuses what nika cannot read or write as git would: a
// repository format newer than 1, an extension git does not know, SHA-256
// object ids, and refs not stored as files.
func checkFormat(local *Config) error {
	version := 0
	if v, ok := local.Get("core.repositoryformatversion"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return refusal.New(refusal.Unsupported, "check core.repositoryformatversion in the repository's config",
				"core.repositoryformatversion is %q, which git does not read", v)
		}
		version = n
	}
	if version > 1 {
		return refusal.New(refusal.Unsupported, "use a git and a nika that know this format",
			"this repository's format version is %d; nika, like git 2.39, reads versions 0 and 1", version)
	}
	if v, _ := local.Get("extensions.objectformat"); strings.EqualFold(v, "sha256") {
		return refusal.New(refusal.Unsupported, "use nika in a SHA-1 repository for now",
			"this repository uses SHA-256 object ids, which nika does not support yet")
	}
	if v, _ := local.Get("extensions.refstorage"); v != "" && !strings.EqualFold(v, "files") {
		return refusal.New(refusal.Unsupported, "convert it with git refs migrate --ref-format=files",
			"this repository stores refs as %s, which nika does not support", v)
	}
	if version == 1 {
		for _, l := range local.layers {
			if l.cfg == nil || !l.cfg.HasSection("extensions") {
				continue
			}
			for _, o := range l.cfg.Section("extensions").Options {
				if k := strings.ToLower(o.Key); !knownExtensions[k] {
					return refusal.New(refusal.Unsupported, "use a git and a nika that know this extension",
						"this repository needs the extension %s, which nika, like git 2.39, does not know", o.Key)
				}
			}
		}
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
