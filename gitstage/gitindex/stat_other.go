//go:build !linux && !darwin

package gitindex

import "os"

func statSys(fi os.FileInfo) (Stat, bool) { return Stat{}, false }
