package refusal

// codes is the one table from refusal class to exit code, shared by every
// door: the CLI exits with it, and the protocols report it beside the
// class. docs/exit-codes.md documents it; a test keeps the two in step.
var codes = map[Class]int{
	Internal:           3,
	Invalid:            4,
	NotAllowed:         5,
	Dirty:              6,
	Unsupported:        7,
	StaleRevision:      8,
	AlreadyConsumed:    9,
	NotFound:           10,
	Ambiguous:          11,
	NoConsent:          12,
	Locked:             13,
	TooLarge:           14,
	Io:                 15,
	RollbackIncomplete: 16,
	SigningFailed:      17,

	// nika verify's failures.
	TamperedTrailer: 20,
	AmendedTree:     21,
	WrongParent:     22,
	Findings:        23,
	MissingObjects:  24,
	NotAProposal:    25,
	CorruptObject:   26,
	Unsigned:        27,
	BadSignature:    28,
	KeyNotAllowed:   29,
	// the session's.
	NoIntelligence:      30,
	IntelligenceRefused: 31,
	WrongState:          32,
	EmptyAnswer:         33,
}

// Code is the exit code of a class; an unknown class exits as Internal.
func Code(c Class) int {
	if n, ok := codes[c]; ok {
		return n
	}
	return codes[Internal]
}

// Classes lists every class with its code.
func Classes() map[Class]int {
	out := make(map[Class]int, len(codes))
	for c, n := range codes {
		out[c] = n
	}
	return out
}
