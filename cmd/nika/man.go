package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// manPage renders the manual page of nika (name "nika") or of git nika
// (name "git-nika", which git shows for git nika --help) from the command
// tree, in roff. TestManPagesFresh keeps docs/man/ in step with it.
func manPage(name string, cmds []*cli.Command) string {
	var b strings.Builder
	prog := "nika"
	if name == "git-nika" {
		prog = "git nika"
	}
	title := strings.ToUpper(name)
	fmt.Fprintf(&b, ".TH %s 1 \"\" \"nika\" \"nika manual\"\n", title)
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- stage a model's proposal as a git commit, preview it exactly, apply it on your yes\n", roff(name))
	b.WriteString(".SH SYNOPSIS\n")
	fmt.Fprintf(&b, ".B %s\n[\\-\\-json] [\\-\\-no\\-pager] [\\-\\-color=\\fIWHEN\\fR] [\\-\\-version] \\fIVERB\\fR [\\fIARGS\\fR]\n", roff(prog))
	b.WriteString(".SH DESCRIPTION\n")
	b.WriteString("nika turns a model's or an agent's proposed change (a reply with fenced blocks that name a path, an apply_patch payload, a unified diff, search/replace blocks) into one typed change set, staged as a git commit that no branch points at. ")
	b.WriteString("The preview shows exactly that commit: the bytes or the diff, the blob hashes, the witnesses of what it was built over, and the checker's audit of Nika workflow files. ")
	b.WriteString("Only the word yes, typed at the controlling terminal after the preview was drawn, applies it: the branch and the working tree then fast-forward to that commit, atomically, and the apply refuses, writing nothing, if HEAD or any witnessed byte moved.\n")
	b.WriteString(".PP\nBare \\fBnika\\fR on a terminal opens the session, where a model proposes and you consent; on a pipe it prints a deterministic summary of the project.\n")
	b.WriteString(".SH OPTIONS\n")
	for _, o := range globalOptions {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roff(o[0]), roff(o[1]))
	}
	b.WriteString(".SH VERBS\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, ".SS %s %s\n", roff(c.Name), roff(c.ArgsUsage))
		fmt.Fprintf(&b, "%s\n", roff(c.Usage))
		for _, f := range verbFlags(c) {
			fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roff(f.spelling()), roff(f.Usage))
		}
	}
	b.WriteString(".SH ENVIRONMENT\n")
	for _, e := range [][2]string{
		{"NIKA_PAGER, GIT_PAGER, PAGER", "the pager, in that order, after pager.nika and before core.pager for PAGER; LESS defaults to FRX"},
		{"NIKA_COLOR", "always or never, before git's color.nika and color.ui"},
		{"NO_COLOR", "when set and not empty, no colour unless an option or git's configuration asks for it"},
		{"GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE", "the repository, as git finds it"},
	} {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roff(e[0]), roff(e[1]))
	}
	b.WriteString(".SH EXIT STATUS\n0 done; 1 applied, but the check or a hook after the apply failed; 2 nika check found errors; 3 and up a refusal, one code per class (docs/exit-codes.md).\n")
	b.WriteString(".SH SEE ALSO\n")
	b.WriteString("git(1), git-apply(1), git-verify-commit(1)\n")
	return b.String()
}

// roff escapes text for a man page: backslashes, dashes, and a leading dot
// or quote.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
