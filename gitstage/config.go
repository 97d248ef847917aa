package gitstage

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// Scope is where a layer of configuration comes from, as git names them.
type Scope int

const (
	ScopeSystem   Scope = iota // /etc/gitconfig, or GIT_CONFIG_SYSTEM
	ScopeGlobal                // GIT_CONFIG_GLOBAL, or $XDG_CONFIG_HOME/git/config then ~/.gitconfig
	ScopeLocal                 // the repository's config (in the common git dir)
	ScopeWorktree              // config.worktree of this worktree, with extensions.worktreeConfig
	ScopeCommand               // git -c (GIT_CONFIG_PARAMETERS) and GIT_CONFIG_COUNT
)

// Config is git's configuration as git itself layers it: system, global,
// the repository's config, the worktree's config.worktree (when
// extensions.worktreeConfig is on), then the command line: the -c options
// that git passes to a subcommand in GIT_CONFIG_PARAMETERS (so `git -c
// k=v nika` works), and the GIT_CONFIG_COUNT pairs. Later layers win for
// single values; multi-valued keys accumulate. Include directives are not
// followed.
type Config struct {
	layers []layer
}

type layer struct {
	scope Scope
	cfg   *format.Config // a parsed file, or nil for pairs
	pairs [][2]string    // lower-cased key, value (command-line scope)
}

// loadConfig reads every layer for a repository whose common git dir is
// commonDir and whose own git dir is gitDir. env reads the environment.
func loadConfig(commonDir, gitDir string, env Env) *Config {
	c := &Config{}
	get := func(k string) string { v, _ := env(k); return v }
	home := get("HOME")
	if v := get("GIT_CONFIG_NOSYSTEM"); v == "" || !parseBool(v, false) {
		sys := "/etc/gitconfig"
		if v, ok := env("GIT_CONFIG_SYSTEM"); ok {
			sys = v
		}
		c.addFile(ScopeSystem, sys)
	}
	if g, ok := env("GIT_CONFIG_GLOBAL"); ok {
		c.addFile(ScopeGlobal, g)
	} else {
		xdg := get("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			c.addFile(ScopeGlobal, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			c.addFile(ScopeGlobal, filepath.Join(home, ".gitconfig"))
		}
	}
	if commonDir != "" {
		c.addFile(ScopeLocal, filepath.Join(commonDir, "config"))
		if gitDir != "" && c.Bool("extensions.worktreeConfig", false) {
			c.addFile(ScopeWorktree, filepath.Join(gitDir, "config.worktree"))
		}
	}
	if pairs, ok := parseConfigParameters(get("GIT_CONFIG_PARAMETERS")); ok && len(pairs) > 0 {
		c.layers = append(c.layers, layer{scope: ScopeCommand, pairs: pairs})
	}
	if n, err := strconv.Atoi(get("GIT_CONFIG_COUNT")); err == nil && n > 0 {
		var pairs [][2]string
		for i := 0; i < n; i++ {
			k := get("GIT_CONFIG_KEY_" + strconv.Itoa(i))
			v := get("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
			pairs = append(pairs, [2]string{strings.ToLower(k), v})
		}
		c.layers = append(c.layers, layer{scope: ScopeCommand, pairs: pairs})
	}
	return c
}

func (c *Config) addFile(scope Scope, path string) {
	if cfg := readConfigFile(path); cfg != nil {
		c.layers = append(c.layers, layer{scope: scope, cfg: cfg})
	}
}

// readConfigFile parses one config file; nil when it is missing or
// unreadable (git skips a missing file, and nika does not guess at a
// malformed one).
func readConfigFile(path string) *format.Config {
	fh, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer fh.Close()
	cfg := format.New()
	if err := format.NewDecoder(fh).Decode(cfg); err != nil {
		return nil
	}
	return cfg
}

// parseConfigParameters reads GIT_CONFIG_PARAMETERS: shell-quoted
// 'key'='value' words (git 2.31 and later) or 'key=value' words (older).
func parseConfigParameters(s string) ([][2]string, bool) {
	var out [][2]string
	i := 0
	word := func() (string, bool) {
		if i >= len(s) || s[i] != '\'' {
			return "", false
		}
		var b strings.Builder
		for {
			i++ // past the opening quote
			j := strings.IndexByte(s[i:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(s[i : i+j])
			i += j + 1
			// 'a'\''b' is a'b: an escaped quote between two quoted runs.
			if strings.HasPrefix(s[i:], `\''`) {
				b.WriteByte('\'')
				i += 2
				continue
			}
			return b.String(), true
		}
	}
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return out, true
		}
		k, ok := word()
		if !ok {
			return out, false
		}
		if i < len(s) && s[i] == '=' {
			i++
			v, ok := word()
			if !ok {
				return out, false
			}
			out = append(out, [2]string{strings.ToLower(k), v})
			continue
		}
		key, v, _ := strings.Cut(k, "=")
		out = append(out, [2]string{strings.ToLower(key), v})
	}
}

// splitKey splits "section.sub.key" into its parts; the subsection may
// contain dots.
func splitKey(key string) (section, sub, name string) {
	i := strings.IndexByte(key, '.')
	j := strings.LastIndexByte(key, '.')
	if i < 0 {
		return key, "", ""
	}
	section, name = key[:i], key[j+1:]
	if i != j {
		sub = key[i+1 : j]
	}
	return
}

// GetAll returns every value of key, in layer order.
func (c *Config) GetAll(key string) []string { return c.getAll(key, nil) }

// GetProtected is GetAll over the layers git trusts for safety settings
// (safe.directory, safe.bareRepository): system, global and command line,
// never the repository's own config, which whoever owns the repository
// writes.
func (c *Config) GetProtected(key string) []string {
	return c.getAll(key, func(s Scope) bool { return s == ScopeSystem || s == ScopeGlobal || s == ScopeCommand })
}

func (c *Config) getAll(key string, want func(Scope) bool) []string {
	var out []string
	for _, l := range c.layers {
		if want == nil || want(l.scope) {
			out = append(out, l.values(key)...)
		}
	}
	return out
}

// values lists the layer's values of key, in the order of the file.
func (l layer) values(key string) []string {
	if l.cfg == nil {
		lk := strings.ToLower(key)
		var out []string
		for _, kv := range l.pairs {
			if kv[0] == lk {
				out = append(out, kv[1])
			}
		}
		return out
	}
	section, sub, name := splitKey(key)
	if !l.cfg.HasSection(section) {
		return nil
	}
	s := l.cfg.Section(section)
	if sub == "" {
		return s.OptionAll(name)
	}
	if s.HasSubsection(sub) {
		return s.Subsection(sub).OptionAll(name)
	}
	return nil
}

// Get returns the last value of key, as git does, and whether it is set.
func (c *Config) Get(key string) (string, bool) {
	all := c.GetAll(key)
	if len(all) == 0 {
		return "", false
	}
	return all[len(all)-1], true
}

// Bool reads a git boolean; unset gives def.
func (c *Config) Bool(key string, def bool) bool {
	v, ok := c.Get(key)
	if !ok {
		return def
	}
	return parseBool(v, def)
}

func parseBool(v string, def bool) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1", "":
		return true
	case "false", "no", "off", "0":
		return false
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		return n != 0
	}
	return def
}
