package checker

import (
	"testing"
	"testing/fstest"
)

// FuzzCheck asserts that no input makes the checker or the repair prepass
// panic, and that every report keeps its invariants: positions are
// 1-based, findings are sorted, and Clean agrees with the severities.
func FuzzCheck(f *testing.F) {
	f.Add("flow.nika.yaml", []byte("nika: hello\ntasks:\n  greet:\n    infer: { prompt: \"hi ${{ inputs.x }}\" }\n"))
	f.Add("nika.yaml", []byte("nika: my-project\n"))
	f.Add("x.nika.yaml", []byte("a: &x [*x]\n"))
	f.Add("x.nika.yaml", []byte("nika: v1\nworkflow: w\ntasks:\n  - id: a\n    exec: \"ls | wc\"\n"))
	f.Add("x.nika.yaml", []byte("tasks:\n  a:\n    when: \"${{ (((with.a == 1) && !b) || c.d[0] in [1,2]) ? 'x' : 'y' }}\"\n"))
	f.Add("x.nika.yaml", []byte("nika: p\npermits: { fs: { read: [\"./**\"] } }\ntasks:\n  a:\n    invoke: { tool: nika:read, args: { path: \"../${{ inputs.p }}\" } }\ninputs:\n  p: { type: string, default: \"../../x\" }\n"))
	f.Add("x.nika.yaml", []byte("nika: x\npermits: {}\ntasks:\n  a:\n    invoke: { workflow: ./loop.nika.yaml, args: { n: 1 } }\n    returns: { object: { n: integer } }\n"))
	f.Add("x.nika.yaml", []byte("nika: x\ntasks:\n  a:\n    invoke: { tool: nika:jq, args: { expression: \".a | map(\" } }\n    extract: { b: \".[\" }\n"))
	f.Add("x.nika.yaml", []byte("nika: x\ntasks:\n  a:\n    invoke: { tool: nika:hash, args: { op: sign, algo: md5, key: x } }\n  b:\n    after: { a: skipped }\n    invoke: { tool: nika:fetch, args: { url: u, form: { a: [1] }, multipart: [{ name: n, value: v, path: p }], traverse: { max_pages: 99 } } }\n"))
	f.Add("x.nika.yaml", []byte("nika: x\ntasks:\n  a:\n    infer: { prompt: \"cafe\u0301\" }\n  b:\n    infer: { prompt: *nowhere }\n"))
	fsys := fstest.MapFS{
		"loop.nika.yaml":    {Data: []byte("nika: loop\ninputs:\n  n: { type: integer, required: true }\npermits: {}\ntasks:\n  a:\n    invoke: { workflow: ./loop2.nika.yaml }\noutputs:\n  n: { value: \"${{ tasks.a.output }}\", type: integer }\n")},
		"loop2.nika.yaml":   {Data: []byte("nika: loop2\npermits: {}\ntasks:\n  a:\n    invoke: { workflow: ./loop.nika.yaml }\n")},
		"child.nika.yaml":   {Data: []byte("nika: child\ntasks:\n  a:\n    exec: { command: [\"ls\"] }\n")},
		"skills/s/SKILL.md": {Data: []byte("---\nname: s\ndescription: d\n---\nbody\n")},
	}
	f.Fuzz(func(t *testing.T, path string, data []byte) {
		for _, rep := range []Report{Check(path, data), CheckFS(fsys, path, data)} {
			hasErr := false
			for i, fd := range rep.Findings {
				if fd.Line < 1 || fd.Col < 1 || fd.Code == "" || fd.Category == "" {
					t.Fatalf("bad finding %+v", fd)
				}
				if fd.Severity == SeverityError {
					hasErr = true
				}
				if i > 0 {
					p := rep.Findings[i-1]
					if p.Line > fd.Line || (p.Line == fd.Line && p.Col > fd.Col) {
						t.Fatalf("findings out of order: %+v then %+v", p, fd)
					}
				}
			}
			if rep.Clean() == hasErr {
				t.Fatalf("Clean() disagrees with the severities")
			}
			if rep.Kind == KindProject && rep.Effects != nil {
				t.Fatalf("a project file has no effect rows")
			}
		}
		out, _, _ := Repair(path, data)
		_ = Check(path, out)
	})
}
