//go:build unix

package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// geteuid, getegid and getgroups are the user and groups the writes run
// as (tests pretend to be another).
var (
	geteuid   = os.Geteuid
	getegid   = os.Getegid
	getgroups = os.Getgroups
)

// owner is the file's owner and group.
func owner(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// ownerRefusal refuses a file owned by another user than the one running,
// unless that is root: the rewritten file (a new file, ours) would change
// owner, and the loop, which runs as the file's owner, could no longer
// write it. Only root can give a file to another user. Likewise a group
// the rewritten file could not be given: one the user is not a member of,
// unless a new file in the file's directory gets that group anyway (the
// directory's group, as on the BSDs and under a setgid directory). What
// this lets through and a chown still refuses is found when the temp file
// is given its owner (keepOwner).
func ownerRefusal(path string, fi fs.FileInfo) *NotWritableError {
	uid, gid, ok := owner(fi)
	me := geteuid()
	if !ok || me == 0 {
		return nil
	}
	if uid != me {
		return uidRefusal(path, uid)
	}
	if gid == getegid() {
		return nil
	}
	if groups, err := getgroups(); err == nil && slices.Contains(groups, gid) {
		return nil
	}
	if dir, err := os.Stat(filepath.Dir(path)); err == nil {
		if _, dgid, ok := owner(dir); ok && dgid == gid {
			return nil
		}
	}
	return gidRefusal(path, gid)
}

func uidRefusal(path string, uid int) *NotWritableError {
	me := geteuid()
	return &NotWritableError{Path: path,
		Why: fmt.Sprintf("is owned by %s, and aot-tui runs as %s, which may not give the rewritten file that owner", userName(uid), userName(me)),
		Fix: fmt.Sprintf("run aot-tui as %s, or chown the file to %s", bareUserName(uid), bareUserName(me))}
}

func gidRefusal(path string, gid int) *NotWritableError {
	return &NotWritableError{Path: path,
		Why: fmt.Sprintf("belongs to group %s, and aot-tui runs as %s, which may not give the rewritten file that group", groupName(gid), userName(geteuid())),
		Fix: fmt.Sprintf("run aot-tui as a member of %s, or chgrp the file", bareGroupName(gid))}
}

// keepOwner gives the temp file the owner and group of the file it is to
// replace (target), where they differ from its own: a root-run aot-tui
// must not leave a root-owned file that the loop can no longer write.
// Where that is not permitted, nothing is written and the error says why.
func keepOwner(tmp *os.File, target fs.FileInfo, path string) error {
	uid, gid, ok := owner(target)
	if !ok {
		return nil
	}
	fi, err := tmp.Stat()
	if err != nil {
		return err
	}
	tuid, tgid, _ := owner(fi)
	if tuid == uid && tgid == gid {
		return nil
	}
	cu, cg := -1, -1 // -1: leave as it is
	if tuid != uid {
		cu = uid
	}
	if tgid != gid {
		cg = gid
	}
	err = tmp.Chown(cu, cg)
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("giving the rewritten %s its owner: %w", path, err)
	}
	if cu >= 0 {
		return uidRefusal(path, uid)
	}
	return gidRefusal(path, gid)
}

// bareUserName is "alice", or "uid 1000" when the system does not know
// the user; userName is "alice (uid 1000)", or "uid 1000".
func bareUserName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return u.Username
	}
	return fmt.Sprintf("uid %d", uid)
}

func userName(uid int) string { return withID(bareUserName(uid), "uid", uid) }

// bareGroupName and groupName are the same for a group.
func bareGroupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil && g.Name != "" {
		return g.Name
	}
	return fmt.Sprintf("gid %d", gid)
}

func groupName(gid int) string { return withID(bareGroupName(gid), "gid", gid) }

// withID is "name (uid 1000)", or name alone when it is that id already.
func withID(name, kind string, id int) string {
	if plain := fmt.Sprintf("%s %d", kind, id); name != plain {
		return fmt.Sprintf("%s (%s)", name, plain)
	}
	return name
}

// chownKept gives a file kept beside the state file (keep) the state
// file's owner and group, so that its user can read it; where that is not
// permitted, it stays as it is.
func chownKept(name string, state fs.FileInfo) {
	if uid, gid, ok := owner(state); ok {
		_ = os.Chown(name, uid, gid)
	}
}
