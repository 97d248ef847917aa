package main

// fileHeadroom has nothing to check on Windows: its handles have no small
// per-process limit like unix's RLIMIT_NOFILE, and the runtime's poller
// needs none free.
func fileHeadroom() error { return nil }
