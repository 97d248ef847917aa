package mcp

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCPRegister is what nika mcp does at start before it reads its
// first message: the server and its tools, whose input and output schemas
// the SDK infers and resolves.
func BenchmarkMCPRegister(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		srv := sdk.NewServer(&sdk.Implementation{Name: "nika", Version: "bench"}, &sdk.ServerOptions{Instructions: Instructions})
		s := &server{tools: map[string]bool{}}
		s.register(srv)
	}
}
