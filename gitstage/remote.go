package gitstage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/nika-dev/nika/changeset"
	"github.com/nika-dev/nika/refusal"
)

// ProposalRefPrefix is where published proposals live on a remote, and
// locally once fetched: refs/nika/proposals/<id>. Local proposals stay
// unreferenced; this is the one place a local ref appears, fetched.
const ProposalRefPrefix = "refs/nika/proposals/"

// Remote is a remote as nika reaches it.
type Remote struct {
	Name string // the configured name, or "" for a URL or path given as is
	URL  string // what go-git dials: a URL, or an absolute path
}

// ResolveRemote reads remote.<name>.url, or takes arg as a URL or a path
// (relative to the working directory). "" means origin.
func (r *Repo) ResolveRemote(arg string) (Remote, error) {
	if arg == "" {
		arg = "origin"
	}
	if u, ok := r.Config.Get("remote." + arg + ".url"); ok && u != "" {
		return Remote{Name: arg, URL: localURL(u, r.Root)}, nil
	}
	if strings.Contains(arg, "://") || strings.Contains(arg, "@") && strings.Contains(arg, ":") {
		return Remote{URL: arg}, nil
	}
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		wd, _ := os.Getwd()
		return Remote{URL: localURL(arg, wd)}, nil
	}
	return Remote{}, refusal.New(refusal.NotFound, "add it with git remote add NAME URL, or give a URL or a path",
		"no remote is named %s, and it is not a path to a repository", changeset.Quote(arg))
}

func localURL(u, dir string) string {
	if strings.Contains(u, "://") || (strings.Contains(u, ":") && !filepath.IsAbs(u) && !strings.HasPrefix(u, ".")) {
		return u
	}
	if !filepath.IsAbs(u) {
		u = filepath.Join(dir, u)
	}
	return filepath.Clean(u)
}

func (rm Remote) label() string {
	if rm.Name != "" {
		return rm.Name
	}
	return "the remote"
}

// PushProposal publishes a proposal's commit (and the objects it needs that
// the remote lacks) as refs/nika/proposals/<id> on the remote, so CI can
// verify it before anyone consents. It writes no local ref: the refspec's
// source is the commit id itself. It reports false when the remote already
// had that ref at that commit.
func (r *Repo) PushProposal(rm Remote, id, commit string) (bool, error) {
	if !plumbing.IsHash(commit) {
		return false, refusal.New(refusal.Invalid, "", "%q is not a commit id", commit)
	}
	remote := git.NewRemote(r.store, &config.RemoteConfig{Name: "nika", URLs: []string{rm.URL}})
	err := remote.PushContext(context.Background(), &git.PushOptions{
		RemoteName: "nika",
		RemoteURL:  rm.URL,
		RefSpecs:   []config.RefSpec{config.RefSpec(commit + ":" + ProposalRefPrefix + id)},
	})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		return false, nil
	}
	if err != nil {
		return false, remoteRefusal("push to", rm, err)
	}
	return true, nil
}

// Fetched is one proposal ref brought back by FetchProposals.
type Fetched struct {
	ID     string
	Commit string
}

// FetchProposals fetches the remote's refs/nika/proposals/* into the same
// local names, with their objects, and lists what the local refs now hold.
func (r *Repo) FetchProposals(rm Remote) ([]Fetched, error) {
	remote := git.NewRemote(r.store, &config.RemoteConfig{Name: "nika", URLs: []string{rm.URL}})
	err := remote.FetchContext(context.Background(), &git.FetchOptions{
		RemoteName: "nika",
		RemoteURL:  rm.URL,
		RefSpecs:   []config.RefSpec{config.RefSpec("+" + ProposalRefPrefix + "*:" + ProposalRefPrefix + "*")},
		Tags:       git.NoTags,
	})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil, remoteRefusal("fetch from", rm, err)
	}
	return r.ProposalRefs()
}

// ProposalRefs lists the local refs/nika/proposals/*.
func (r *Repo) ProposalRefs() ([]Fetched, error) {
	iter, err := r.store.IterReferences()
	if err != nil {
		return nil, ioRefusal("list refs", err)
	}
	var out []Fetched
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if id, ok := strings.CutPrefix(ref.Name().String(), ProposalRefPrefix); ok && ref.Type() == plumbing.HashReference {
			out = append(out, Fetched{ID: id, Commit: ref.Hash().String()})
		}
		return nil
	})
	if err != nil && !errors.Is(err, storer.ErrStop) {
		return nil, ioRefusal("list refs", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func remoteRefusal(verb string, rm Remote, err error) error {
	// The URL of a local remote is a host path: never in the text.
	msg := strings.ReplaceAll(err.Error(), rm.URL, rm.label())
	class := refusal.Io
	hint := "check the remote's URL and your access to it (git ls-remote " + rm.label() + ")"
	switch {
	case errors.Is(err, transport.ErrRepositoryNotFound):
		class = refusal.NotFound
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		hint = "nika uses go-git's transports: check the credentials for " + rm.label()
	case strings.Contains(msg, "non-fast-forward"):
		class = refusal.StaleRevision
		hint = "the remote holds another commit under this proposal id; remove that ref on the remote first"
	}
	return &refusal.Error{Class: class, Err: err, Text: fmt.Sprintf("could not %s %s: %s", verb, rm.label(), msg), Hint: hint}
}
