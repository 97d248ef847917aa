package convert

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// encodingName is git's git_path_check_encoding: the working-tree-encoding
// attribute's value in upper case, or "" when none applies (unset, set
// without a value, or UTF-8 itself).
func encodingName(a Attr) string {
	if a.State != Value || a.Value == "" {
		return ""
	}
	v := strings.ToUpper(a.Value)
	if v == "UTF-8" || v == "UTF8" {
		return ""
	}
	return v
}

var (
	bom16be = []byte{0xfe, 0xff}
	bom16le = []byte{0xff, 0xfe}
	bom32be = []byte{0, 0, 0xfe, 0xff}
	bom32le = []byte{0xff, 0xfe, 0, 0}
)

// utfName strips git's optional dash: UTF16LE is UTF-16LE.
func utfName(enc string) string {
	if strings.HasPrefix(enc, "UTF") && !strings.HasPrefix(enc, "UTF-") {
		return "UTF-" + enc[3:]
	}
	return enc
}

// codec returns the x/text encoding for git's (iconv's) name. The
// unmarked UTF-16 and UTF-32 are written as iconv writes them on the
// system git runs on: glibc writes a little-endian BOM and little-endian
// units; the libiconv of macOS and Git for Windows a big-endian one.
func codec(enc string) (encoding.Encoding, error) {
	native := unicode.LittleEndian
	native32 := utf32.LittleEndian
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		native, native32 = unicode.BigEndian, utf32.BigEndian
	}
	switch utfName(enc) {
	case "UTF-16":
		return unicode.UTF16(native, unicode.ExpectBOM), nil
	case "UTF-16BE":
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), nil
	case "UTF-16LE":
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), nil
	case "UTF-16LE-BOM":
		return unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), nil
	case "UTF-32":
		return utf32.UTF32(native32, utf32.ExpectBOM), nil
	case "UTF-32BE":
		return utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM), nil
	case "UTF-32LE":
		return utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM), nil
	}
	e, err := ianaindex.IANA.Encoding(enc)
	if err != nil || e == nil {
		if e, err2 := ianaindex.MIME.Encoding(enc); err2 == nil && e != nil {
			return e, nil
		}
		return nil, fmt.Errorf("unknown encoding %s", enc)
	}
	return e, nil
}

// EncodingError is git's refusal of a working-tree-encoding conversion.
type EncodingError struct {
	Path, Encoding string
	Why            string // "bom-prohibited", "bom-required", "invalid", "roundtrip", "unknown"
}

func (e *EncodingError) Error() string {
	switch e.Why {
	case "bom-prohibited":
		return fmt.Sprintf("BOM is prohibited in '%s' if encoded as %s", e.Path, e.Encoding)
	case "bom-required":
		return fmt.Sprintf("BOM is required in '%s' if encoded as %s", e.Path, e.Encoding)
	case "roundtrip":
		return fmt.Sprintf("encoding '%s' from %s to UTF-8 and back is not the same", e.Path, e.Encoding)
	case "unknown":
		return fmt.Sprintf("failed to encode '%s': git knows no encoding %s", e.Path, e.Encoding)
	}
	return fmt.Sprintf("failed to encode '%s' from %s to UTF-8", e.Path, e.Encoding)
}

// encodeToGit is git's encode_to_git: the working tree's bytes in enc
// become UTF-8. roundtrip is whether enc is in core.checkRoundtripEncoding.
func encodeToGit(p string, src []byte, enc string, roundtrip bool) ([]byte, error) {
	if enc == "" || len(src) == 0 {
		return src, nil
	}
	u := utfName(enc)
	if strings.HasPrefix(u, "UTF-") {
		hasBOM16 := bytes.HasPrefix(src, bom16be) || bytes.HasPrefix(src, bom16le)
		hasBOM32 := bytes.HasPrefix(src, bom32be) || bytes.HasPrefix(src, bom32le)
		switch {
		case (u == "UTF-16BE" || u == "UTF-16LE") && hasBOM16,
			(u == "UTF-32BE" || u == "UTF-32LE") && hasBOM32:
			return nil, &EncodingError{p, enc, "bom-prohibited"}
		case u == "UTF-16" && !hasBOM16, u == "UTF-32" && !hasBOM32:
			return nil, &EncodingError{p, enc, "bom-required"}
		}
	}
	e, err := codec(enc)
	if err != nil {
		return nil, &EncodingError{p, enc, "unknown"}
	}
	out, err := e.NewDecoder().Bytes(src)
	if err != nil {
		return nil, &EncodingError{p, enc, "invalid"}
	}
	// x/text replaces what iconv refuses (an unpaired surrogate, a byte
	// that no character has): encoding back tells.
	back, err := encodeBack(e, u, out, src)
	if err != nil || !bytes.Equal(back, src) {
		if roundtrip {
			return nil, &EncodingError{p, enc, "roundtrip"}
		}
		if err != nil || bytes.ContainsRune(out, '\uFFFD') {
			return nil, &EncodingError{p, enc, "invalid"}
		}
	}
	return out, nil
}

// encodeBack re-encodes for the check: the BOM that src carried is kept.
func encodeBack(e encoding.Encoding, u string, utf8 []byte, src []byte) ([]byte, error) {
	switch u {
	case "UTF-16":
		order := unicode.BigEndian
		if bytes.HasPrefix(src, bom16le) {
			order = unicode.LittleEndian
		}
		return unicode.UTF16(order, unicode.UseBOM).NewEncoder().Bytes(utf8)
	case "UTF-32":
		order := utf32.BigEndian
		if bytes.HasPrefix(src, bom32le) {
			order = utf32.LittleEndian
		}
		return utf32.UTF32(order, utf32.UseBOM).NewEncoder().Bytes(utf8)
	}
	return e.NewEncoder().Bytes(utf8)
}

// encodeToWorkTree is git's encode_to_worktree: UTF-8 becomes enc.
func encodeToWorkTree(p string, src []byte, enc string) ([]byte, error) {
	if enc == "" || len(src) == 0 {
		return src, nil
	}
	e, err := codec(enc)
	if err != nil {
		return nil, &EncodingError{p, enc, "unknown"}
	}
	if u := utfName(enc); u == "UTF-16" || u == "UTF-32" {
		// ExpectBOM is for reading; writing always starts with the BOM.
		if u == "UTF-16" {
			order := unicode.LittleEndian
			if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
				order = unicode.BigEndian
			}
			e = unicode.UTF16(order, unicode.UseBOM)
		} else {
			order := utf32.LittleEndian
			if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
				order = utf32.BigEndian
			}
			e = utf32.UTF32(order, utf32.UseBOM)
		}
	}
	out, err := e.NewEncoder().Bytes(src)
	if err != nil {
		return nil, &EncodingError{p, enc, "invalid"}
	}
	return out, nil
}
