package gitindex

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// TestDecodeRefuses: what Decode refuses, with which class, and that the
// text names the fix.
func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(r *repo) []byte // returns the index bytes to decode
		hashSize int                  // 0: the repository's
		want     error
		text     string // a substring of the error text
	}{
		{
			name: "split index",
			setup: func(r *repo) []byte {
				populate(r)
				r.git("update-index", "--split-index")
				return r.indexBytes()
			},
			want: ErrSplitIndex,
			text: "git update-index --no-split-index",
		},
		{
			name: "sparse index",
			setup: func(r *repo) []byte {
				populate(r)
				r.git("commit", "-qm", "base")
				r.git("sparse-checkout", "set", "--cone", "--sparse-index", "a")
				return r.indexBytes()
			},
			want: ErrSparseIndex,
			text: "git sparse-checkout reapply --no-sparse-index",
		},
		{
			name: "unknown mandatory extension",
			setup: func(r *repo) []byte {
				populate(r)
				return withExtension(r.indexBytes(), r.hs, "nika", []byte("x"))
			},
			want: ErrMandatoryExtension,
			text: `"nika"`,
		},
		{
			name: "checksum mismatch",
			setup: func(r *repo) []byte {
				populate(r)
				b := r.indexBytes()
				b[20] ^= 1
				return b
			},
			want: ErrChecksum,
			text: "checksum mismatch",
		},
		{
			name: "SHA-1 index read as SHA-256",
			setup: func(r *repo) []byte {
				populate(r)
				return r.indexBytes()
			},
			hashSize: 32,
			want:     ErrChecksum,
		},
		{
			name: "unsupported hash size",
			setup: func(r *repo) []byte {
				populate(r)
				return r.indexBytes()
			},
			hashSize: 16,
			want:     ErrHashSize,
		},
		{
			name: "version 5",
			setup: func(r *repo) []byte {
				populate(r)
				b := r.indexBytes()
				binary.BigEndian.PutUint32(b[4:], 5)
				return retrail(b[:len(b)-r.hs], r.hs)
			},
			want: ErrUnsupportedVersion,
			text: "git update-index --index-version",
		},
		{
			name: "bad signature",
			setup: func(r *repo) []byte {
				populate(r)
				b := r.indexBytes()
				copy(b, "DIRX")
				return retrail(b[:len(b)-r.hs], r.hs)
			},
			want: ErrCorrupt,
			text: `"DIRX"`,
		},
		{
			name: "too many entries claimed",
			setup: func(r *repo) []byte {
				populate(r)
				b := r.indexBytes()
				binary.BigEndian.PutUint32(b[8:], 1<<30)
				return retrail(b[:len(b)-r.hs], r.hs)
			},
			want: ErrCorrupt,
			text: "more than the file can hold",
		},
		{
			name: "entries out of order",
			setup: func(r *repo) []byte {
				r.write("a1", "1")
				r.write("b1", "2")
				r.git("add", ".")
				b := r.indexBytes()
				i := strings.Index(string(b), "a1\x00")
				b[i] = 'c' // "c1" before "b1"
				return retrail(b[:len(b)-r.hs], r.hs)
			},
			want: ErrCorrupt,
			text: "out of order",
		},
		{
			name: "a merged and a conflict entry for one path",
			setup: func(r *repo) []byte {
				r.write("x1", "1")
				r.write("x2", "2")
				r.git("add", ".")
				b := r.indexBytes()
				i := strings.Index(string(b), "x2\x00")
				b[i+1] = '1'
				binary.BigEndian.PutUint16(b[i-2:], binary.BigEndian.Uint16(b[i-2:])|1<<12) // stage 1
				return retrail(b[:len(b)-r.hs], r.hs)
			},
			want: ErrCorrupt,
			text: "a merged entry and a conflict entry",
		},
		{
			name: "truncated entries",
			setup: func(r *repo) []byte {
				populate(r)
				b := r.indexBytes()
				return retrail(b[:100], r.hs)
			},
			want: ErrCorrupt,
		},
		{
			name: "extension size beyond the end",
			setup: func(r *repo) []byte {
				populate(r)
				b := withExtension(r.indexBytes(), r.hs, "ZZZZ", []byte("abc"))
				body := b[:len(b)-r.hs]
				binary.BigEndian.PutUint32(body[len(body)-7:], 1000)
				return retrail(body, r.hs)
			},
			want: ErrCorrupt,
			text: `extension "ZZZZ" claims 1000 bytes`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			b := tt.setup(r)
			hs := tt.hashSize
			if hs == 0 {
				hs = r.hs
			}
			_, err := Decode(b, hs)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Decode error = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("error text %q does not contain %q", err, tt.text)
			}
		})
	}
}
