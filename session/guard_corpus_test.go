package session

import (
	"strings"
	"testing"
)

// guardCase is one reply, and the one correction it must get ("" for a
// reply that is true and must get none).
type guardCase struct {
	reply string
	want  string // kind:ref, or ""
}

// inventedReplies are references to things that do not exist, in prose,
// in code blocks and in JSON: each gets exactly its correction. The first
// ones are the misses the issue lists.
var inventedReplies = []guardCase{
	// a workflow in an invented JSON language
	{"Here is the Nika workflow:\n```json\n{\"name\": \"daily\", \"triggers\": [{\"cron\": \"0 9 * * *\"}], \"steps\": [{\"action\": \"fetch\", \"url\": \"https://x\"}]}\n```\n", "language:action, steps, triggers"},
	{"```json path=flows/daily.nika.yaml\n{\"steps\": [{\"action\": \"summarize\"}]}\n```\n", "language:action, steps"},
	{"A workflow for this:\n```yaml\nname: digest\ntrigger: daily\nsteps:\n  - action: fetch\n```\n", "language:trigger, steps"},
	// a provider in prose
	{"I would use the model skynet/gpt-9 for this task.", "provider:skynet"},
	{"Switch to the cyberdyne/t800 model, it is faster.", "provider:cyberdyne"},
	{"Models such as `acme/giant-2` handle long prompts.", "provider:acme"},
	// codes: an invented shape, lower case, invented numbers
	{"The checker reports NIKA-E001 here.", "code:NIKA-E001"},
	{"That is error nika-parse-999 in the envelope.", "code:nika-parse-999"},
	{"You hit nika-magic-042, an unknown step.", "code:nika-magic-042"},
	{"It fails with NIKA-PARSE-404.", "code:NIKA-PARSE-404"},
	{"```\nflows/a.nika.yaml:3:1 error NIKA-DAG-999 a cycle\n```\n", "code:NIKA-DAG-999"},
	{"{\"code\": \"NIKA-TYPE-777\", \"message\": \"bad\"}", "code:NIKA-TYPE-777"},
	// builtins
	{"Use nika:http_get to fetch the page.", "builtin:nika:http_get"},
	{"```yaml path=flows/x.nika.yaml\nnika: x\ntasks:\n  a:\n    invoke: { tool: \"nika:teleport\" }\n```\n", "builtin:nika:teleport"},
	{"{\"tool\": \"nika:sendmail\", \"args\": {}}", "builtin:nika:sendmail"},
	{"The builtin nika:scrape reads HTML.", "builtin:nika:scrape"},
	// providers in workflows and JSON
	{"```yaml path=flows/x.nika.yaml\nnika: x\nmodel: skynet/gpt-9\ntasks:\n  a:\n    infer: { prompt: hi }\n```\n", "provider:skynet"},
	{"{\"model\": \"hal/9000\"}", "provider:hal"},
	{"    infer: { prompt: \"hi\", model: \"wopr/joshua\" }", "provider:wopr"},
	// mcp ids
	{"Call mcp:github to open the issue.", "mcp:mcp:github"},
	{"{\"tool\": \"mcp:/create\"}", "mcp:mcp:/create"},
	// verbs, in code and in commands
	{"Run `nika deploy` when you are done.", "verb:nika deploy"},
	{"```sh\nnika publish flows/a.nika.yaml\n```\n", "verb:nika publish"},
	{"$ nika magic --now", "verb:nika magic"},
	{"Then run nika upgrade to get the new engine.", "verb:nika upgrade"},
	{"```console\n$ nika vault set KEY\n```\n", "verb:nika vault"},
	{"`nika ls` lists the workflows.", "verb:nika ls"},
	{"```bash\ncd flows && nika schedule daily.nika.yaml\n```\n", "verb:nika schedule"},
	// workflow fields
	{"```yaml path=flows/x.nika.yaml\nnika: x\nschedule: daily\ntasks:\n  a:\n    infer: { prompt: hi, model: \"mock/echo\" }\n```\n", "field:schedule"},
	{"```yaml\nnika: x\ndescription: a digest\ntasks: {}\n```\n", "field:description"},
	{"```json path=flows/x.nika.yaml\n{\"nika\": \"x\", \"version\": 2, \"tasks\": {}}\n```\n", "field:version"},
	// claims of ignorance about Nika
	{"I'm not familiar with Nika, but here is a guess.", "claim:unknown language"},
	{"I don't know what Nika is.", "claim:unknown language"},
	{"I don't have any information about the Nika workflow language.", "claim:unknown language"},
	{"Nika? I'm not familiar with it.", "claim:unknown language"},
}

