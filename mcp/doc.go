// Package mcp is `nika mcp`: the agents' door, a Model Context Protocol
// server on stdin and stdout (the official Go SDK; every protocol revision
// it supports).
// An agent may propose, check, show, list, read the status, explain a
// code and withdraw a pending proposal. No tool applies, consents, answers
// a gate or runs a workflow: agent hosts can approve tool calls on their
// own, so no tool may move the branch, the index or the working tree. The
// boundary of what a proposal may touch is the human's: the project's
// nika.allow, and the --allow flags written in the host's configuration;
// no tool argument widens it. The server only translates: the logic is
// flow's, the same for every door. docs/agents.md is its manual.
//
// The CLI (cmd/nika) parses nika mcp's flags and calls Serve; the server,
// its tools with their input and output schemas (inferred by the SDK from
// the structs of shapes.go), the mapping from a refusal to a tool error
// and the words of this door (package doorwords, MCP) are here.
// cmd/nika's tests drive the built binary through the SDK's own client.
package mcp
