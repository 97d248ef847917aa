package main

import (
	"fmt"
	"runtime/debug"

	"github.com/nika-dev/nika/refusal"
)

// version is the module version and the VCS revision the binary was built
// from, as the Go toolchain recorded them.
func version() versionJSON {
	v := versionJSON{Type: "version", Version: "(devel)", Revision: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Go = bi.GoVersion
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func (d *door) printVersion() int {
	v := version()
	if d.json {
		if err := d.writeJSON(v); err != nil {
			return refusal.Code(refusal.Io)
		}
		return exitOK
	}
	rev := v.Revision
	if v.Modified {
		rev += " (modified)"
	}
	fmt.Fprintf(d.stdout, "nika version %s, revision %s, %s\n", v.Version, rev, v.Go)
	return exitOK
}
