package convert

import "bytes"

// Action is git's crlf_action for a path: what line-ending conversion
// applies, once the attributes and core.autocrlf/core.eol are resolved.
type Action int

const (
	Binary    Action = iota // no conversion (-text, or nothing asks for one)
	TextInput               // text: CRLF to LF into git, nothing out
	TextCRLF                // text: CRLF to LF into git, LF to CRLF out
	AutoInput               // text=auto (or autocrlf=input): as TextInput for text that git detects
	AutoCRLF                // text=auto (or autocrlf=true): as TextCRLF for text that git detects
)

func (a Action) auto() bool { return a == AutoInput || a == AutoCRLF }

// outCRLF reports whether checkout writes CRLF.
func (a Action) outCRLF() bool { return a == TextCRLF || a == AutoCRLF }

// stats is git's text_stat.
type stats struct {
	nul, lonecr, lonelf, crlf int
	printable, nonprintable   int
}

func gather(b []byte) stats {
	var s stats
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\r' {
			if i+1 < len(b) && b[i+1] == '\n' {
				s.crlf++
				i++
			} else {
				s.lonecr++
			}
			continue
		}
		if c == '\n' {
			s.lonelf++
			continue
		}
		switch {
		case c == 127:
			s.nonprintable++
		case c < 32:
			switch c {
			case '\b', '\t', '\033', '\014':
				s.printable++
			case 0:
				s.nul++
				s.nonprintable++
			default:
				s.nonprintable++
			}
		default:
			s.printable++
		}
	}
	// A file that ends with EOF (^Z) does not count it as non-printable.
	if len(b) >= 1 && b[len(b)-1] == '\032' {
		s.nonprintable--
	}
	return s
}

// isBinary is git's convert_is_binary: a lone CR, a NUL, or more than one
// non-printable byte in 128 printable ones.
func (s stats) isBinary() bool {
	return s.lonecr > 0 || s.nul > 0 || (s.printable>>7) < s.nonprintable
}

// IsBinary reports whether git's text=auto would take b for binary.
func IsBinary(b []byte) bool { return gather(b).isBinary() }

// hasCRLFText is git's has_crlf_in_index test on a blob's bytes: text that
// holds a CRLF.
func hasCRLFText(b []byte) bool {
	if bytes.IndexByte(b, '\r') < 0 {
		return false
	}
	s := gather(b)
	return !s.isBinary() && s.crlf > 0
}

// willLFtoCRLF is git's will_convert_lf_to_crlf.
func willLFtoCRLF(s stats, a Action) bool {
	if !a.outCRLF() || s.lonelf == 0 {
		return false
	}
	if a.auto() && (s.lonecr > 0 || s.crlf > 0 || s.isBinary()) {
		return false
	}
	return true
}

// RoundTrip is what core.safecrlf checks: the conversion into git and back
// out would not give the bytes back.
type RoundTrip int

const (
	RoundTripOK   RoundTrip = iota
	CRLFBecomesLF           // "CRLF would be replaced by LF"
	LFBecomesCRLF           // "LF would be replaced by CRLF"
)

// crlfToGit is git's crlf_to_git. index is the blob the index holds at the
// path (nil when none), which text=auto consults: a blob that already holds
// CRLF is not normalized. It returns the converted bytes (src itself when
// nothing changes) and the round-trip verdict.
func crlfToGit(src, index []byte, a Action) ([]byte, RoundTrip) {
	if a == Binary || len(src) == 0 {
		return src, RoundTripOK
	}
	s := gather(src)
	convert := s.crlf > 0
	if a.auto() {
		if s.isBinary() {
			return src, RoundTripOK
		}
		if index != nil && hasCRLFText(index) {
			convert = false
		}
	}
	// simulate "git add", then "git checkout"
	ns := s
	if convert {
		ns.lonelf += ns.crlf
		ns.crlf = 0
	}
	if willLFtoCRLF(ns, a) {
		ns.crlf += ns.lonelf
		ns.lonelf = 0
	}
	rt := RoundTripOK
	switch {
	case s.crlf > 0 && ns.crlf == 0:
		rt = CRLFBecomesLF
	case s.lonelf > 0 && ns.lonelf == 0:
		rt = LFBecomesCRLF
	}
	if !convert {
		return src, rt
	}
	out := make([]byte, 0, len(src))
	if a.auto() {
		// text=auto rejected a lone CR already: every CR goes.
		for _, c := range src {
			if c != '\r' {
				out = append(out, c)
			}
		}
		return out, rt
	}
	for i, c := range src {
		if c == '\r' && i+1 < len(src) && src[i+1] == '\n' {
			continue
		}
		out = append(out, c)
	}
	return out, rt
}

// crlfToWorkTree is git's crlf_to_worktree: LF becomes CRLF where checkout
// writes CRLF; a CRLF already there stays.
func crlfToWorkTree(src []byte, a Action) []byte {
	if len(src) == 0 || !a.outCRLF() {
		return src
	}
	s := gather(src)
	if !willLFtoCRLF(s, a) {
		return src
	}
	out := make([]byte, 0, len(src)+s.lonelf)
	for i, c := range src {
		if c == '\n' && (i == 0 || src[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, c)
	}
	return out
}
