package history

import (
	"path/filepath"
	"testing"
)

func TestRecorderWritesInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := OpenJournal(path, JournalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecorder(j)
	versions := evolve(20, 50, 12)
	for _, v := range versions {
		r.Record(Version{Data: v})
	}
	r.Flush()
	if r.Written() != 50 {
		t.Fatalf("%d written", r.Written())
	}
	got, _, _ := ReadJournal(path)
	sameVersions(t, got, versions)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r.Record(Version{Data: []byte("after close")})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
