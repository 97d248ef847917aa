package main

import (
	"os"
	"testing"
)

// TestZZMachineOutputWasRead: the scripts produced machine outputs and
// they were read (the check above cannot pass by reading nothing). It
// runs after the scripts when the whole package runs; alone it skips.
func TestZZMachineOutputWasRead(t *testing.T) {
	if machineLogRoot == "" {
		t.Skip("no script ran in this test binary (run the package's tests together)")
	}
	t.Logf("%d machine outputs read", machineOutputs.Load())
	if n := machineOutputs.Load(); n < 20 {
		t.Fatalf("the scripts produced %d machine outputs; the suite's --json and serve scripts give far more", n)
	}
	os.RemoveAll(machineLogRoot)
}
