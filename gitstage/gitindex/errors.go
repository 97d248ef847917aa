package gitindex

import (
	"errors"
	"fmt"
)

// Refusals of the codec. Each is a sentinel (or a type whose Is matches one),
// so that callers can classify them with errors.Is, and each text says what
// was refused, why, and the fix.
var (
	// ErrSplitIndex: the index is split (extension "link"); its entries live
	// partly in a shared index file that this package does not read or write.
	ErrSplitIndex = errors.New("gitindex: the index is split (extension \"link\"), which nika does not rewrite · " +
		"run `git update-index --no-split-index` (and `git config core.splitIndex false`), then retry")

	// ErrSparseIndex: the index is sparse (extension "sdir", or directory
	// entries); some tracked files are folded into tree entries.
	ErrSparseIndex = errors.New("gitindex: the index is a sparse index (extension \"sdir\"), which nika does not rewrite · " +
		"run `git sparse-checkout reapply --no-sparse-index` (or `git config index.sparse false`), then retry")

	// ErrMandatoryExtension: an extension whose signature starts with a
	// lowercase letter, which a reader must understand, and this one does not.
	ErrMandatoryExtension = errors.New("gitindex: the index has a mandatory extension that nika does not understand")

	// ErrChecksum: the trailer is neither the index's checksum nor all zeros.
	ErrChecksum = errors.New("gitindex: the index file is corrupt (checksum mismatch) · " +
		"check it with `git fsck`; `git read-tree HEAD` rebuilds it from HEAD (staged changes are lost)")

	// ErrCorrupt: the bytes are not a well-formed index file. A *FormatError
	// wraps it with the offset and the reason.
	ErrCorrupt = errors.New("gitindex: the index file is corrupt")

	// ErrUnsupportedVersion: the index version is not 2, 3 or 4.
	ErrUnsupportedVersion = errors.New("gitindex: unsupported index version (nika reads versions 2, 3 and 4) · " +
		"run `git update-index --index-version 4` (or 2), then retry")

	// ErrHashSize: the hash size is neither 20 (SHA-1) nor 32 (SHA-256).
	ErrHashSize = errors.New("gitindex: unsupported object id size (20 for SHA-1 and 32 for SHA-256 are supported)")

	// ErrInvalidEntry: an entry that Set or Encode refuses (bad path, bad
	// hash length, unsorted entries, bad stage, bad mode).
	ErrInvalidEntry = errors.New("gitindex: invalid index entry")

	// ErrDirFileConflict: Set would add a file where a directory is tracked,
	// or under a path that is tracked as a file.
	ErrDirFileConflict = errors.New("gitindex: file/directory conflict")

	// ErrLocked: the index lock file exists. A *LockedError carries the path.
	ErrLocked = errors.New("gitindex: the index is locked")
)

// FormatError reports a malformed index file: the byte offset where decoding
// failed and why. It matches ErrCorrupt with errors.Is.
type FormatError struct {
	Offset int
	Reason string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("gitindex: the index file is corrupt at byte %d: %s · "+
		"check it with `git status`; `git read-tree HEAD` rebuilds it from HEAD (staged changes are lost)", e.Offset, e.Reason)
}

// Is makes a *FormatError match ErrCorrupt.
func (e *FormatError) Is(target error) bool { return target == ErrCorrupt }

// ExtensionError names an extension that the decoder refuses. It matches
// ErrMandatoryExtension, ErrSplitIndex or ErrSparseIndex with errors.Is.
type ExtensionError struct {
	Signature string
	kind      error
}

func (e *ExtensionError) Error() string {
	if e.kind == ErrMandatoryExtension {
		return fmt.Sprintf("gitindex: the index has a mandatory extension %q that nika does not understand · "+
			"it was written by a newer or different git; rewrite the index with your git (e.g. `git update-index --index-version 2`) or update nika", e.Signature)
	}
	return e.kind.Error()
}

// Is matches the refusal class of the extension.
func (e *ExtensionError) Is(target error) bool { return target == e.kind }

// Unwrap returns the refusal class.
func (e *ExtensionError) Unwrap() error { return e.kind }

// LockedError reports that <index>.lock exists. It matches ErrLocked.
type LockedError struct {
	Path string // the lock file
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("gitindex: unable to create %s: file exists · another git process is running; if none is, remove %s", e.Path, e.Path)
}

// Is makes a *LockedError match ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

func corrupt(off int, format string, args ...any) error {
	return &FormatError{Offset: off, Reason: fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidEntry, fmt.Sprintf(format, args...))
}
