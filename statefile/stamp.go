package statefile

// Stamp tells versions of a file apart without reading it: its inode, size
// and times. Equal stamps mean, in practice, an unchanged file.
type Stamp struct{ s fileStamp }

// StampOf is the stamp of the file at path now (the zero Stamp when it
// cannot be read).
func StampOf(path string) Stamp { return Stamp{stampOf(path)} }
