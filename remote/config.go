package remote

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/aot-loop/aot-tui/internal/appfiles"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"go.yaml.in/yaml/v3"
)

// File is where the remote hosts are named: remotes.yaml in the config
// directory ("" when there is none).
func File() string { return appfiles.ConfigFile("remotes.yaml") }

// remotesFile is remotes.yaml's shape:
//
//	hosts:
//	  - name: gpu-box                 # how the fleet names it
//	    host: me@gpu.example.com      # what HOST stands for (default: name)
//	    dirs: [~/code, /srv/loops]    # where to scan there
//	    depth: 3                      # how deep (default: the scan's)
//	    read_only: false              # corrections allowed (default)
//	  - name: builder
//	    transport: docker exec HOST aot-tui …   # a string split at spaces, or a list
//	    dirs: [/work]
type remotesFile struct {
	Hosts []hostEntry `yaml:"hosts"`
}

type hostEntry struct {
	Name      string   `yaml:"name"`
	Host      string   `yaml:"host"`
	Transport words    `yaml:"transport"`
	Quote     string   `yaml:"quote"`
	Dirs      []string `yaml:"dirs"`
	Depth     int      `yaml:"depth"`
	ReadOnly  bool     `yaml:"read_only"`
}

// words is a transport: a list of words, or a string split at spaces
// (no quotes, no shell: a word with a space needs the list).
type words []string

func (w *words) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*w = strings.Fields(n.Value)
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		*w = list
		return nil
	}
	return fmt.Errorf("line %d: transport is a command (a string or a list of words)", n.Line)
}

// LoadFile reads the hosts of a remotes.yaml. A missing file is no hosts;
// one that does not parse, or names a host wrongly, is an error naming
// the file, the line and what to do.
func LoadFile(path string) ([]Host, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remotes file %s: %w", path, err)
	}
	return Load(path, data)
}

// Load reads the hosts of remotes.yaml's text data (read from path).
func Load(path string, data []byte) ([]Host, error) {
	const shape = "it takes `hosts:` with one `- name: …, dirs: [...]` entry each (and host, transport, depth, read_only, quote)"
	var f remotesFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("remotes file %s: %s — %s", path, textfmt.OneLine(err.Error()), shape)
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root)
	lines := entryLines(&root)
	var hosts []Host
	names := map[string]int{}
	for i, e := range f.Hosts {
		at := fmt.Sprintf("remotes file %s", path)
		if i < len(lines) {
			at += fmt.Sprintf(", line %d", lines[i])
		}
		if e.Name == "" {
			return nil, fmt.Errorf("%s: a host without a name — give each entry `name:`", at)
		}
		if j, dup := names[e.Name]; dup {
			return nil, fmt.Errorf("%s: host %q is named twice (also entry %d) — give each a name of its own", at, clean(e.Name), j+1)
		}
		names[e.Name] = i
		h := Host{Name: e.Name, Target: e.Host, Transport: e.Transport, Dirs: e.Dirs, Depth: e.Depth, ReadOnly: e.ReadOnly}
		if h.Target == "" {
			h.Target = e.Name
		}
		switch e.Quote {
		case "":
		case "shell":
			h.Quote = QuoteShell
		case "none":
			h.Quote = QuoteNone
		default:
			return nil, fmt.Errorf("%s: quote %q: write shell (the far side runs the command through a shell, as ssh does) or none", at, clean(e.Quote))
		}
		if err := h.Check(); err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}

// entryLines are the lines of the entries of root's hosts list.
func entryLines(root *yaml.Node) []int {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "hosts" && m.Content[i+1].Kind == yaml.SequenceNode {
			var out []int
			for _, e := range m.Content[i+1].Content {
				out = append(out, e.Line)
			}
			return out
		}
	}
	return nil
}
