// Package bench holds reid's performance harness: programs under bench/ measure speed and
// memory against the machine's limits and against peer tools, and write the tables kept in
// bench/README.md. Measurements are ratios taken in one run, since the machines are shared.
package bench
