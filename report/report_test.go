package report

import (
	"bytes"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

func TestReportGolden(t *testing.T) {
	for _, sc := range scenarios {
		versions := record(t, sc)
		r, err := Build("recorded run ("+sc.name+")", versions)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s %q after %d iterations, %d versions", sc.name, r.Outcome.Status, r.Outcome.StopReason, r.Outcome.Iterations, r.Versions)
		for _, f := range []struct {
			ext   string
			write func(*bytes.Buffer, *Report) error
		}{
			{"md", func(b *bytes.Buffer, r *Report) error { return Markdown(b, r) }},
			{"json", func(b *bytes.Buffer, r *Report) error { return JSON(b, r) }},
			{"html", func(b *bytes.Buffer, r *Report) error { return HTML(b, r) }},
		} {
			t.Run(sc.name+"."+f.ext, func(t *testing.T) {
				var b bytes.Buffer
				if err := f.write(&b, r); err != nil {
					t.Fatal(err)
				}
				golden.RequireEqual(t, b.Bytes())
			})
		}
	}
}
