// Package redact removes secrets from text before it leaves the machine:
// the model's bundle, a reasoner's error text, a human's review comments.
//
// What is sent passes two rules, and what either finds is replaced by "[redacted KIND]" before anything leaves.
//
//  1. A maintained secret detector: gitleaks' detector (its default rule
//     set, about 220 rules for the token shapes of cloud providers, code
//     hosts, payment and chat services, private keys, JWTs, generic API
//     keys by keyword and entropy), used as a library. Its maintainers
//     keep the shapes current; nika does not keep a second copy of them.
//  2. nika's structural rule: any value under a key that names a secret
//     (password, passwd, pass, pwd, secret, token, key, credential, auth,
//     private, in any case and with any separator: db_password, DB_PASS,
//     apiKey, "private-key") is redacted whole, including nested maps,
//     lists and block scalars, in YAML, .env, JSON and INI-like text. A
//     URL's password (scheme://user:PASSWORD@host) is redacted too.
//
// What is kept, since it is no secret: references (${{ secrets.X }},
// ${VAR}, $VAR), empty values, null and booleans, Nika's secret
// declarations (a map with source: env|file|vault, which names where a
// secret is, never what it is), and under the bare key "key" a value that
// is a name (key: urgency, key: ONCALL_WEBHOOK_URL) rather than a random
// string. Counts such as max_tokens are not secrets either: "tokens" is
// not "token".
//
// Each redaction is recorded by its kind and line, never its value.
package redact