// trueReplies are true: each gets no correction. The first ones are the
// false corrections the issue lists.
var trueReplies = []string{
	// the engine's own verb, as /run prints it
	"Run `nika run flows/daily.nika.yaml` to try it.",
	"no runner is configured; to run it:\n  nika run flows/good.nika.yaml --var name=Ada\n",
	"```sh\nnika run --resume tr-9 --answer approve=yes\n```\n",
	// prose about nika
	"nika lets you review every change before it lands.",
	"Nika lets you declare permits, and nika keeps the record.",
	// a "don't know" about something else
	"I don't know which model you prefer for this Nika workflow.",
	"I don't know whether your team wants a daily or a weekly digest in nika.",
	"I'm not aware of any rate limit on that API.",
	// real references
	"Run `nika check flows/a.nika.yaml`, then nika apply ID.",
	"```bash\nnika propose --goal \"digest\" reply.md\nnika apply 1342b10dc1ad\n```\n",
	"`nika trace verify` checks the journal's chain.",
	"Scaffold one with `nika new --from chain my-first.nika.yaml`.",
	"$ nika test flows/a.nika.yaml",
	"`nika inspect flows/a.nika.yaml --format json` prints the projection.",
	"NIKA-PARSE-005 means an unknown envelope key.",
	"nika-parse-005 is the same code, written in lower case.",
	"The run failed with NIKA-1702 (vault is not resolvable yet).",
	"Use nika:read to load the file, and nika:write to save it.",
	"```yaml path=flows/a.nika.yaml\nnika: a\nmodel: mistral/large\npermits:\n  tools: [\"mcp:browser/*\", \"nika:read\"]\ntasks:\n  a:\n    invoke: { tool: \"mcp:browser/navigate\" }\n```\n",
	"The model anthropic/claude-sonnet-4 is a good default.",
	"Try the openai/gpt-4o model for the summary.",
	"Your model ollama/llama3.2 runs locally.",
	"{\"model\": \"openai/gpt-4o-mini\", \"max_tokens\": 200}",
	"The file flows/daily.nika.yaml names the model in its envelope.",
	"The model reads docs/notes.md through nika:read.",
	"See https://models.example.com/openai/gpt-4o for the model card.",
	// JSON that is not a workflow: the protocol, traces, --json
	"Send this line:\n```json\n{\"call\": \"turn\", \"text\": \"/workflows\"}\n```\n",
	"The runner prints:\n```json\n{\"event\": \"workflow_paused\", \"trace\": \"tr-1\", \"task\": \"approve\", \"question\": \"Deploy?\"}\n```\n",
	"```json\n{\"type\": \"refusal\", \"class\": \"Dirty\", \"exit\": 6}\n```\n",
	// another system's file, in its own language
	"For CI, add this workflow:\n```yaml path=.github/workflows/nika.yml\nname: nika\non: [push]\njobs:\n  verify:\n    runs-on: ubuntu-latest\n    steps:\n      - run: nika verify\n```\n",
	"```yaml\nname: ci\non: push\njobs:\n  test:\n    steps:\n      - uses: actions/checkout@v4\n```\n",
	"A Nika workflow has tasks, not steps: each task has one verb.",
	"```yaml path=flows/a.nika.yaml\nnika: a\ninputs:\n  name: { type: string }\ntasks:\n  t:\n    infer: { prompt: \"hi ${{ inputs.name }}\", model: \"openai/gpt-4o\" }\noutputs:\n  text: ${{ tasks.t.output }}\n```\n",
}

// TestGuardCorpus: every invented reference is corrected, by its kind and
// ref and nothing else; no true one is.
func TestGuardCorpus(t *testing.T) {
	if len(inventedReplies) < 30 || len(trueReplies) < 30 {
		t.Fatalf("the corpus holds %d invented and %d true replies, want at least 30 of each", len(inventedReplies), len(trueReplies))
	}
	g := NewGuard(nil)
	for _, c := range inventedReplies {
		got := g.Check(c.reply)
		var refs []string
		for _, x := range got {
			refs = append(refs, x.Kind+":"+x.Ref)
		}
		if len(got) != 1 || refs[0] != c.want {
			t.Errorf("%q:\n  corrections %v, want exactly [%s]", c.reply, refs, c.want)
		}
		for _, x := range got {
			if x.Text == "" {
				t.Errorf("%q: a correction without a text", c.reply)
			}
		}
	}
	for _, r := range trueReplies {
		if got := g.Check(r); len(got) != 0 {
			t.Errorf("%q is true, and was corrected: %+v", r, got)
		}
	}
}

// TestGuardVerbListsAreTwo: the engine's verbs and nika's own verbs are
// two lists, and a correction names both.
func TestGuardVerbListsAreTwo(t *testing.T) {
	got := NewGuard(nil).Check("run `nika deploy`")
	if len(got) != 1 || !strings.Contains(got[0].Text, "the engine's verbs are run, check") || !strings.Contains(got[0].Text, "nika's own are propose") {
		t.Fatalf("%+v", got)
	}
	for _, v := range EngineVerbs {
		if v == "vault" || v == "ls" {
			t.Fatalf("the spec says there is no nika %s", v)
		}
	}
}
