//go:build unix

package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SSHD is a real OpenSSH server the test started on 127.0.0.1 with
// throwaway keys, which lets the test's own user in with a key of its
// own: `ssh -F s.Config HOST cmd` (HOST is SSHD.Host) runs cmd on this
// machine as a remote would.
type SSHD struct {
	// Config is an ssh_config for the client (ssh -F): the host, port,
	// user, key and known_hosts, batch mode.
	Config string
	// Host is the name Config gives the server.
	Host string
	Port int

	t      testing.TB
	sshd   string
	dir    string
	conf   string
	cmd    *exec.Cmd
	stderr *os.File
}

// StartSSHD starts an OpenSSH server for t (Need'ing sshd and ssh); it is
// stopped when t ends.
func StartSSHD(t testing.TB) *SSHD {
	t.Helper()
	sshd := Need(t, "sshd")
	Need(t, "ssh")
	keygen := Need(t, "ssh-keygen")
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		// sshd started by root wants its privilege separation directory.
		_ = os.MkdirAll("/run/sshd", 0o755)
	}
	for _, k := range []string{"host_key", "id"} {
		if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, "id.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	hostPub, err := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	s := &SSHD{t: t, sshd: sshd, dir: dir, Host: "aot-test-remote", Port: port}
	s.conf = filepath.Join(dir, "sshd_config")
	serverConf := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile %s
LogLevel ERROR
`, port, filepath.Join(dir, "host_key"), filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "sshd.pid"))
	if err := os.WriteFile(s.conf, []byte(serverConf), 0o600); err != nil {
		t.Fatal(err)
	}
	known := fmt.Sprintf("[127.0.0.1]:%d %s", port, strings.TrimSpace(string(hostPub)))
	if err := os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(known+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Config = filepath.Join(dir, "ssh_config")
	clientConf := fmt.Sprintf(`Host %s
  HostName 127.0.0.1
  Port %d
  User %s
  IdentityFile %s
  IdentitiesOnly yes
  UserKnownHostsFile %s
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
`, s.Host, port, u.Username, filepath.Join(dir, "id"), filepath.Join(dir, "known_hosts"))
	if err := os.WriteFile(s.Config, []byte(clientConf), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Start starts the server (again, after Stop) and waits until it takes
// connections.
func (s *SSHD) Start() {
	s.t.Helper()
	if s.cmd != nil {
		return
	}
	errf, err := os.Create(filepath.Join(s.dir, "sshd.log"))
	if err != nil {
		s.t.Fatal(err)
	}
	cmd := exec.Command(s.sshd, "-D", "-e", "-f", s.conf)
	cmd.Stderr = errf
	// Its own process group: Stop ends the sessions too, as a machine
	// that goes down does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("sshd: %v", err)
	}
	s.cmd, s.stderr = cmd, errf
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(s.Port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(errf.Name())
			s.t.Fatalf("sshd never took a connection on port %d: %s", s.Port, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server and every session it runs (their processes leave
// its process group, so they are found by their parents), as a machine
// that goes down ends them.
func (s *SSHD) Stop() {
	if s.cmd == nil {
		return
	}
	for _, pid := range descendants(s.cmd.Process.Pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	_ = s.cmd.Wait()
	s.stderr.Close()
	s.cmd = nil
}

// descendants are the processes under pid, from ps.
func descendants(pid int) []int {
	out, err := exec.Command("ps", "-A", "-o", "pid=", "-o", "ppid=").Output()
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		c, err1 := strconv.Atoi(f[0])
		p, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			children[p] = append(children[p], c)
		}
	}
	var list []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			list = append(list, c)
			queue = append(queue, c)
		}
	}
	return list
}

// freePort is a TCP port nothing listens on now.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
