package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioServer is the process of a stdio MCP server that ocpgen-snapshot
// starts and stops itself, rather than through mcp.CommandTransport, so
// that it knows whether the process exited before answering, and stops it
// at once when -timeout is reached (CommandTransport's Close waits 5 s
// after closing stdin, then 5 s after SIGTERM).
type stdioServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	// exited is closed when the process has exited; state is then set.
	exited chan struct{}
	state  *os.ProcessState
}

// stopGrace is how long stop waits, after closing the server's stdin (the
// MCP stdio shutdown), for the process to exit before killing it.
const stopGrace = 2 * time.Second

// startStdio starts argv with stdin and stdout for MCP and stderr passed
// through.
func startStdio(argv []string, stderr io.Writer) (*stdioServer, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = stderr
	// A child that outlives the server and holds stderr open must not keep
	// Wait (and so ocpgen-snapshot) waiting.
	cmd.WaitDelay = stopGrace
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Stdout is a pipe of our own, not StdoutPipe: Wait would close its
	// read end when the process exits, losing an answer not yet read.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	s := &stdioServer{cmd: cmd, stdin: stdin, stdout: r, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		s.state = cmd.ProcessState
		close(s.exited)
	}()
	return s, nil
}

// transport is the MCP transport over the process's stdin and stdout.
func (s *stdioServer) transport() mcp.Transport {
	return &mcp.IOTransport{Reader: s.stdout, Writer: s.stdin}
}

// exitedWithin reports whether the process exits within d, and how.
func (s *stdioServer) exitedWithin(d time.Duration) (*os.ProcessState, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.exited:
		return s.state, true
	case <-t.C:
		return nil, false
	}
}

// stop ends the process and returns when it has exited: with graceful, its
// stdin is closed and it has stopGrace to exit before it is killed;
// without, it is killed at once.
func (s *stdioServer) stop(graceful bool) {
	_ = s.stdin.Close()
	if graceful {
		if _, ok := s.exitedWithin(stopGrace); ok {
			s.stdout.Close()
			return
		}
	}
	if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		fmt.Fprintf(s.cmd.Stderr, "ocpgen-snapshot: stopping the server: %v\n", err)
	}
	<-s.exited
	s.stdout.Close()
}
