package ecmare

import (
	"slices"
	"strings"
	"sync"
	"unicode"
)

// A runeSet is a set of code points: sorted, disjoint, non-adjacent
// inclusive ranges.
type runeSet [][2]rune

// normalize sorts rs and merges its overlapping and adjacent ranges.
func normalize(rs [][2]rune) runeSet {
	slices.SortFunc(rs, func(a, b [2]rune) int { return int(a[0]) - int(b[0]) })
	out := runeSet(rs[:0])
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

func union(sets ...runeSet) runeSet {
	var all [][2]rune
	for _, s := range sets {
		all = append(all, s...)
	}
	return normalize(all)
}

func complement(s runeSet) runeSet {
	var out runeSet
	next := rune(0)
	for _, r := range s {
		if r[0] > next {
			out = append(out, [2]rune{next, r[0] - 1})
		}
		next = r[1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, [2]rune{next, unicode.MaxRune})
	}
	return out
}

// minus is s without the code points of o.
func minus(s, o runeSet) runeSet { return complement(union(complement(s), o)) }

func tableSet(t *unicode.RangeTable) runeSet {
	var rs [][2]rune
	for _, r := range t.R16 {
		if r.Stride == 1 {
			rs = append(rs, [2]rune{rune(r.Lo), rune(r.Hi)})
			continue
		}
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			rs = append(rs, [2]rune{c, c})
		}
	}
	for _, r := range t.R32 {
		if r.Stride == 1 {
			rs = append(rs, [2]rune{rune(r.Lo), rune(r.Hi)})
			continue
		}
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			rs = append(rs, [2]rune{c, c})
		}
	}
	return normalize(rs)
}

func categories(names ...string) runeSet {
	var sets []runeSet
	for _, n := range names {
		sets = append(sets, tableSet(unicode.Categories[n]))
	}
	return union(sets...)
}

func properties(names ...string) runeSet {
	var sets []runeSet
	for _, n := range names {
		sets = append(sets, tableSet(unicode.Properties[n]))
	}
	return union(sets...)
}

var (
	allRunes   = runeSet{{0, unicode.MaxRune}}
	surrogates = runeSet{{0xd800, 0xdfff}}
	digitSet   = runeSet{{'0', '9'}}
	wordSet    = runeSet{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}
	lineTerms  = runeSet{{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}}
	dotSet     = complement(lineTerms)
	// ECMA-262's WhiteSpace and LineTerminator, the meaning of \s. It is
	// not Unicode's White_Space: it has U+FEFF and lacks U+0085.
	spaceSet = runeSet{
		{0x09, 0x0d}, {0x20, 0x20}, {0xa0, 0xa0}, {0x1680, 0x1680}, {0x2000, 0x200a},
		{0x2028, 0x2029}, {0x202f, 0x202f}, {0x205f, 0x205f}, {0x3000, 0x3000}, {0xfeff, 0xfeff},
	}
)

// generalCategories returns, built on its first call, the map of every name
// ECMA-262 accepts for a General_Category value (its short name, long name
// and other aliases) to the key of Go's unicode.Categories.
var generalCategories = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"C": "C", "Other": "C", "Cc": "Cc", "Control": "Cc", "cntrl": "Cc", "Cf": "Cf", "Format": "Cf",
		"Cn": "Cn", "Unassigned": "Cn", "Co": "Co", "Private_Use": "Co", "Cs": "Cs", "Surrogate": "Cs",
		"L": "L", "Letter": "L", "LC": "LC", "Cased_Letter": "LC", "Ll": "Ll", "Lowercase_Letter": "Ll",
		"Lm": "Lm", "Modifier_Letter": "Lm", "Lo": "Lo", "Other_Letter": "Lo", "Lt": "Lt", "Titlecase_Letter": "Lt",
		"Lu": "Lu", "Uppercase_Letter": "Lu",
		"M": "M", "Mark": "M", "Combining_Mark": "M", "Mc": "Mc", "Spacing_Mark": "Mc",
		"Me": "Me", "Enclosing_Mark": "Me", "Mn": "Mn", "Nonspacing_Mark": "Mn",
		"N": "N", "Number": "N", "Nd": "Nd", "Decimal_Number": "Nd", "digit": "Nd",
		"Nl": "Nl", "Letter_Number": "Nl", "No": "No", "Other_Number": "No",
		"P": "P", "Punctuation": "P", "punct": "P", "Pc": "Pc", "Connector_Punctuation": "Pc",
		"Pd": "Pd", "Dash_Punctuation": "Pd", "Pe": "Pe", "Close_Punctuation": "Pe",
		"Pf": "Pf", "Final_Punctuation": "Pf", "Pi": "Pi", "Initial_Punctuation": "Pi",
		"Po": "Po", "Other_Punctuation": "Po", "Ps": "Ps", "Open_Punctuation": "Ps",
		"S": "S", "Symbol": "S", "Sc": "Sc", "Currency_Symbol": "Sc", "Sk": "Sk", "Modifier_Symbol": "Sk",
		"Sm": "Sm", "Math_Symbol": "Sm", "So": "So", "Other_Symbol": "So",
		"Z": "Z", "Separator": "Z", "Zl": "Zl", "Line_Separator": "Zl",
		"Zp": "Zp", "Paragraph_Separator": "Zp", "Zs": "Zs", "Space_Separator": "Zs",
	}
})

