//go:build unix && !linux

package gitstage

const populateFlag = 0
