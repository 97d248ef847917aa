package changeset

import (
	"sync"
	"unicode"

	"golang.org/x/text/unicode/rangetable"
)

// DefaultIgnorable is Unicode's Default_Ignorable_Code_Point: the code
// points that a renderer shows as nothing, and that HFS+ and APFS may drop
// when they compare names. Neither the standard library nor x/text exports
// it, so it is derived here exactly as DerivedCoreProperties.txt derives it,
// from the standard library's property tables (unicode.Version):
//
//	Other_Default_Ignorable_Code_Point
//	+ Cf (format characters)
//	+ Variation_Selector
//	- White_Space
//	- FFF9..FFFB (interlinear annotation format characters)
//	- 13430..1343F (Egyptian hieroglyph format characters)
//	- Prepended_Concatenation_Mark
//
// Only the runes of the three added tables are visited (about 4,300), so
// building it costs microseconds, once, on first use. The table test in
// path_test.go holds the ranges of DerivedCoreProperties.txt for Unicode
// 15.0 (4,174 code points) and fails if the derivation drifts from them.
func DefaultIgnorable() *unicode.RangeTable {
	ignorableOnce.Do(func() {
		var rs []rune
		for _, t := range []*unicode.RangeTable{unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector} {
			rangetable.Visit(t, func(r rune) {
				switch {
				case unicode.Is(unicode.White_Space, r),
					r >= 0xfff9 && r <= 0xfffb,
					r >= 0x13430 && r <= 0x1343f,
					unicode.Is(unicode.Prepended_Concatenation_Mark, r):
					return
				}
				rs = append(rs, r)
			})
		}
		ignorable = rangetable.New(rs...)
	})
	return ignorable
}

var (
	ignorableOnce sync.Once
	ignorable     *unicode.RangeTable
)

// Invisible reports a code point that a path may never hold: any
// Default_Ignorable_Code_Point, and any other format character (category
// Cf, such as U+0600 ARABIC NUMBER SIGN, which DerivedCoreProperties keeps
// visible but which still steers how text around it renders).
func Invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(DefaultIgnorable(), r)
}
