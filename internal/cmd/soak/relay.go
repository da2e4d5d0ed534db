package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The relay is the control of the latency the gateway adds: a process
// of its own that only forwards bytes, both ways, between its clients and
// the upstream. What it adds to a chunk is what any hop through another
// process costs on this machine (two more wake-ups: its own, then the
// client's), before any work on the chunk.

// relayEnv, set to the upstream's address, makes the soak's binary (or
// its test binary) run as the relay.
const relayEnv = "SOAK_RELAY_TO"

// relayMain runs the relay when relayEnv is set (it then never returns):
// it prints its address on stdout and forwards until killed.
func relayMain() {
	to := os.Getenv(relayEnv)
	if to == "" {
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String())
	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(0)
		}
		go forward(c, to)
	}
}

// forward copies c to a new connection to addr and back until either
// side ends.
func forward(c net.Conn, addr string) {
	defer c.Close()
	up, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

// startRelay runs this binary as the relay to addr and returns its
// address and its stop.
func startRelay(addr string) (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), relayEnv+"="+addr)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case a := <-got:
		if a == "" {
			stop()
			return "", nil, fmt.Errorf("the relay did not start")
		}
		return a, stop, nil
	case <-time.After(30 * time.Second):
		stop()
		return "", nil, fmt.Errorf("the relay did not start")
	}
}
