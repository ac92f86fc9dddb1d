//go:build !(linux && amd64)

package statefile

// pathStat stats one path with os.Stat (on Linux/amd64 a raw fstatat
// that allocates nothing).
type pathStat struct{ path string }

func newPathStat(path string) *pathStat { return &pathStat{path: path} }

func (p *pathStat) stamp() fileStamp { return stampOf(p.path) }
