package fleet

import (
	"os"
	"path/filepath"
	"strings"
)

// commonDir resolves a .git entry — the directory of a main working tree,
// or the file "gitdir: PATH" of a linked one — to the repository's common
// git directory, where worktrees/ lives.
func commonDir(gitEntry string) (string, error) {
	fi, err := os.Stat(gitEntry)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return filepath.Clean(gitEntry), nil
	}
	data, err := os.ReadFile(gitEntry)
	if err != nil {
		return "", err
	}
	line := strings.TrimSpace(string(data))
	if !strings.HasPrefix(line, "gitdir:") {
		return "", errNotGit
	}
	gitdir := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(filepath.Dir(gitEntry), gitdir)
	}
	// A linked working tree's git directory names the common one in its
	// commondir file (relative to itself); a submodule's has none.
	common := gitdir
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common = strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
	}
	return filepath.Clean(common), nil
}

// worktrees lists the working trees of the repository whose common git
// directory is common, as `git worktree list` does: the main one (the
// parent of a .git directory; none for a bare repository) and each linked
// one whose worktrees/ID/gitdir names a directory that still exists.
// incomplete is true when an admin directory has no gitdir yet (git is
// creating the working tree right now): list again shortly.
func worktrees(common string) (trees []string, incomplete bool) {
	if filepath.Base(common) == ".git" {
		trees = append(trees, filepath.Dir(common))
	}
	admin := filepath.Join(common, "worktrees")
	entries, err := os.ReadDir(admin)
	if err != nil {
		return trees, false
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(admin, e.Name())
		data, err := os.ReadFile(filepath.Join(dir, "gitdir"))
		if err != nil {
			incomplete = true
			continue
		}
		p := strings.TrimSpace(string(data))
		if p == "" {
			incomplete = true
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p) // worktree.useRelativePaths
		}
		tree := filepath.Dir(filepath.Clean(p))
		if fi, err := os.Stat(tree); err == nil && fi.IsDir() {
			trees = append(trees, tree)
		}
	}
	return trees, incomplete
}
