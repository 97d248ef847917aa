//go:build unix && !linux

package gitindex

const populateFlag = 0
