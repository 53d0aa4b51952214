// Records Go regexp answers for test/fixtures/go-regexp-reference.json: reads one JSON case a line
// ({"pattern","inputs"}) on stdin (python3 cases.py | GO111MODULE=off go run main.go), prints the answers.
// Size limits and lookbehind messages differ across Go versions and are asserted in re2-adapter.test.ts instead.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

type Case struct {
	Pattern string   `json:"pattern"`
	Inputs  []string `json:"inputs"`
}
type Out struct {
	Pattern string `json:"pattern"`
	Error   string `json:"error,omitempty"`
	Matches []bool `json:"matches,omitempty"`
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<24), 1<<24)
	var outs []Out
	for sc.Scan() {
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil { panic(err) }
		re, err := regexp.Compile(c.Pattern)
		o := Out{Pattern: c.Pattern}
		if err != nil { o.Error = err.Error() } else {
			o.Matches = []bool{}
			for _, in := range c.Inputs { o.Matches = append(o.Matches, re.MatchString(in)) }
		}
		outs = append(outs, o)
	}
	b, _ := json.MarshalIndent(outs, "", "  ")
	fmt.Println(string(b))
}