// scriptAliases returns, built on its first call, the map of each key of
// Go's unicode.Scripts (a script's long name, which ECMA-262 accepts too) to
// its other names in Unicode's PropertyValueAliases.
var scriptAliases = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"Adlam":                  {"Adlm"},
		"Ahom":                   nil,
		"Anatolian_Hieroglyphs":  {"Hluw"},
		"Arabic":                 {"Arab"},
		"Armenian":               {"Armn"},
		"Avestan":                {"Avst"},
		"Balinese":               {"Bali"},
		"Bamum":                  {"Bamu"},
		"Bassa_Vah":              {"Bass"},
		"Batak":                  {"Batk"},
		"Bengali":                {"Beng"},
		"Bhaiksuki":              {"Bhks"},
		"Bopomofo":               {"Bopo"},
		"Brahmi":                 {"Brah"},
		"Braille":                {"Brai"},
		"Buginese":               {"Bugi"},
		"Buhid":                  {"Buhd"},
		"Canadian_Aboriginal":    {"Cans"},
		"Carian":                 {"Cari"},
		"Caucasian_Albanian":     {"Aghb"},
		"Chakma":                 {"Cakm"},
		"Cham":                   nil,
		"Cherokee":               {"Cher"},
		"Chorasmian":             {"Chrs"},
		"Common":                 {"Zyyy"},
		"Coptic":                 {"Copt", "Qaac"},
		"Cuneiform":              {"Xsux"},
		"Cypriot":                {"Cprt"},
		"Cypro_Minoan":           {"Cpmn"},
		"Cyrillic":               {"Cyrl"},
		"Deseret":                {"Dsrt"},
		"Devanagari":             {"Deva"},
		"Dives_Akuru":            {"Diak"},
		"Dogra":                  {"Dogr"},
		"Duployan":               {"Dupl"},
		"Egyptian_Hieroglyphs":   {"Egyp"},
		"Elbasan":                {"Elba"},
		"Elymaic":                {"Elym"},
		"Ethiopic":               {"Ethi"},
		"Georgian":               {"Geor"},
		"Glagolitic":             {"Glag"},
		"Gothic":                 {"Goth"},
		"Grantha":                {"Gran"},
		"Greek":                  {"Grek"},
		"Gujarati":               {"Gujr"},
		"Gunjala_Gondi":          {"Gong"},
		"Gurmukhi":               {"Guru"},
		"Han":                    {"Hani"},
		"Hangul":                 {"Hang"},
		"Hanifi_Rohingya":        {"Rohg"},
		"Hanunoo":                {"Hano"},
		"Hatran":                 {"Hatr"},
		"Hebrew":                 {"Hebr"},
		"Hiragana":               {"Hira"},
		"Imperial_Aramaic":       {"Armi"},
		"Inherited":              {"Zinh", "Qaai"},
		"Inscriptional_Pahlavi":  {"Phli"},
		"Inscriptional_Parthian": {"Prti"},
		"Javanese":               {"Java"},
		"Kaithi":                 {"Kthi"},
		"Kannada":                {"Knda"},
		"Katakana":               {"Kana"},
		"Kawi":                   nil,
		"Kayah_Li":               {"Kali"},
		"Kharoshthi":             {"Khar"},
		"Khitan_Small_Script":    {"Kits"},
		"Khmer":                  {"Khmr"},
		"Khojki":                 {"Khoj"},
		"Khudawadi":              {"Sind"},
		"Lao":                    {"Laoo"},
		"Latin":                  {"Latn"},
		"Lepcha":                 {"Lepc"},
		"Limbu":                  {"Limb"},
		"Linear_A":               {"Lina"},
		"Linear_B":               {"Linb"},
		"Lisu":                   nil,
		"Lycian":                 {"Lyci"},
		"Lydian":                 {"Lydi"},
		"Mahajani":               {"Mahj"},
		"Makasar":                {"Maka"},
		"Malayalam":              {"Mlym"},
		"Mandaic":                {"Mand"},
		"Manichaean":             {"Mani"},
		"Marchen":                {"Marc"},
		"Masaram_Gondi":          {"Gonm"},
		"Medefaidrin":            {"Medf"},
		"Meetei_Mayek":           {"Mtei"},
		"Mende_Kikakui":          {"Mend"},
		"Meroitic_Cursive":       {"Merc"},
		"Meroitic_Hieroglyphs":   {"Mero"},
		"Miao":                   {"Plrd"},
		"Modi":                   nil,
		"Mongolian":              {"Mong"},
		"Mro":                    {"Mroo"},
		"Multani":                {"Mult"},
		"Myanmar":                {"Mymr"},
		"Nabataean":              {"Nbat"},
		"Nag_Mundari":            {"Nagm"},
		"Nandinagari":            {"Nand"},
		"New_Tai_Lue":            {"Talu"},
		"Newa":                   nil,
		"Nko":                    {"Nkoo"},
		"Nushu":                  {"Nshu"},
		"Nyiakeng_Puachue_Hmong": {"Hmnp"},
		"Ogham":                  {"Ogam"},
		"Ol_Chiki":               {"Olck"},
		"Old_Hungarian":          {"Hung"},
		"Old_Italic":             {"Ital"},
		"Old_North_Arabian":      {"Narb"},
		"Old_Permic":             {"Perm"},
		"Old_Persian":            {"Xpeo"},
		"Old_Sogdian":            {"Sogo"},
		"Old_South_Arabian":      {"Sarb"},
		"Old_Turkic":             {"Orkh"},
		"Old_Uyghur":             {"Ougr"},
		"Oriya":                  {"Orya"},
		"Osage":                  {"Osge"},
		"Osmanya":                {"Osma"},
		"Pahawh_Hmong":           {"Hmng"},
		"Palmyrene":              {"Palm"},
		"Pau_Cin_Hau":            {"Pauc"},
		"Phags_Pa":               {"Phag"},
		"Phoenician":             {"Phnx"},
		"Psalter_Pahlavi":        {"Phlp"},
		"Rejang":                 {"Rjng"},
		"Runic":                  {"Runr"},
		"Samaritan":              {"Samr"},
		"Saurashtra":             {"Saur"},
		"Sharada":                {"Shrd"},
		"Shavian":                {"Shaw"},
		"Siddham":                {"Sidd"},
		"SignWriting":            {"Sgnw"},
		"Sinhala":                {"Sinh"},
		"Sogdian":                {"Sogd"},
		"Sora_Sompeng":           {"Sora"},
		"Soyombo":                {"Soyo"},
		"Sundanese":              {"Sund"},
		"Syloti_Nagri":           {"Sylo"},
		"Syriac":                 {"Syrc"},
		"Tagalog":                {"Tglg"},
		"Tagbanwa":               {"Tagb"},
		"Tai_Le":                 {"Tale"},
		"Tai_Tham":               {"Lana"},
		"Tai_Viet":               {"Tavt"},
		"Takri":                  {"Takr"},
		"Tamil":                  {"Taml"},
		"Tangsa":                 {"Tnsa"},
		"Tangut":                 {"Tang"},
		"Telugu":                 {"Telu"},
		"Thaana":                 {"Thaa"},
		"Thai":                   nil,
		"Tibetan":                {"Tibt"},
		"Tifinagh":               {"Tfng"},
		"Tirhuta":                {"Tirh"},
		"Toto":                   nil,
		"Ugaritic":               {"Ugar"},
		"Vai":                    {"Vaii"},
		"Vithkuqi":               {"Vith"},
		"Wancho":                 {"Wcho"},
		"Warang_Citi":            {"Wara"},
		"Yezidi":                 {"Yezi"},
		"Yi":                     {"Yiii"},
		"Zanabazar_Square":       {"Zanb"},
	}
})

