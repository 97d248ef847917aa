package redact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nika-dev/nika/internal/shared"
	"github.com/nika-dev/nika/redact/redacttest"
)

var fake = redacttest.Fake

const (
	alnum = redacttest.Alnum
	lower = redacttest.Lower
	hexd  = redacttest.Hex
	upper = redacttest.Upper
	b64   = redacttest.B64
)

type secretCase struct {
	name   string
	text   string // the file or line that holds the secret
	secret string // what must not be sent
	kind   string // the kind recorded ("" for any)
}

// secretCorpus is the redaction corpus: every shape the issue lists, and
// more of the shapes a project holds (config, .env, JSON, INI, URLs, the
// tokens of the services a workflow calls).
func secretCorpus() []secretCase {
	awsSecret := fake(1, b64, 40)
	awsSecret2 := fake(2, b64, 40)
	glpat := "glpat-" + fake(3, alnum+"_-", 20)
	npm := "npm_" + fake(4, lower, 36)
	xapp := "xapp-1-A0" + fake(5, "ABCDEFGHIJ0123456789", 9) + "-" + fake(6, "0123456789", 13) + "-" + fake(7, hexd, 64)
	slackHook := "https://hooks.slack.com/services/T" + fake(8, "ABCDEFGHIJ0123456789", 8) + "/B" + fake(9, "ABCDEFGHIJ0123456789", 8) + "/" + fake(10, alnum, 24)
	stripe := "sk_" + "live_" + fake(11, alnum, 24)
	ghp := "ghp_" + fake(12, alnum, 36)
	gho := "gho_" + fake(13, alnum, 36)
	ghPat := "github_pat_" + fake(14, alnum+"_", 82)
	akia := "AKIA" + fake(15, upper, 16)
	xoxb := "xoxb-" + fake(16, "0123456789", 12) + "-" + fake(17, "0123456789", 12) + "-" + fake(18, alnum, 24)
	google := "AIza" + fake(19, alnum+"_-", 35)
	openai := "sk-proj-" + fake(20, alnum+"_-", 58) + "T3BlbkFJ" + fake(21, alnum+"_-", 58)
	anthropic := "sk-ant-api03-" + fake(22, alnum+"_-", 93) + "AA"
	jwt := "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiI" + fake(23, alnum, 30) + "." + fake(24, alnum+"_-", 43)
	sendgrid := "SG." + fake(25, alnum+"_-", 22) + "." + fake(26, alnum+"_-", 43)
	shopify := "shpat_" + fake(27, hexd, 32)
	pypi := "pypi-AgEIcHlwaS5vcmc" + fake(28, alnum+"_-", 70)
	databricks := "dapi" + fake(29, hexd, 32)
	digitalocean := "dop_v1_" + fake(30, hexd, 64)
	hf := "hf_" + fake(31, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 34)
	postman := "PMAK-" + fake(32, hexd, 24) + "-" + fake(33, hexd, 34)
	age := "AGE-SECRET-KEY-1" + fake(34, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
	pulumi := "pul-" + fake(35, hexd, 40)
	alibaba := "LTAI" + fake(36, lower, 20)
	linear := "lin_api_" + fake(37, alnum, 40)
	doppler := "dp.pt." + fake(38, alnum, 43)
	vault := "hvs." + fake(39, alnum+"_-", 90)
	grafana := "glsa_" + fake(40, alnum, 32) + "_" + fake(41, hexd, 8)
	twilio := "SK" + fake(42, hexd, 32)
	pemBody := fake(43, b64, 64) + "\n" + fake(44, b64, 64) + "\n" + fake(45, b64, 40)
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "\n-----END RSA PRIVATE KEY-----"
	dbPassword := "s3" + fake(46, alnum, 10)
	dbPass := fake(47, alnum, 14)
	passV := "correct-" + fake(48, lower, 8)
	pgPass := "Pg" + fake(49, alnum, 12)
	dollar := "$ecret" + fake(50, alnum, 8)
	nested := "n3st" + fake(51, alnum, 10)
	jsonPw := fake(52, alnum, 16)
	jsonNested := fake(53, alnum, 16)
	minified := fake(54, alnum, 12)
	envTok := fake(55, alnum, 20)
	iniPw := fake(56, alnum, 12)
	camel := fake(57, alnum, 18)
	dashed := fake(58, alnum, 18)
	bearer := fake(59, alnum+"._-", 32)
	clientSecret := fake(60, alnum, 24)
	passwd := fake(61, alnum, 10)
	pwd := fake(62, alnum, 10)
	listed1, listed2 := fake(63, alnum, 12), fake(64, alnum, 12)
	block := fake(65, b64, 48)
	quoted := "it's " + fake(66, alnum, 8)
	cred := fake(67, alnum, 16)
	authTok := fake(68, alnum, 20)
	sshKey := fake(69, b64, 60)
	redisPass := fake(70, alnum, 12)
	mysqlPass := fake(71, alnum, 12)
	return []secretCase{
		// the shapes the issue lists
		{"aws_secret_access_key = (INI)", "[default]\naws_access_key_id = " + akia + "\naws_secret_access_key = " + awsSecret + "\n", awsSecret, ""},
		{"AWS_SECRET_ACCESS_KEY: (YAML)", "env:\n  AWS_SECRET_ACCESS_KEY: " + awsSecret2 + "\n", awsSecret2, ""},
		{"db_password:", "db:\n  host: localhost\n  db_password: " + dbPassword + "\n", dbPassword, KindSecretField},
		{"DB_PASS=", "DB_HOST=localhost\nDB_PASS=" + dbPass + "\n", dbPass, KindSecretField},
		{"pass:", "user: ada\npass: " + passV + "\n", passV, KindSecretField},
		{"URL with credentials", "database_url: postgres://user:" + pgPass + "@db.example.com/app\n", pgPass, KindURLPassword},
		{"Stripe live key", "stripe: " + stripe + "\n", stripe, ""},
		{"GitLab token", "# ci uses " + glpat + "\n", glpat, "gitlab-pat"},
		{"npm token", "//registry.npmjs.org/:_authToken=" + npm + "\n", npm, ""},
		{"Slack app token", "slack: " + xapp + "\n", xapp, ""},
		{"Slack webhook URL", "notify: " + slackHook + "\n", slackHook, "slack-webhook-url"},
		{"password that starts with $", "password: " + dollar + "\n", dollar, KindSecretField},
		{"nested password map", "password:\n  default: " + nested + "\n  staging: " + nested + "x\n", nested, KindSecretField},
		// tokens of services, found by the detector
		{"GitHub PAT", "token used: " + ghp + "\n", ghp, ""},
		{"GitHub OAuth", "gh auth " + gho + "\n", gho, ""},
		{"GitHub fine-grained PAT", "GH=" + ghPat + "\n", ghPat, ""},
		{"AWS access key id", "id " + akia + " here\n", akia, ""},
		{"Slack bot token", "bot " + xoxb + "\n", xoxb, ""},
		{"Google API key", "maps: " + google + "\n", google, ""},
		{"OpenAI project key", "use " + openai + "\n", openai, ""},
		{"Anthropic key", "claude " + anthropic + "\n", anthropic, ""},
		{"JWT", "cookie " + jwt + "\n", jwt, ""},
		{"SendGrid key", "mail " + sendgrid + "\n", sendgrid, ""},
		{"Shopify token", "shop " + shopify + "\n", shopify, ""},
		{"PyPI token", "upload " + pypi + "\n", pypi, ""},
		{"Databricks token", "databricks " + databricks + "\n", databricks, ""},
		{"DigitalOcean token", "do " + digitalocean + "\n", digitalocean, ""},
		{"Hugging Face token", "hub " + hf + "\n", hf, ""},
		{"Postman key", "postman " + postman + "\n", postman, ""},
		{"age secret key", age + "\n", age, ""},
		{"Pulumi token", "pulumi " + pulumi + "\n", pulumi, ""},
		{"Alibaba access key", "alibaba " + alibaba + "\n", alibaba, ""},
		{"Linear key", "linear " + linear + "\n", linear, ""},
		{"Doppler token", "doppler " + doppler + "\n", doppler, ""},
		{"Vault token", "vault " + vault + "\n", vault, ""},
		{"Grafana service account", "grafana " + grafana + "\n", grafana, ""},
		{"Twilio key", "twilio api key " + twilio + "\n", twilio, ""},
		{"PEM private key", "tls:\n  cert: ./c.pem\n" + pem + "\n", pemBody[:64], ""},
		// nika's structural rule, format by format
		{"JSON password", "{\n  \"user\": \"ada\",\n  \"password\": \"" + jsonPw + "\"\n}\n", jsonPw, KindSecretField},
		{"JSON nested credentials", "{\n  \"credentials\": {\n    \"user\": \"ada\",\n    \"value\": \"" + jsonNested + "\"\n  }\n}\n", jsonNested, KindSecretField},
		{"minified JSON", `{"db":{"host":"h","password":"` + minified + `"},"port":5432}` + "\n", minified, KindSecretField},
		{".env export", "export API_TOKEN=\"" + envTok + "\"\n", envTok, KindSecretField},
		{"INI section", "[database]\nuser = ada\npassword = " + iniPw + "\n", iniPw, KindSecretField},
		{"camelCase key", "config:\n  apiKey: " + camel + "\n", camel, KindSecretField},
		{"dashed quoted key", "\"private-key\": \"" + dashed + "\"\n", dashed, KindSecretField},
		{"Authorization header", "headers:\n  Authorization: Bearer " + bearer + "\n", bearer, ""},
		{"client_secret", "oauth:\n  client_id: abc\n  client_secret: " + clientSecret + "\n", clientSecret, KindSecretField},
		{"passwd=", "passwd=" + passwd + "\n", passwd, KindSecretField},
		{"pwd:", "pwd: " + pwd + "\n", pwd, KindSecretField},
		{"list under a secret key", "api_keys: [" + listed1 + ", " + listed2 + "]\n", listed2, KindSecretField},
		{"block scalar", "signing_key: |\n  " + block + "\n  " + block + "\nnext: 1\n", block, KindSecretField},
		{"quoted with an apostrophe", "secret: \"" + quoted + "\"\n", strings.TrimPrefix(quoted, "it's "), KindSecretField},
		{"credential", "credential: " + cred + "\n", cred, KindSecretField},
		{"auth_token in flow map", "svc: { url: \"https://x.example\", auth_token: " + authTok + " }\n", authTok, KindSecretField},
		{"ssh private key field", "ssh_private_key: " + sshKey + "\n", sshKey, ""},
		{"inline literal in Nika secrets", "nika: x\nsecrets:\n  redis: " + redisPass + "\ntasks: {}\n", redisPass, KindSecretField},
		{"question prose", "my mysql password: " + mysqlPass + " and it fails\n", mysqlPass, KindSecretField},
	}
}

// TestRedactionCorpus: every secret shape of the corpus is redacted, by
// its kind, at its line, and its value is in no part of the output.
func TestRedactionCorpus(t *testing.T) {
	corpus := secretCorpus()
	if len(corpus) < 40 {
		t.Fatalf("the corpus holds %d shapes, want at least 40", len(corpus))
	}
	for _, c := range corpus {
		out, rs := Text(c.text)
		if strings.Contains(out, c.secret) {
			t.Errorf("%s: the secret is still there:\n%s", c.name, out)
			continue
		}
		if len(rs) == 0 {
			t.Errorf("%s: no redaction recorded", c.name)
			continue
		}
		found := false
		for _, r := range rs {
			if (c.kind == "" || r.Kind == c.kind) && r.Line >= 1 && r.Line <= strings.Count(c.text, "\n")+1 {
				found = true
			}
			if strings.Contains(r.Kind, c.secret) {
				t.Errorf("%s: the record holds the value", c.name)
			}
		}
		if !found && c.kind != KindSecretField {
			t.Errorf("%s: recorded %+v, want kind %q", c.name, rs, c.kind)
		}
		if c.kind == KindSecretField {
			// nika's own rule finds it alone, whatever the detector
			// also finds (its generic-api-key rule often does).
			covered := false
			for _, sp := range structuralSpans(c.text) {
				covered = covered || strings.Contains(c.text[sp.start:sp.end], c.secret) || strings.Contains(c.secret, c.text[sp.start:sp.end]) && sp.end > sp.start
			}
			if !covered {
				t.Errorf("%s: the structural rule alone does not cover the secret", c.name)
			}
		}
		if !strings.Contains(out, "[redacted ") {
			t.Errorf("%s: no marker in %q", c.name, out)
		}
	}
}

// TestRedactionKeeps: what names a secret without holding it is sent as
// it is: references, declarations, counts, names, booleans, placeholders.
func TestRedactionKeeps(t *testing.T) {
	for _, in := range []string{
		"token: ${{ secrets.GH }}\npassword: ${{ inputs.pw }}\n",
		"Authorization: \"Bearer ${{ secrets.api_key }}\"\n",
		"DB_PASSWORD=${DB_PASSWORD}\nAPI_TOKEN=$API_TOKEN\n",
		"secrets:\n  api_key:\n    source: env\n    key: OPENAI_API_KEY\n  github_token: { source: env, key: GITHUB_TOKEN }\n",
		"tasks:\n  t:\n    infer: { prompt: \"hi\", model: \"mock/echo\", max_tokens: 50, budget_tokens: 10 }\n",
		"evidence:\n  - key: urgency\n    value: 1\n",
		"{\"private\": true, \"name\": \"pkg\"}\n",
		"password:\npassword: \"\"\nsecret: null\n",
		"NIKA_OPENAI_API_KEY=<key>\npassword: ********\n",
		"keywords: [a, b]\nauthor: ada\npassages: 3\n",
		"in one pass: add the flag, the unset key: a secrets entry\n",
		"no secret here: tokens are counted\n",
	} {
		out, rs := Text(in)
		if out != in || len(rs) != 0 {
			t.Errorf("changed:\n%s\n→\n%s\n%+v", in, out, rs)
		}
	}
}

// TestRedactionSpecHasNoFalsePositive: the spec's examples and templates
// (workflows, their documents, their golden outputs) hold no secret, and
// nothing in them is redacted. (The commit that added this rule reports
// the count: none.)
func TestRedactionSpecHasNoFalsePositive(t *testing.T) {
	spec := shared.Dir(t, "nika-spec")
	n := 0
	for _, dir := range []string{"examples", "examples/snippets", "examples/fixtures", "templates"} {
		ents, err := os.ReadDir(filepath.Join(spec, dir))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			b, err := os.ReadFile(filepath.Join(spec, dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			n++
			if _, rs := Text(string(b)); len(rs) > 0 {
				t.Errorf("%s/%s: %d false positive(s): %+v", dir, e.Name(), len(rs), rs)
			}
		}
	}
	if n < 40 {
		t.Fatalf("read %d files of the spec, want its examples and templates", n)
	}
}

func FuzzRedact(f *testing.F) {
	for _, c := range secretCorpus() {
		f.Add(c.text)
	}
	f.Add("a: {b: [c, {password: d}]}\npassword:\n  - x\n")
	f.Fuzz(func(t *testing.T, in string) {
		out, rs := Text(in)
		if len(rs) == 0 && out != in {
			t.Fatalf("changed with no redaction recorded: %q -> %q", in, out)
		}
		for _, r := range rs {
			if r.Line < 1 || r.Line > strings.Count(in, "\n")+1 {
				t.Fatalf("line %d out of %q", r.Line, in)
			}
		}
		// what is redacted stays redacted: a second pass changes nothing
		if again, _ := Text(out); again != out {
			t.Fatalf("not idempotent:\n%q\n-> %q\n-> %q", in, out, again)
		}
	})
}

// BenchmarkRedact32K: a named file at the bundle's bound (32 KiB of a
// workflow with secrets in it), through both rules.
func BenchmarkRedact32K(b *testing.B) {
	var s strings.Builder
	for s.Len() < 32<<10 { // the bundle's bound on a named file
		for _, c := range secretCorpus() {
			s.WriteString(c.text)
		}
	}
	text := s.String()[:32<<10]
	Text(text) // the detector's rules load once
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		redact(text) // uncached
	}
}

// BenchmarkRedactWorkflows: 32 KiB of the spec's example workflows, the
// shape a named file has.
func BenchmarkRedactWorkflows(b *testing.B) {
	spec := shared.Dir(b, "nika-spec")
	files, _ := filepath.Glob(filepath.Join(spec, "examples", "*.nika.yaml"))
	var s strings.Builder
	for _, f := range files {
		data, _ := os.ReadFile(f)
		s.Write(data)
		if s.Len() >= (32 << 10) {
			break
		}
	}
	text := s.String()
	if len(text) > (32 << 10) {
		text = text[:(32 << 10)]
	}
	Text(text)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		redact(text) // uncached
	}
}
