package model

import "strings"

// The loop's stop hook is a bash script run under set -euo pipefail. It
// reads its numbers as text and hands them to bash arithmetic: in
// [[ A -ge B ]] tests and in $((A + 1)) expansions. What bash makes of a
// value that is not a plain number decides what the hook does, so this
// file classifies a value as bash 5 evaluates it (each rule checked
// against the real bash by TestBashArithAgreesWithBash):
//
//   - a number: decimal, octal with a leading 0 (010 is 8), hex with 0x,
//     base#digits; blanks around it and a sign are allowed; values past
//     64 bits wrap;
//   - an error: anything else bash's arithmetic cannot parse ('5   # note',
//     '5.0', '1_000', '08', '~', a quote). In [[ ]] the test prints an error
//     and is false; in an assignment the whole command it belongs to is
//     abandoned (set -e does not stop the script);
//   - fatal: a name (null, true, yes) is read as a variable, and under
//     set -u an unset one ends the script with exit status 1;
//   - unknown: an expression bash would compute (5 + 1, (3), !0) or a name
//     the hook or its environment may set (ITERATION, PATH, i). aot-tui
//     does not evaluate these.
//
// Checked with GNU bash 5.2. macOS runs the hook's #!/bin/bash as bash
// 3.2, which has not been checked here.

type bashKind uint8

const (
	bashNumber bashKind = iota
	bashError
	bashFatal
	bashUnknown
)

type bashValue struct {
	kind bashKind
	n    int64
	// msg is bash's complaint for an error or a fatal value.
	msg string
}

// bashBlank is what bash's arithmetic skips between tokens.
func bashBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// bashOperatorStart reports whether c can start an arithmetic operator
// token; any other character that is not a letter, digit or '_' is an
// "invalid arithmetic operator".
func bashOperatorStart(c byte) bool {
	return strings.IndexByte("=()+-*/%<>!~&|^?:,", c) >= 0
}

func bashNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func bashNameChar(c byte) bool { return bashNameStart(c) || c >= '0' && c <= '9' }

// bashArith classifies s as bash's arithmetic evaluates it.
func bashArith(s string) bashValue {
	i := 0
	skip := func() {
		for i < len(s) && bashBlank(s[i]) {
			i++
		}
	}
	skip()
	if i == len(s) {
		return bashValue{kind: bashNumber} // an empty expression is 0
	}
	neg := false
	signs := 0
	for i < len(s) && (s[i] == '-' || s[i] == '+') {
		if s[i] == '-' {
			neg = !neg
		}
		signs++
		i++
		skip()
	}
	if signs > 1 {
		return bashValue{kind: bashUnknown} // --5 and the like
	}
	if i == len(s) {
		return bashValue{kind: bashError, msg: "syntax error: operand expected"}
	}
	var v bashValue
	switch c := s[i]; {
	case c >= '0' && c <= '9':
		j := i
		for j < len(s) && (bashNameChar(s[j]) || s[j] == '@' || s[j] == '#') {
			j++
		}
		n, msg := bashConstant(s[i:j])
		if msg != "" {
			return bashValue{kind: bashError, msg: msg}
		}
		if neg {
			n = -n
		}
		v = bashValue{kind: bashNumber, n: n}
		i = j
	case bashNameStart(c):
		return bashName(s, i)
	case c == '(' || c == '!' || c == '~':
		skip2 := i + 1
		for skip2 < len(s) && bashBlank(s[skip2]) {
			skip2++
		}
		if skip2 == len(s) {
			return bashValue{kind: bashError, msg: "syntax error: operand expected"}
		}
		return bashValue{kind: bashUnknown}
	default:
		return bashValue{kind: bashError, msg: "syntax error: operand expected"}
	}
	skip()
	if i == len(s) {
		return v
	}
	switch c := s[i]; {
	case bashNameStart(c):
		// The next token is a name, read (and looked up) before the
		// expression is found wrong.
		if r := bashName(s, i); r.kind != bashNumber {
			if r.kind == bashFatal || r.kind == bashUnknown {
				return r
			}
		}
		return bashValue{kind: bashError, msg: "syntax error in expression"}
	case c >= '0' && c <= '9',
		// Unary operators cannot follow an operand ('!' only as '!=').
		c == '~' || c == '(' || c == '!' && (i+1 == len(s) || s[i+1] != '='):
		return bashValue{kind: bashError, msg: "syntax error in expression"}
	case bashOperatorStart(c):
		return bashValue{kind: bashUnknown}
	}
	return bashValue{kind: bashError, msg: "syntax error: invalid arithmetic operator"}
}

// bashName classifies a value whose token at i is a name. Bash looks at
// the token after it first: an invalid one is a syntax error; otherwise
// the name is evaluated, and an unset one is fatal under set -u.
func bashName(s string, i int) bashValue {
	j := i
	for j < len(s) && bashNameChar(s[j]) {
		j++
	}
	name := s[i:j]
	for j < len(s) && bashBlank(s[j]) {
		j++
	}
	if j < len(s) {
		c := s[j]
		switch {
		case c == '[' || c == '=' && (j+1 == len(s) || s[j+1] != '='):
			return bashValue{kind: bashUnknown} // a subscript or an assignment
		case c >= '0' && c <= '9':
			// The number token is converted as it is read.
			k := j
			for k < len(s) && (bashNameChar(s[k]) || s[k] == '@' || s[k] == '#') {
				k++
			}
			if _, msg := bashConstant(s[j:k]); msg != "" {
				return bashValue{kind: bashError, msg: msg}
			}
		case !bashNameChar(c) && !bashOperatorStart(c):
			return bashValue{kind: bashError, msg: "syntax error: invalid arithmetic operator"}
		}
	}
	if bashMaySet(name) {
		return bashValue{kind: bashUnknown}
	}
	return bashValue{kind: bashFatal, msg: name + ": unbound variable"}
}

// bashMaySet reports whether a variable of this name may be set when the
// hook compares its values: its own variables and the environment's are
// all upper case, and its extract_field leaves its loop counter i set.
func bashMaySet(name string) bool {
	return name == "i" || strings.ToUpper(name) == name
}

// bashConstant converts a number token as bash's strlong does: 0x hex, a
// leading 0 octal, base#digits (base 2 to 64), else decimal. A digit too
// large for the base is an error; values past 64 bits wrap.
func bashConstant(t string) (int64, string) {
	base := uint64(10)
	digits := t
	switch {
	case strings.IndexByte(t, '#') >= 0:
		k := strings.IndexByte(t, '#')
		b := uint64(0)
		for _, c := range []byte(t[:k]) {
			if c < '0' || c > '9' {
				return 0, "invalid arithmetic base"
			}
			b = b*10 + uint64(c-'0')
			if b > 64 {
				return 0, "invalid arithmetic base"
			}
		}
		if b < 2 {
			return 0, "invalid arithmetic base"
		}
		base, digits = b, t[k+1:]
		if digits == "" {
			return 0, "invalid integer constant"
		}
	case len(t) > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'):
		base, digits = 16, t[2:]
	case len(t) > 1 && t[0] == '0':
		base, digits = 8, t[1:]
	}
	var n uint64
	for _, c := range []byte(digits) {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'z':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = uint64(c-'A') + 10
			if base > 36 {
				d += 26
			}
		case c == '@':
			d = 62
		case c == '_':
			d = 63
		default:
			return 0, "value too great for base"
		}
		if d >= base {
			return 0, "value too great for base"
		}
		n = n*base + d
	}
	return int64(n), ""
}