// scripts returns, built on its first call, the map of every name ECMA-262
// accepts for a Script value that Go's tables have to the key of
// unicode.Scripts; "Unknown" (Zzzz), the code points no script lists, is "".
var scripts = sync.OnceValue(func() map[string]string {
	m := map[string]string{"Unknown": "", "Zzzz": ""}
	for long, short := range scriptAliases() {
		m[long] = long
		for _, s := range short {
			m[s] = long
		}
	}
	return m
})

// binaryProperties returns, built on its first call, the map of every name
// (and short alias) ECMA-262 accepts for a binary property that Go's unicode
// tables define exactly, as Unicode's own derivations, to its set.
var binaryProperties = sync.OnceValue(func() map[string]func() runeSet {
	m := map[string]func() runeSet{
		"Any":      func() runeSet { return allRunes },
		"ASCII":    func() runeSet { return runeSet{{0, 0x7f}} },
		"Assigned": func() runeSet { return complement(categories("Cn")) },
		// DerivedCoreProperties.txt's derivations.
		"Alphabetic": func() runeSet {
			return union(categories("Lu", "Ll", "Lt", "Lm", "Lo", "Nl"),
				properties("Other_Alphabetic", "Other_Lowercase", "Other_Uppercase"))
		},
		"Lowercase": func() runeSet { return union(categories("Ll"), properties("Other_Lowercase")) },
		"Uppercase": func() runeSet { return union(categories("Lu"), properties("Other_Uppercase")) },
		"Cased": func() runeSet {
			return union(categories("Lu", "Ll", "Lt"), properties("Other_Lowercase", "Other_Uppercase"))
		},
		"Math":            func() runeSet { return union(categories("Sm"), properties("Other_Math")) },
		"Grapheme_Extend": graphemeExtend,
		"Grapheme_Base": func() runeSet {
			return complement(union(categories("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"), graphemeExtend()))
		},
		"ID_Start":    idStart,
		"ID_Continue": idContinue,
	}
	// The properties Go's unicode.Properties has under the name ECMA-262
	// uses; Go's other entries (Hyphen, Other_*, Prepended_Concatenation_Mark)
	// are not ECMA-262 properties.
	for _, name := range []string{
		"ASCII_Hex_Digit", "Bidi_Control", "Dash", "Deprecated", "Diacritic", "Extender", "Hex_Digit",
		"IDS_Binary_Operator", "IDS_Trinary_Operator", "Ideographic", "Join_Control",
		"Logical_Order_Exception", "Noncharacter_Code_Point", "Pattern_Syntax", "Pattern_White_Space",
		"Quotation_Mark", "Radical", "Regional_Indicator", "Sentence_Terminal", "Soft_Dotted",
		"Terminal_Punctuation", "Unified_Ideograph", "Variation_Selector", "White_Space",
	} {
		m[name] = func() runeSet { return properties(name) }
	}
	for alias, name := range map[string]string{
		"AHex": "ASCII_Hex_Digit", "Alpha": "Alphabetic", "Bidi_C": "Bidi_Control", "Dep": "Deprecated",
		"Dia": "Diacritic", "Ext": "Extender", "Gr_Base": "Grapheme_Base", "Gr_Ext": "Grapheme_Extend",
		"Hex": "Hex_Digit", "IDSB": "IDS_Binary_Operator", "IDST": "IDS_Trinary_Operator",
		"IDC": "ID_Continue", "IDS": "ID_Start", "Ideo": "Ideographic", "Join_C": "Join_Control",
		"LOE": "Logical_Order_Exception", "Lower": "Lowercase", "NChar": "Noncharacter_Code_Point",
		"Pat_Syn": "Pattern_Syntax", "Pat_WS": "Pattern_White_Space", "QMark": "Quotation_Mark",
		"RI": "Regional_Indicator", "STerm": "Sentence_Terminal", "SD": "Soft_Dotted",
		"Term": "Terminal_Punctuation", "UIdeo": "Unified_Ideograph", "Upper": "Uppercase",
		"VS": "Variation_Selector", "space": "White_Space",
	} {
		m[alias] = m[name]
	}
	return m
})

