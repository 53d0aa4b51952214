// Command bexpr-reference records what the reference selector evaluator, go-bexpr 0.1.2 (the
// version the real access-control service pins), answers for seeded selectors against
// claims-based identities, as a JSON table for test/properties/selector-reference.test.ts.
//
// The identity type mirrors the real service's claims-based auth methods: `value.<claim>`
// strings and `list.<claim>` string lists (bexpr tags "value" and "list").
//
// Regenerate (Debian: apt-get install golang-go golang-github-hashicorp-go-bexpr-dev):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=/tmp/gocache \
//	  go run scripts/bexpr-reference/main.go > test/fixtures/bexpr-reference.json
//
// The selectors come from math/rand with a fixed seed, whose sequence Go keeps stable, so the
// same table comes out every time.
package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strconv"

	bexpr "github.com/hashicorp/go-bexpr"
)

type fields struct {
	Value map[string]string   `bexpr:"value"`
	List  map[string][]string `bexpr:"list"`
}

type identityJSON struct {
	Value map[string]string   `json:"value"`
	List  map[string][]string `json:"list"`
}

type row struct {
	Selector string `json:"selector"`
	// Error is the creation error (parse or type check), or "" when the selector compiled.
	Error string `json:"error"`
	// Results has one entry per identity: "true", "false" or "error" (evaluation failed).
	Results []string `json:"results"`
}

type table struct {
	Reference  string         `json:"reference"`
	Identities []identityJSON `json:"identities"`
	Rows       []row          `json:"rows"`
}

var identities = []identityJSON{
	{Value: map[string]string{}, List: map[string][]string{}},
	{Value: map[string]string{"sub": "web", "team": "admins"}, List: map[string][]string{"groups": {"admins", "dev"}}},
	{Value: map[string]string{"sub": "", "team": "dev"}, List: map[string][]string{"groups": {}}},
	{Value: map[string]string{"sub": "db-web"}, List: map[string][]string{"groups": {"web"}, "roles": {""}}},
	{Value: map[string]string{"team": "Admins", "env": "prod"}, List: map[string][]string{"roles": {"ops", "admins"}}},
	{Value: map[string]string{"sub": "we", "team": "", "env": ""}, List: map[string][]string{"groups": {"dev", "prod"}, "roles": {}}},
}

// Claims some identities have and "missing", which none has.
var valueKeys = []string{"sub", "team", "env", "missing"}
var listKeys = []string{"groups", "roles", "missing"}
var literals = []string{`""`, `"web"`, `"admins"`, `"we"`, `"dev"`, `web`, `"prod"`, `"Admins"`}
var patterns = []string{`"^w"`, `"b$"`, `".*"`, `"^$"`, `"(?i)admins"`, `"d.v"`, `"("`, `"[a-"`}

func pick(r *rand.Rand, xs []string) string { return xs[r.Intn(len(xs))] }

func valueSel(r *rand.Rand) string {
	k := pick(r, valueKeys)
	if r.Intn(5) == 0 {
		return `value["` + k + `"]`
	}
	return "value." + k
}

func listSel(r *rand.Rand) string { return "list." + pick(r, listKeys) }

func match(r *rand.Rand) string {
	switch r.Intn(22) {
	case 0, 1:
		return valueSel(r) + " == " + pick(r, literals)
	case 2, 3:
		return valueSel(r) + " != " + pick(r, literals)
	case 4:
		return pick(r, literals) + " in " + valueSel(r)
	case 5:
		return pick(r, literals) + " not in " + valueSel(r)
	case 6:
		return valueSel(r) + " contains " + pick(r, literals)
	case 7:
		return valueSel(r) + " not contains " + pick(r, literals)
	case 8, 9:
		return valueSel(r) + " matches " + pick(r, patterns)
	case 10, 11:
		return valueSel(r) + " not matches " + pick(r, patterns)
	case 12:
		return listSel(r) + " contains " + pick(r, literals)
	case 13:
		return pick(r, literals) + " not in " + listSel(r)
	case 14:
		return listSel(r) + " is empty"
	case 15:
		return listSel(r) + " is not empty"
	case 16:
		return pick(r, literals) + ` in value`
	case 17:
		return `value is not empty`
	case 18:
		// Operations the field type does not take (refused at creation).
		return pick(r, []string{listSel(r) + " == " + pick(r, literals), valueSel(r) + " is empty", listSel(r) + " matches " + pick(r, patterns), "bogus.x == 1"})
	case 19:
		return "list is empty"
	case 20:
		return pick(r, literals) + " in " + listSel(r)
	default:
		return valueSel(r) + " is not empty"
	}
}

func expr(r *rand.Rand, depth int) string {
	if depth <= 0 {
		return match(r)
	}
	switch r.Intn(6) {
	case 0:
		return "not " + expr(r, depth-1)
	case 1:
		return "not (" + expr(r, depth-1) + ")"
	case 2:
		return expr(r, depth-1) + " and " + expr(r, depth-1)
	case 3:
		return expr(r, depth-1) + " or " + expr(r, depth-1)
	case 4:
		return "(" + expr(r, depth-1) + " or " + expr(r, depth-1) + ") and " + expr(r, depth-1)
	default:
		return match(r)
	}
}

func main() {
	r := rand.New(rand.NewSource(20261123))
	out := table{Reference: "github.com/hashicorp/go-bexpr 0.1.2 (Debian golang-github-hashicorp-go-bexpr-dev), CreateEvaluatorForType(selector, nil, *fields)", Identities: identities}
	seen := map[string]bool{}
	for len(out.Rows) < 600 {
		var selector string
		if len(out.Rows) < 250 {
			selector = match(r) // every single operator on present and missing claims
		} else {
			selector = expr(r, 1+r.Intn(3))
		}
		if seen[selector] {
			continue
		}
		seen[selector] = true
		row := row{Selector: selector, Results: []string{}}
		eval, err := bexpr.CreateEvaluatorForType(selector, nil, (*fields)(nil))
		if err != nil {
			row.Error = err.Error()
		} else {
			for _, id := range identities {
				result, err := eval.Evaluate(&fields{Value: id.Value, List: id.List})
				if err != nil {
					row.Results = append(row.Results, "error")
				} else {
					row.Results = append(row.Results, strconv.FormatBool(result))
				}
			}
		}
		out.Rows = append(out.Rows, row)
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", " ")
	if err := encoder.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
