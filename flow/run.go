package flow

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// A run request is carried out the same way by every door: after a clean
// apply, through the project's runner (git config nika.runner, an argv
// template), or, with no runner, by telling the human the command (in the
// door's words: the result says NotConfigured, and the door has the spec). A gate
// answer resumes a paused run through nika.resume. The templates are split
// on spaces and each placeholder becomes whole arguments, so no value is
// ever read by a shell.

// RunSpec is a run request: the workflow, its variables, the cost ceiling.
type RunSpec struct {
	Workflow   string
	Vars       map[string]string
	MaxCostUSD float64
}

// RunOf is the run request a proposal carries, or nil.
func RunOf(p *Proposed) *RunSpec {
	run := p.Proposal.Set.Run
	if run == nil {
		return nil
	}
	return &RunSpec{Workflow: string(run.Workflow), Vars: run.Vars, MaxCostUSD: run.MaxCostUSD}
}

// RunArgv expands a runner template for a run: {workflow}, {max_cost_usd},
// and {vars}, which becomes one NAME=VALUE argument per variable, sorted.
// An empty template gives nil.
func RunArgv(template string, run RunSpec) []string {
	var out []string
	for _, f := range strings.Fields(template) {
		switch f {
		case "{vars}":
			out = append(out, varArgs(run.Vars)...)
		default:
			f = strings.ReplaceAll(f, "{workflow}", run.Workflow)
			f = strings.ReplaceAll(f, "{max_cost_usd}", strconv.FormatFloat(run.MaxCostUSD, 'f', -1, 64))
			out = append(out, f)
		}
	}
	return out
}

// ResumeSpec is a human's answer to a paused run's gate.
type ResumeSpec struct {
	Trace, Task, Answer string
}

// ResumeArgv expands a resume template (git config nika.resume): {trace},
// {task} and {answer}, each one argument whatever it holds. An empty
// template gives nil.
func ResumeArgv(template string, r ResumeSpec) []string {
	var out []string
	for _, f := range strings.Fields(template) {
		f = strings.ReplaceAll(f, "{trace}", r.Trace)
		f = strings.ReplaceAll(f, "{task}", r.Task)
		f = strings.ReplaceAll(f, "{answer}", r.Answer)
		out = append(out, f)
	}
	return out
}

// RunStatus is how a run request ended.
type RunStatus string

const (
	Ran           RunStatus = "ran"
	Withheld      RunStatus = "withheld"       // the check after the apply was not clean
	NotConfigured RunStatus = "not configured" // no runner template
	NotStarted    RunStatus = "not started"    // the runner could not start
)

// RunResult is what carrying out a run or a resume did.
type RunResult struct {
	Status RunStatus
	Argv   []string // the command that ran
	Exit   int      // the runner's exit code when it ran
	Err    error    // why the runner could not start
	Output []byte   // the runner's standard output
}

// RunIO is where a door wants a runner's output: its standard output is
// kept in the result and also copied to Echo (nil: not copied), its
// standard error goes to Err; Started, when set, is told the command just
// before it starts.
type RunIO struct {
	Echo, Err io.Writer
	Started   func(argv []string)
}

// CarryRun carries out a proposal's run request after its apply: withheld
// when the verdict is not clean, suggested when no runner is configured,
// run otherwise in the work tree with stdin closed.
func CarryRun(repo *Repo, run RunSpec, clean bool, rio RunIO) *RunResult {
	if !clean {
		return &RunResult{Status: Withheld}
	}
	t, _ := repo.Config("nika.runner")
	argv := RunArgv(t, run)
	if len(argv) == 0 {
		return &RunResult{Status: NotConfigured}
	}
	return execute(repo, argv, rio)
}

// CarryResume resumes a paused run with a human's gate answer through
// nika.resume, or suggests the command when none is configured.
func CarryResume(repo *Repo, r ResumeSpec, rio RunIO) *RunResult {
	t, _ := repo.Config("nika.resume")
	argv := ResumeArgv(t, r)
	if len(argv) == 0 {
		return &RunResult{Status: NotConfigured}
	}
	return execute(repo, argv, rio)
}

func execute(repo *Repo, argv []string, rio RunIO) *RunResult {
	var out bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = repo.Root()
	cmd.Stdout, cmd.Stderr = &out, rio.Err
	if rio.Echo != nil {
		cmd.Stdout = io.MultiWriter(&out, rio.Echo)
	}
	if rio.Started != nil {
		rio.Started(argv)
	}
	err := cmd.Run()
	res := &RunResult{Status: Ran, Argv: argv, Output: out.Bytes()}
	if ee, ok := err.(*exec.ExitError); ok {
		res.Exit = ee.ExitCode()
	} else if err != nil {
		res.Status, res.Err = NotStarted, err
	}
	return res
}

// varArgs is one NAME=VALUE argument per variable, sorted by name.
func varArgs(vars map[string]string) []string {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s=%s", k, vars[k]))
	}
	return out
}
