package gitstage

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// Config is git's configuration as git itself layers it: system, global
// (GIT_CONFIG_GLOBAL, ~/.gitconfig, $XDG_CONFIG_HOME/git/config), the
// repository's config, then GIT_CONFIG_COUNT pairs from the environment.
// Later layers win for single values; multi-valued keys accumulate.
type Config struct {
	layers []*format.Config
	env    [][2]string // key, value from GIT_CONFIG_KEY_n/VALUE_n
}

func loadConfig(commonDir string) *Config {
	c := &Config{}
	var files []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, "/etc/gitconfig")
	}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		files = append(files, g)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			if h, err := os.UserHomeDir(); err == nil {
				xdg = filepath.Join(h, ".config")
			}
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if h, err := os.UserHomeDir(); err == nil {
			files = append(files, filepath.Join(h, ".gitconfig"))
		}
	}
	files = append(files, filepath.Join(commonDir, "config"))
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		cfg := format.New()
		if err := format.NewDecoder(fh).Decode(cfg); err == nil {
			c.layers = append(c.layers, cfg)
		}
		fh.Close()
	}
	if n, err := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT")); err == nil {
		for i := 0; i < n; i++ {
			k := os.Getenv("GIT_CONFIG_KEY_" + strconv.Itoa(i))
			v := os.Getenv("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
			c.env = append(c.env, [2]string{strings.ToLower(k), v})
		}
	}
	return c
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
func (c *Config) GetAll(key string) []string {
	section, sub, name := splitKey(key)
	var out []string
	for _, l := range c.layers {
		if !l.HasSection(section) {
			continue
		}
		s := l.Section(section)
		if sub == "" {
			out = append(out, s.OptionAll(name)...)
		} else if s.HasSubsection(sub) {
			out = append(out, s.Subsection(sub).OptionAll(name)...)
		}
	}
	lk := strings.ToLower(key)
	for _, kv := range c.env {
		if kv[0] == lk {
			out = append(out, kv[1])
		}
	}
	return out
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
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1", "":
		return true
	case "false", "no", "off", "0":
		return false
	}
	return def
}
