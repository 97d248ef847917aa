// Package checker is the static checker of the Nika workflow language: it
// audits the exact bytes of a workflow (*.nika.yaml) or a project file
// (nika.yaml) in memory, and reports every finding with its code, its
// position, and a fix when one is known.
//
// # Why it exists
//
// nika stages a model's proposed change as an unreferenced git commit and
// applies it only on a human's "yes". A human can only consent to what
// they can read, so the preview carries the checker's audit of the very
// bytes that would land: what the workflow would touch (the effect rows),
// and what is wrong with it (the findings). The checker is therefore a
// pure function of the bytes, with no network, no process, no write, and
// no git: the preview, the apply and the post-apply hook must all see the
// same verdict for the same bytes.
//
// # What it judges
//
// The strict YAML profile comes first, because what a reviewer sees must
// be what the engine sees: no anchors, aliases or merge keys (they expand
// hidden bytes), no duplicate keys (no silent last-wins), no custom tags,
// non-string keys or non-finite numbers, no byte-order mark, and the size
// and depth caps.
//
// Then the grammar: the closed nine-key envelope (a key that is silently
// ignored could remove authority, so every level is a closed set), task
// identity, exactly one verb per task and the closed keys of each verb,
// required fields and exclusive pairs, ${{ }} references and the boundary
// where tasks.* may be read, after: predicates, cycles, tool ids, model
// ids and type expressions.
//
// Then authority, the part a human most needs before saying yes. The
// effects a body requires are inferred from its verbs and arguments, never
// declared by hand, and must fit inside the permits: block. An absent block
// declares zero authority. Bounds must be literals, hosts exact, untrusted
// values are re-judged on their resolved form, secrets may only reach the
// sinks their egress: sanctions, and the unconditional laws (no shell
// downstream of a network fetch; a refused confirm never triggers an
// effect) hold with no declaration at all.
//
// # The fix ladder
//
// Repair is the prepass that rewrites dead forms of the language into
// their living spelling. It edits the bytes textually, so the author's
// formatting and comments survive, and it refuses to guess: a repair
// applies only where its token is unique, every round is re-parsed, a round
// that breaks the YAML is rolled back, and an ambiguous case becomes a note
// for the human instead of an edit.
//
// # Reading files beside a workflow
//
// Check judges the bytes alone. CheckFS additionally reads, never writes,
// the files a workflow names beside itself (agent skills and composed
// child workflows) through an fs.FS, and the checker never chooses that
// file system: each door hands it its own source of truth, from one
// constructor per source, so no door forgets. The preview's audit and
// nika verify pass the proposal commit's tree (gitstage.TreeFS, through
// flow.ProposalFS): exactly what the apply will write, with every
// neighbour as it will be. The post-apply check and nika check pass the
// disk beneath the root (safefs.DirFS), which never follows a symlink.
// The session passes its snapshot of the working tree (flow.SnapshotFS).
//
// Composition reads children the same way and judges the laws a static
// check can see (14-composition.md): a static, pinned target, an acyclic
// call graph across files, the typed call (args against the child's
// inputs:, its outputs: against the parent's returns:), and containment
// of the child's authority, its own children's included. A file is
// reported missing only when the file system says it does not exist; a
// symlink, an unreadable file or a path outside the root is not judged.
package checker