func graphemeExtend() runeSet {
	return union(categories("Me", "Mn"), properties("Other_Grapheme_Extend"))
}

func idStart() runeSet {
	return minus(union(categories("Lu", "Ll", "Lt", "Lm", "Lo", "Nl"), properties("Other_ID_Start")),
		properties("Pattern_Syntax", "Pattern_White_Space"))
}

func idContinue() runeSet {
	return minus(union(idStart(), categories("Mn", "Mc", "Nd", "Pc"), properties("Other_ID_Continue")),
		properties("Pattern_Syntax", "Pattern_White_Space"))
}

// missingProperties returns, built on its first call, the binary properties
// ECMA-262 accepts whose data Go's unicode package lacks (bidi, case
// mapping, normalization, emoji and word-break data), by every name ECMA-262
// accepts, with the data missing.
var missingProperties = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"Bidi_Mirrored": "bidi", "Bidi_M": "bidi",
		"Case_Ignorable": "Word_Break", "CI": "Word_Break",
		"Changes_When_Casefolded": "full case folding", "CWCF": "full case folding",
		"Changes_When_Casemapped": "full case mapping", "CWCM": "full case mapping",
		"Changes_When_Lowercased": "full case mapping", "CWL": "full case mapping",
		"Changes_When_NFKC_Casefolded": "NFKC case folding", "CWKCF": "NFKC case folding",
		"Changes_When_Titlecased": "full case mapping", "CWT": "full case mapping",
		"Changes_When_Uppercased": "full case mapping", "CWU": "full case mapping",
		"Default_Ignorable_Code_Point": "Other_Default_Ignorable_Code_Point's derivation", "DI": "Other_Default_Ignorable_Code_Point's derivation",
		"Emoji": "emoji", "Emoji_Component": "emoji", "EComp": "emoji", "Emoji_Modifier": "emoji", "EMod": "emoji",
		"Emoji_Modifier_Base": "emoji", "EBase": "emoji", "Emoji_Presentation": "emoji", "EPres": "emoji",
		"Extended_Pictographic": "emoji", "ExtPict": "emoji",
		"XID_Continue": "NFKC normalization", "XIDC": "NFKC normalization",
		"XID_Start": "NFKC normalization", "XIDS": "NFKC normalization",
	}
})

