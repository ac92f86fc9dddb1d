//go:build unix

package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// geteuid is the user the writes run as (tests pretend to be another).
var geteuid = os.Geteuid

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
// write it. Only root can give a file to another user. (A group that
// cannot be kept is found when the temp file is given it: keepOwner.)
func ownerRefusal(path string, fi fs.FileInfo) *NotWritableError {
	uid, _, ok := owner(fi)
	if me := geteuid(); !ok || uid == me || me == 0 {
		return nil
	}
	return uidRefusal(path, uid)
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

// userName is "alice (uid 1000)", or "uid 1000" when the system does not
// know the user.
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}

// bareUserName is "alice", or "uid 1000".
func bareUserName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return u.Username
	}
	return fmt.Sprintf("uid %d", uid)
}

func groupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil && g.Name != "" {
		return fmt.Sprintf("%s (gid %d)", g.Name, gid)
	}
	return fmt.Sprintf("gid %d", gid)
}

func bareGroupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil && g.Name != "" {
		return g.Name
	}
	return fmt.Sprintf("gid %d", gid)
}

// chownKept gives a file kept beside the state file (keep) the state
// file's owner and group, so that its user can read it; where that is not
// permitted, it stays as it is.
func chownKept(name string, state fs.FileInfo) {
	if uid, gid, ok := owner(state); ok {
		_ = os.Chown(name, uid, gid)
	}
}
