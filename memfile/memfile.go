// Package memfile holds the two open files an fs.FS hands out when it has
// read what it serves into memory: a file's bytes, or a directory's
// entries. The checker's file systems (the proposal's tree in gitstage,
// the disk beneath the root in safefs) both read whole and bounded, so
// they share these rather than each keeping a copy.
package memfile

import (
	"errors"
	"io"
	"io/fs"
)

// File is an open regular file whose bytes are in memory.
type File struct {
	info fs.FileInfo
	data []byte
	off  int
}

// NewFile opens data as the file info describes.
func NewFile(info fs.FileInfo, data []byte) *File { return &File{info: info, data: data} }

func (f *File) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *File) Close() error               { return nil }
func (f *File) Read(p []byte) (int, error) {
	if f.off >= len(f.data) {
		return 0, io.EOF
	}
	n := copy(p, f.data[f.off:])
	f.off += n
	return n, nil
}

// Dir is an open directory whose entries are in memory.
type Dir struct {
	info fs.FileInfo
	ents []fs.DirEntry
	off  int
}

// NewDir opens a directory of ents, as info describes it.
func NewDir(info fs.FileInfo, ents []fs.DirEntry) *Dir { return &Dir{info: info, ents: ents} }

func (d *Dir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *Dir) Close() error               { return nil }
func (d *Dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.Name(), Err: errors.New("is a directory")}
}

// ReadDir implements fs.ReadDirFile.
func (d *Dir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.off:]
	if n <= 0 {
		d.off = len(d.ents)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.off += n
	return rest[:n], nil
}
