// Package convert is git's conversion between the working tree and the
// object database, done as git's convert.c does it, so that nika stores
// the blob `git add` would store and writes the bytes `git checkout`
// would write:
//
//   - the attributes that decide it (attr.go): .gitattributes at every
//     level, $GIT_DIR/info/attributes, core.attributesFile and the system
//     file, with git's precedence, macros ([attr], binary) and patterns;
//   - line endings (eol.go): the text, eol and legacy crlf attributes,
//     text=auto with git's binary detection, core.autocrlf, core.eol, and
//     core.safecrlf's round-trip check;
//   - the working-tree-encoding attribute (encoding.go), with git's BOM
//     rules;
//   - the ident attribute ($Id$);
//   - clean and smudge filters (filter.go): filter.<name>.clean/smudge
//     commands run through the shell with %f, and the long-running
//     filter.<name>.process protocol (process.go: pkt-line, version 2,
//     capability negotiation) that git-lfs speaks; filter.<name>.required
//     is honoured, and a filter that has no configuration passes the bytes
//     through, as in git.
//
// The order is git's: to git, clean filter, then encoding, then line
// endings, then ident; to the working tree the reverse.
//
// A Plan is what applies to one path, as data: the preview words it
// ("CRLF on disk (core.autocrlf=true)", "filter lfs: git-lfs
// filter-process") and the consent snapshot compares it. The package runs
// the programs that git's configuration names (filters) only when asked
// to convert bytes; Plan never runs anything. It knows nothing of
// repositories: gitstage hands it the configuration, the attribute files
// and the working tree's root. See docs/line-endings.md for the rules and
// the tests that pin each.
package convert
