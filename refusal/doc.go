// Package refusal holds the one table of refusal classes that every door
// shares: the CLI exits with a class's code, the stdio protocol and the MCP
// server report the class by name, and library packages return an *Error
// that carries it. It is a leaf: it imports nothing of nika, so every
// package can use it without pulling in another room.
//
// A class is what a host acts on (retry, rebuild the preview, ask the
// human); the text and hint are for a human. Library errors should carry
// data (which path, which input, which limit) in their text; words that
// name a door's own commands or flags belong to that door, which words
// the error's Fix (package doorwords). TestLibrariesSpeakNoDoorWords
// keeps every string of the library packages free of a nika verb or flag.
package refusal
