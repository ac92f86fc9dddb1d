// Package fastyaml parses a state file's YAML frontmatter into the node
// tree yaml.v3 builds, faster than yaml.v3 alone: a parser of its own for
// the block-style subset state files are written in (fast.go), which
// parses the second half of a large top-level list on another core
// (half.go), and for a large frontmatter the fast parser declines, on more
// than one core, a yaml.v3 parse in pieces, two of them at once
// (split.go). Each gives up on anything it is not sure of, and
// yaml.v3 then parses the whole text, so the tree (comments aside) and
// the errors are always yaml.v3's. Verify checks that promise; FuzzParse
// in statefile runs it on every input it tries. ParseMemo parses a new
// version of a text taking the entries of its top-level lists that did
// not change from the parse of an earlier one — as nodes, or for lean
// sections as a Stub whose value the caller kept (memo.go); statefile's
// FuzzReparse and TestReparseMatchesParse check it against Parse.
package fastyaml

import (
	"runtime"

	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// parallelMin is the frontmatter size from which Parse, when the fast
// parser declined, cuts the YAML in three pieces and parses two of them at
// once with yaml.v3 (parseSplit). yaml.v3 is most of the time of
// reading a large state file, and a one-shot `status` pays it in full.
const parallelMin = 256 << 10

// Parse parses the YAML text yml and returns its root node, nil when yml
// holds no document: with the fast parser when it can, else in pieces
// (from 256 KiB, on more than one core) or whole with yaml.v3, whose error
// it returns. lines is yamltext.NewLineMap(yml, off) for any off, which
// the caller has already made; Parse only asks it whether yml breaks lines
// at \n and \r\n alone.
func Parse(yml []byte, lines yamltext.LineMap) (*yaml.Node, error) {
	if root, _ := fastParseWhy(yml, lines); root != nil {
		return root, nil
	}
	return parseSlow(yml)
}

// parseSlow is Parse for text the fast parser declined: in pieces or
// whole with yaml.v3.
func parseSlow(yml []byte) (*yaml.Node, error) {
	if len(yml) >= parallelMin && runtime.GOMAXPROCS(0) > 1 {
		if root := parseSplit(yml); root != nil {
			return root, nil
		}
	}
	return parseWhole(yml)
}

// parseWhole parses yml with yaml.v3 alone.
func parseWhole(yml []byte) (*yaml.Node, error) {
	var top yaml.Node
	if err := yaml.Unmarshal(yml, &top); err != nil {
		return nil, err
	}
	if top.Kind == 0 || len(top.Content) == 0 {
		return nil, nil
	}
	return top.Content[0], nil
}
