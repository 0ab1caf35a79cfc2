// Package lineproto is the line protocol every oracle speaks (tools/README.md): one JSON
// case per line on stdin, one JSON answer per line on stdout, flushed per line so the
// Rust client can ask case by case. Its folder starts with "_" so that tools/oracles/build
// does not take it for an oracle; the oracles use it through a `replace` directive.
package lineproto

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Serve answers every non-blank line of stdin with answer's result, encoded as one JSON
// line, until stdin ends. answer must not panic (each oracle recovers per case, so that
// it can say which case). A read or write failure ends the process with status 1.
func Serve(name string, answer func(line []byte) any) {
	// Cases can be large (maximal CEL rules, YAML documents): no Scanner line limit.
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			encoded, encErr := json.Marshal(answer(line))
			if encErr != nil {
				encoded, _ = json.Marshal(map[string]string{"panic": "cannot encode the answer: " + encErr.Error()})
			}
			if _, e := out.Write(append(encoded, '\n')); e != nil {
				fail(name, e)
			}
			if e := out.Flush(); e != nil {
				fail(name, e)
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fail(name, err)
		}
	}
}

func fail(name string, err error) {
	fmt.Fprintf(os.Stderr, "%s oracle: %v\n", name, err)
	os.Exit(1)
}