var propertyCache sync.Map // name → runeSet

// lookupProperty returns the set \p{name} means. With ok false, refusal
// says why an ECMA-262 property has no translation; an empty refusal means
// ECMA-262 has no such property.
func lookupProperty(name string) (set runeSet, ok bool, refusal string) {
	if s, ok := propertyCache.Load(name); ok {
		return s.(runeSet), true, ""
	}
	set, ok, refusal = property(name)
	if ok {
		propertyCache.Store(name, set)
	}
	return set, ok, refusal
}

func property(name string) (runeSet, bool, string) {
	key, val, has := strings.Cut(name, "=")
	if !has {
		if gc, ok := generalCategories()[name]; ok {
			return categories(gc), true, ""
		}
		if f, ok := binaryProperties()[name]; ok {
			return f(), true, ""
		}
		if data, ok := missingProperties()[name]; ok {
			return nil, false, "Go's unicode package has no " + data + " data"
		}
		return nil, false, ""
	}
	switch key {
	case "General_Category", "gc":
		if gc, ok := generalCategories()[val]; ok {
			return categories(gc), true, ""
		}
	case "Script", "sc":
		if sc, ok := scripts()[val]; ok {
			if sc == "" {
				var all []runeSet
				for _, t := range unicode.Scripts {
					all = append(all, tableSet(t))
				}
				return complement(union(all...)), true, ""
			}
			return tableSet(unicode.Scripts[sc]), true, ""
		}
	case "Script_Extensions", "scx":
		if _, ok := scripts()[val]; ok {
			return nil, false, "Go's unicode package has no Script_Extensions data (and Script_Extensions=" + val + " is not Script=" + val + ")"
		}
	}
	return nil, false, ""
}
