package flow

import "github.com/nika-dev/nika/hostpath"

// Scrubber is the one host-path scrubber (package hostpath) for the
// repository: the work tree becomes relative, the git directories, home and
// the temporary directories become <home>, <tmp> and the like. Every door
// passes its machine output through it (law 7: no absolute host path in
// --json, the stdio protocol or an MCP result).
func (r *Repo) Scrubber() hostpath.Scrubber {
	g := r.g
	return hostpath.New(g.Root, hostpath.Options{Also: []string{g.GitDir, g.CommonDir}})
}
