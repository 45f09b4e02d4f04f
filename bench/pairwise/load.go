package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/stat: 100 on every Linux architecture Go
// supports.
const clockTicks = 100

// cpuSample is the machine's busy and stolen CPU time (/proc/stat) and this process's CPU
// time (getrusage), in seconds, at one instant.
type cpuSample struct {
	at           time.Time
	busy, steal  float64
	self, childs float64
	ok           bool
}

func sampleCPU() cpuSample {
	s := cpuSample{at: time.Now()}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.self = tv(ru.Utime) + tv(ru.Stime)
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		s.childs = tv(ru.Utime) + tv(ru.Stime)
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return s
	}
	v := make([]float64, 8)
	for i := range v {
		x, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil {
			return s
		}
		v[i] = x / clockTicks
	}
	// user nice system idle iowait irq softirq steal
	s.busy = v[0] + v[1] + v[2] + v[5] + v[6]
	s.steal = v[7]
	s.ok = true
	return s
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// othersLoad returns the average number of cores that other processes kept busy (plus
// time stolen by the hypervisor) between two samples: the machine's busy time less this
// process's and its waited-for children's. −1 when /proc/stat is unavailable. The
// resolution is 1/clockTicks s per core, so it is only meaningful over runs of 0.1 s or more.
func othersLoad(a, b cpuSample) float64 {
	wall := b.at.Sub(a.at).Seconds()
	if !a.ok || !b.ok || wall <= 0 {
		return -1
	}
	others := (b.busy - a.busy) - (b.self - a.self) - (b.childs - a.childs) + (b.steal - a.steal)
	return max(0, others/wall)
}
